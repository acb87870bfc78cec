#!/usr/bin/env python3
"""Peers of the generated conversion kernels: the same cases, the same method, the same GPU.

    python3 bench/peers/convert_peers.py --cases lab.jsonl --out convert-peers.json [--seconds 1]

Reads the cases (shape, perm, dtype) from the conversion lab's JSON lines and measures, for each:
PyTorch eager `x.permute(p).contiguous()`, `torch.compile` of the same function (default mode, and with
--max-autotune also mode="max-autotune-no-cudagraphs"), CuPy `cupy.ascontiguousarray(x.transpose(p))` where
CuPy is installed, `x.contiguous(memory_format=torch.channels_last)` (channels_last_3d for rank 5) where the
permutation is NCHW -> NHWC, and `y.copy_(x)` (a plain copy of the same bytes) as the run's own ceiling. A
layout-to-layout case (the lab line's `src`) runs as `torch.as_strided(buf, extents, strides).contiguous()`
over the lab's element modes (destination order) and the source's offset, the same map as the kernel's;
a swizzled layout has no peer and is skipped. `eager_first_s` is the host
time of eager's first call on a case's shapes (a new tensor, synchronized): what a user converting once pays.
Where a peer returns its input itself (a permutation that moves nothing, such as NCHW -> NHWC with one
channel: `.contiguous()` is then a no-op), the case records `PEER_aliases: true` and that peer's time is no
conversion: it is kept but not compared. Every output is checked with torch.equal against eager before it is timed.
Method as bench/peers/peers.py (docs/benchmark-method.md): cold L2 before every sample, warm-up, CUDA events,
adaptive sample count, median.

--compile-workers N (N > 0) first compiles every case's torch.compile functions (both modes) in N processes
at once, nothing timed, each case's first call run and dropped: Inductor keeps what they compiled in its
on-disk caches (the FX graph cache, the Triton kernels, the autotuning results), so that the timing pass that
follows, alone on the GPU, compiles from them and fits every case in its --compile-budget.
`compile_s` per case and mode is what the timing pass spent compiling (cache hits where the warm-up ran).

--kernels DIR times the generated kernel itself in this same loop: DIR/<case>.cu as the lab wrote it
(`convert_lab --emit DIR`, entry point `layoutscope_convert(in, out)`, launched with the lab line's threads and
blocks), compiled by CuPy (NVRTC, with the lab's options), run on the case's source buffer and checked element
for element before it is timed: the destination seen through its strides and offset holds the source seen
through its own, and 256 guard bytes past the destination's end are untouched (`ours`, `ours_verified`). A
kernel of a few microseconds and a peer of a few microseconds are then judged by one loop, not by two
programs' loops. With it the loop also times `copy16`, a copy of the same bytes 16 B a lane and four a
thread as the lab's copy ceiling, so that our kernel has a copy of its own loop to be a fraction of.

--rounds R measures `copy_`, our kernel and `copy16`, eager, channels_last and CuPy R times each,
alternating (the order rotated every round), and keeps each one's median over the rounds (`PEER_rounds_s`
lists every round's): a drift of the GPU's clocks during a case then falls on all of them alike, and the
report compares our kernel with a peer round by round. torch.compile's two modes are measured once.

--hold-us H (default 1000; 0 turns it off) spins the GPU H microseconds after each sample's flush
(torch.cuda._sleep), so that the start event, the launches and the end event are all queued while it spins:
each sample is then the GPU's time, as in the lab's C++ loop, and not Python's time to launch a kernel of a
few microseconds. `PEER_unheld` counts a peer's samples whose queuing outlasted the hold (0 where the hold
covered them all); the output's `hold_s` says what the run used.
"""
import argparse
import json
import statistics
import sys
import time

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from peers import hold_for, measure  # noqa: E402  (the shared sampling loop)
from float4_copy import copy16  # noqa: E402  (the loop's copy ceiling)

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "u8": torch.uint8}


def case_op(c):
    """The case's source tensor on the GPU and the eager function that converts it."""
    shape, perm, dtype = c["shape"], c["perm"], DTYPES[c["dtype"]]
    layout = bool(c.get("src"))
    if layout:
        # The source buffer (its cosize, padding included) viewed through the conversion's element modes.
        src_shape = [c["source_bytes"] // torch.tensor([], dtype=dtype).element_size()]
    else:
        src_shape = shape
    if dtype == torch.uint8:
        x = torch.randint(0, 256, src_shape, dtype=dtype, device="cuda")
    else:
        x = torch.randn(src_shape, device="cuda").to(dtype)
    if layout:
        ext = [m[0] for m in c["elem_modes"]]
        sst = [m[1] for m in c["elem_modes"]]
        off = c.get("src_offset", 0)
        return x, lambda t: torch.as_strided(t, ext, sst, off).contiguous()
    return x, lambda t: t.permute(perm).contiguous()


def channels_last_format(perm):
    """The memory format whose storage order is this permutation (NCHW -> NHWC, NCDHW -> NDHWC), else None."""
    return {(0, 2, 3, 1): torch.channels_last, (0, 2, 3, 4, 1): torch.channels_last_3d}.get(tuple(perm))


def generated_kernel(path, options=()):
    """The CUDA C in `path` (entry point `layoutscope_convert(in, out)`, as codegen writes it), compiled by CuPy
    with the options NVRTC gets in the agent (agent/backends/cuda/nvrtc.cpp) and the kernel's own."""
    import cupy
    with open(path) as f:
        return cupy.RawKernel(f.read(), "layoutscope_convert", options=("--std=c++17", "-default-device", *options))


def ours(c, folder, x):
    """The generated kernel of case c (folder/<case>.cu), compiled and checked: (fields, launch), where the
    launch is None if the lab wrote no kernel for c or the kernel failed its check."""
    import os
    path = os.path.join(folder, c["case"] + ".cu")
    if not (os.path.isfile(path) and c.get("threads") and c.get("blocks")):
        return {}, None
    import cupy
    # The lab's NVRTC options for this kernel, so that the CUBIN is the one the lab timed.
    kernel = generated_kernel(path, c.get("nvrtc_options", []))
    try:
        kernel.compile()
    except Exception as e:  # recorded, and the case is judged by the lab's time
        return {"ours_verified": False, "ours": None, "ours_error": repr(e)[:300]}, None
    ext = [m[0] for m in c["elem_modes"]]
    dst = [m[2] for m in c["elem_modes"]]
    off = c.get("dst_offset", 0)
    cosize = off + sum((e - 1) * s for e, s in zip(ext, dst)) + 1
    # 256 bytes past the destination's last element, filled with 0xA5, must come back untouched.
    esz = x.element_size()
    raw = torch.full((cosize * esz + 256,), 0xA5, dtype=torch.uint8, device="cuda")
    out = raw[: cosize * esz].view(x.dtype)
    xb = cupy.from_dlpack(x.reshape(-1).view(torch.uint8))
    ob = cupy.from_dlpack(raw)
    grid, block = (int(c["blocks"]),), (int(c["threads"]),)
    run = lambda: kernel(grid, block, (xb, ob))  # noqa: E731
    run()
    torch.cuda.synchronize()
    # Element for element over the lab's modes (extent, source stride, destination stride): the destination
    # seen through its strides and offset holds the source seen through its own.
    src = torch.as_strided(x.reshape(-1), ext, [m[1] for m in c["elem_modes"]], c.get("src_offset", 0))
    ok = torch.equal(torch.as_strided(out, ext, dst, off), src) and bool((raw[cosize * esz:] == 0xA5).all())
    row = {"ours_verified": bool(ok), "ours_threads": int(c["threads"]), "ours_blocks": int(c["blocks"])}
    if not ok:
        row["ours"] = None
    return row, run if ok else None


def compile_modes(args):
    return [("compile", {})] + ([("compile_max_autotune", {"mode": "max-autotune-no-cudagraphs"})] if args.max_autotune else [])


def warm(args):
    """A warm-up worker: compiles (and calls once) the torch.compile functions of its share of the cases."""
    i, n = (int(v) for v in args.warm_shard.split("/"))
    cases = [json.loads(line) for line in open(args.cases) if line.startswith("{")]
    cases = [c for c in cases if "shape" in c and not c.get("swizzled")]
    for c in cases[i::n]:
        x, op = case_op(c)
        for key, kw in compile_modes(args):
            t0 = time.monotonic()
            try:
                torch.compile(op, dynamic=False, **kw)(x)
                torch.cuda.synchronize()
            except Exception as e:  # the timed pass records the failure
                print("warm-up compile failed", c["case"], key, repr(e)[:200], file=sys.stderr)
            print(json.dumps({"warm": c["case"], "mode": key, "s": round(time.monotonic() - t0, 3)}), file=sys.stderr)
            torch._dynamo.reset()
        del x
        torch.cuda.empty_cache()


def warm_all(args):
    import os
    import subprocess
    t0 = time.monotonic()
    env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="2")
    cmd = [sys.executable, os.path.abspath(__file__), "--cases", args.cases, "--out", os.devnull]
    cmd += ["--max-autotune"] if args.max_autotune else []
    procs = [subprocess.Popen(cmd + ["--warm-shard", f"{i}/{args.compile_workers}"], env=env)
             for i in range(args.compile_workers)]
    for p in procs:
        p.wait()
    print(json.dumps({"warm_up_s": round(time.monotonic() - t0, 1), "workers": args.compile_workers}), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", required=True, help="JSON lines of tests/gpu/convert_lab (shape, perm, dtype)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--compile-budget", type=float, default=240.0, help="seconds of torch.compile in all")
    ap.add_argument("--max-autotune", action="store_true", help="also torch.compile mode max-autotune-no-cudagraphs")
    ap.add_argument("--compile-workers", type=int, default=0,
                    help="processes that fill Inductor's caches first (both modes), before the timed pass")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure copy_, ours and copy16, eager, channels_last and CuPy this many times each, alternating")
    ap.add_argument("--hold-us", type=float, default=1000.0,
                    help="microseconds the GPU spins before each sample, while Python queues it (0: none)")
    ap.add_argument("--kernels", default=None,
                    help="a folder of the lab's kernels (convert_lab --emit): time each case's own kernel here too")
    ap.add_argument("--warm-shard", default=None, help=argparse.SUPPRESS)  # "i/N": a warm-up worker's share
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1, not {args.rounds}")
    if args.hold_us < 0:
        ap.error(f"--hold-us must be 0 or more, not {args.hold_us}")
    if args.warm_shard:
        return warm(args)
    if args.compile_workers > 0:
        warm_all(args)
    try:
        import cupy
    except ImportError:
        cupy = None
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    hold = hold_for(args.hold_us)

    def timed(fn, key, row):
        stats = measure(fn, flush, args.seconds, hold=hold)
        if hold:
            row[key + "_unheld"] = row.get(key + "_unheld", 0) + stats["unheld"]
        return stats["median_s"]

    cases = [json.loads(line) for line in open(args.cases) if line.startswith("{")]
    cases = [c for c in cases if "shape" in c]
    results = []
    compile_spent = 0.0
    for c in cases:
        shape, perm, dtype = c["shape"], c["perm"], DTYPES[c["dtype"]]
        layout = bool(c.get("src"))
        if c.get("swizzled"):
            # No peer addresses a swizzled layout (as_strided cannot express an XOR of address bits).
            print(json.dumps({"case": c["case"], "skipped": "swizzled layout: no peer expresses it"}), flush=True)
            continue
        if layout:
            ext = [m[0] for m in c["elem_modes"]]
            sst = [m[1] for m in c["elem_modes"]]
        x, op = case_op(c)
        if layout:
            off = c.get("src_offset", 0)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        ref = op(x)
        torch.cuda.synchronize()
        first_s = time.perf_counter() - t0
        y = torch.empty(ref.numel(), dtype=dtype, device="cuda")
        xs = x.reshape(-1)[: ref.numel()]
        row = {"case": c["case"], "shape": shape, "perm": perm, "dtype": c["dtype"], "bytes": ref.numel() * ref.element_size(),
               "eager_first_s": first_s}
        # Each peer below is checked first; the fast ones are then measured together in rounds (the end).
        fast = {"copy_": lambda: y.copy_(xs)}
        if args.kernels:
            fields, run = ours(c, args.kernels, x)
            row.update(fields)
            if run is not None:
                fast["ours"] = run
                fast["copy16"] = copy16(ref.numel() * ref.element_size())
        fast["eager"] = lambda: op(x)
        if ref.data_ptr() == x.data_ptr():
            row["eager_aliases"] = True
        for key, kw in compile_modes(args):
            if compile_spent >= args.compile_budget:
                break
            t0 = time.monotonic()
            try:
                fn = torch.compile(op, dynamic=False, **kw)
                got = fn(x)
                ok = torch.equal(got, ref)
                if ok and got.data_ptr() == x.data_ptr():
                    row[key + "_aliases"] = True  # it returned its input: no conversion ran
                del got
            except Exception as e:  # a peer that fails is recorded, not fatal
                print("compile failed", c["case"], key, repr(e)[:200], file=sys.stderr)
                ok, fn = False, None
            compile_spent += time.monotonic() - t0
            row[key + "_compile_s"] = time.monotonic() - t0
            row[key] = timed(lambda: fn(x), key, row) if ok else None
            row[key + "_verified"] = ok
            torch._dynamo.reset()
        fmt = None if layout else channels_last_format(perm)
        if fmt is not None:
            cl = x.contiguous(memory_format=fmt)
            # channels_last keeps the logical NCHW shape; its storage is the NHWC tensor.
            ok = torch.equal(cl.permute(perm), ref) and cl.permute(perm).is_contiguous()
            if cl.data_ptr() == x.data_ptr():
                row["channels_last_aliases"] = True
            row["channels_last_verified"] = bool(ok)
            row["channels_last"] = None
            if ok:
                fast["channels_last"] = lambda: x.contiguous(memory_format=fmt)
            del cl
        if cupy is not None:
            # CuPy has no bfloat16: bf16 moves as 16-bit integers, the same bytes.
            cx = cupy.asarray(x.view(torch.int16) if dtype == torch.bfloat16 else x)
            if layout:
                isz = cx.itemsize
                cop = lambda: cupy.ascontiguousarray(cupy.lib.stride_tricks.as_strided(cx[off:], ext, [s * isz for s in sst]))  # noqa: E731
            else:
                cop = lambda: cupy.ascontiguousarray(cx.transpose(perm))  # noqa: E731
            out = cop()
            if out.data.ptr == cx.data.ptr:
                row["cupy_aliases"] = True
            row["cupy_verified"] = bool(torch.equal(torch.as_tensor(out, device="cuda").view(dtype), ref))
            fast["cupy"] = cop
        names = list(fast)
        rounds = {n: [] for n in names}
        for r in range(args.rounds):
            for n in names[r % len(names):] + names[:r % len(names)]:
                rounds[n].append(timed(fast[n], n, row))
        for n in names:
            row[n] = statistics.median(rounds[n])
            if args.rounds > 1:
                row[n + "_rounds_s"] = rounds[n]
        results.append(row)
        print(json.dumps(row), flush=True)
        del x, y, ref, xs
        torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "cupy": getattr(cupy, "__version__", None), "hold_s": hold[0] if hold else 0, "cases": results}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
