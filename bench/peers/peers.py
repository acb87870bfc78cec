#!/usr/bin/env python3
"""Peers of the agent's transpose and copy kernels, measured with the agent's method.

Runs on a CUDA machine with PyTorch (and CuPy when present):
    python3 bench/peers/peers.py --dims 4096,8192,16384 --out peers.json

Method (docs/benchmark-method.md, the same as the agent's): cold L2 before every sample (a memset of twice the L2
size outside the timed region), warm-up, CUDA events around the operation only, adaptive sample count
(at least 10, stop when the relative IQR is <= 0.5% or after --seconds per case), median / q1 / q3 / min.
Useful bytes of a dim x dim fp32 transpose or copy: one read and one write of every element.
Every transpose output is checked exactly against x.t() (torch.equal) before it is timed.
Peers: torch-eager copy_ (contiguous y.copy_(x)), torch-eager transpose (x.t().contiguous()), torch-eager copy_T
(y.copy_(x.t())), torch.compile transpose, CuPy transpose (cupy.ascontiguousarray(x.T)).
"""
import argparse
import datetime
import json
import statistics
import sys
import time

import torch

SCHEMA_VERSION = "1.0.0"


def quantiles(samples):
    s = sorted(samples)
    q = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [s[0]] * 3
    return s[0], q[0], q[1], q[2]


def hold_cycles(seconds):
    """GPU clock cycles that torch.cuda._sleep spins for about `seconds` on this device (timed with events)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rates = []
    for _ in range(3):
        # A spin queued first keeps the stream busy (and the clocks up), so the timed spin follows the start
        # event at once, with no idle time of the host's in between.
        torch.cuda._sleep(1_000_000)
        start.record()
        torch.cuda._sleep(1_000_000)
        end.record()
        end.synchronize()
        rates.append(1_000_000 / (start.elapsed_time(end) / 1e3))
    return round(seconds * statistics.median(rates))


def hold_for(microseconds):
    """measure's `hold` for a spin of that many microseconds: (seconds, cycles), or None for 0 (no hold)."""
    return (microseconds / 1e6, hold_cycles(microseconds / 1e6)) if microseconds > 0 else None


def measure(fn, flush, seconds, min_samples=10, max_samples=2000, events=None, hold=None):
    """Cold-L2 samples of fn() between two CUDA events; the median and quartiles.

    hold (seconds, cycles) keeps the GPU busy that long after the flush (torch.cuda._sleep), so that the
    start event, fn's launches and the end event are all queued before the start event runs: a sample is then
    the GPU's time alone, not the host's time to launch from Python. A sample whose queuing took longer than
    the hold is counted in `unheld`."""
    make_event = events or (lambda: torch.cuda.Event(enable_timing=True))
    for _ in range(3):  # warm-up: allocation, compilation, autotuning stay out of the numbers
        fn()
    torch.cuda.synchronize()
    samples = []
    unheld = 0
    deadline = time.monotonic() + seconds
    while len(samples) < max_samples:
        flush.zero_()  # cold L2: overwrite more than the whole L2 before each sample
        start, end = make_event(), make_event()
        if hold:
            torch.cuda._sleep(hold[1])
            queued = time.perf_counter()
        start.record()
        fn()
        end.record()
        if hold and time.perf_counter() - queued > hold[0]:
            unheld += 1
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
        if len(samples) >= min_samples:
            lo, q1, med, q3 = quantiles(samples)
            if (q3 - q1) / med <= 0.005 or time.monotonic() > deadline:
                break
    lo, q1, med, q3 = quantiles(samples)
    stats = {"samples": len(samples), "min_s": lo, "q1_s": q1, "median_s": med, "q3_s": q3,
             "relative_iqr": (q3 - q1) / med}
    if hold:
        stats["unheld"] = unheld
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dims", default="4096,8192,16384")
    ap.add_argument("--seconds", type=float, default=3.0, help="time limit per case")
    ap.add_argument("--out", default="peers.json")
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()

    dev = torch.cuda.current_device()
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 64 << 20) or (64 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    try:
        import cupy
    except Exception as e:  # noqa: BLE001 - report why, do not fail the whole run
        cupy = None
        cupy_error = repr(e)
    results = []

    def record(peer, op, dim, stats, note=""):
        useful = 2 * dim * dim * 4
        row = {"peer": peer, "op": op, "dim": dim, "bytes": useful,
               "bytes_per_second": useful / stats["median_s"], **stats}
        if note:
            row["note"] = note
        results.append(row)
        print(f"{peer:16s} {op:10s} {dim:6d}  {stats['median_s']*1e6:10.1f} us  "
              f"{useful / stats['median_s'] / 1e12:6.3f} TB/s  (n={stats['samples']}, "
              f"iqr {stats['relative_iqr']*100:.2f}%)", flush=True)

    compiled = None
    if not args.no_compile:
        compiled = torch.compile(lambda t: t.t().contiguous())

    for dim in [int(d) for d in args.dims.split(",")]:
        gen = torch.Generator(device="cuda").manual_seed(dim)
        x = torch.rand(dim, dim, device="cuda", generator=gen)
        ref = x.t().contiguous().cpu()
        y = torch.full_like(x, float("nan"))

        # contiguous same-dtype copy_: PyTorch hands it to cudaMemcpyAsync device-to-device
        record("torch-eager", "copy_", dim, measure(lambda: y.copy_(x), flush, args.seconds))
        assert torch.equal(y, x), "torch copy_ is wrong"
        y.fill_(float("nan"))
        out = x.t().contiguous()
        assert torch.equal(out.cpu(), ref), "torch eager transpose is wrong"
        record("torch-eager", "transpose", dim, measure(lambda: x.t().contiguous(), flush, args.seconds))
        record("torch-eager", "copy_T", dim, measure(lambda: y.copy_(x.t()), flush, args.seconds))
        assert torch.equal(y.cpu(), ref), "torch copy_ of the transpose is wrong"
        if compiled is not None:
            out = compiled(x)
            assert torch.equal(out.cpu(), ref), "torch.compile transpose is wrong"
            record("torch.compile", "transpose", dim, measure(lambda: compiled(x), flush, args.seconds))
        if cupy is not None:
            cx = cupy.asarray(x)
            co = cupy.ascontiguousarray(cx.T)
            assert bool((cupy.asnumpy(co) == ref.numpy()).all()), "cupy transpose is wrong"
            stats = measure(lambda: cupy.ascontiguousarray(cx.T), flush, args.seconds,
                            events=lambda: _CupyEvent())
            record("cupy", "transpose", dim, stats)
        del x, y, out, ref

    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "device": props.name,
        "sm": f"{props.major}{props.minor}",
        "l2_bytes": l2,
        "torch": torch.__version__,
        "cupy": getattr(cupy, "__version__", None) if cupy else None,
        "cupy_error": None if cupy else cupy_error,
        "method": "cold L2 (memset 2x L2 before each sample), CUDA events, median of adaptive samples",
        "command": " ".join(sys.argv),
    }
    with open(args.out, "w") as f:
        json.dump({"schema_version": SCHEMA_VERSION, "meta": meta, "results": results}, f, indent=2)


class _CupyEvent:
    """torch.cuda.Event's record / synchronize / elapsed_time, on CuPy's current stream."""

    def __init__(self):
        import cupy
        self._cupy = cupy
        self._e = cupy.cuda.Event()

    def record(self):
        self._e.record()

    def synchronize(self):
        self._e.synchronize()

    def elapsed_time(self, end):
        return self._cupy.cuda.get_elapsed_time(self._e, end._e)


if __name__ == "__main__":
    main()
