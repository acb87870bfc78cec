#!/usr/bin/env python3
"""One permutation, several conversion kernels and PyTorch's ways of doing it, timed by the same sampling loop.

The corpus report compares our kernels, timed by convert_lab (C++, CUDA events), with the peers, timed by
bench/peers (Python, CUDA events). For kernels of a few microseconds the two loops' own costs are of the order
of the differences; this script times both in one process with bench/peers' `measure` (cold L2 before each
sample), in rounds that alternate the order, so that a 4 us kernel and `contiguous(memory_format=...)` are
judged alike. The corpus run does the same for every case (bench/peers/convert_peers.py --kernels); this
script compares hand-edited variants of one kernel with them.

    layoutscope plan --shape 1,3,224,224 --perm 0,2,3,1 --dtype f32 --emit-cuda > ours.cu
    layoutscope plan --shape 1,3,224,224 --perm 0,2,3,1 --dtype f32 | jq '.threads, .blocks'   # 64, 196
    python3 tests/gpu/kernel_vs_peers.py --shape 1,3,224,224 --perm 0,2,3,1 --dtype f32 \\
        --kernel ours=ours.cu:64:196 [--kernel variant=edited.cu:256:49 ...] [--rounds 9] [--out FILE] \\
        --nvrtc-option=--ptxas-options=-O1

Each kernel is CUDA C with the generated kernel's entry point, `layoutscope_convert(const unsigned char* in,
unsigned char* out)`, launched with THREADS x BLOCKS (static shared memory only), compiled by CuPy (NVRTC) and
checked against `x.permute(perm).contiguous()` before it is timed. NVRTC gets --std=c++17 -default-device and
each --nvrtc-option, as the agent compiles a generated kernel (convert_lab's result lines name a kernel's own
options, `nvrtc_options`: the generator's are --ptxas-options=-O1). The peers: `copy_` of the same bytes, eager
`permute(...).contiguous()`, and for a rank-4 (rank-5) permutation that is NCHW -> NHWC (NCDHW -> NDHWC),
`contiguous(memory_format=torch.channels_last[_3d])`. Prints each one's median over the rounds; --out writes
every round as JSON. --hold-us H (default 1000, 0: none) spins the GPU after each sample's flush while Python
queues the sample, as the corpus's peers' loop does, so that each sample is the GPU's time and not Python's
launch (docs/benchmark-method.md, "Held samples").
"""
import argparse
import json
import os
import statistics
import sys

DTYPES = ("f32", "bf16", "u8")


def int_list(text, what):
    try:
        return [int(v) for v in text.split(",") if v != ""]
    except ValueError:
        raise SystemExit(f"--{what}: a comma-separated list of integers, got {text!r}")


def kernel_spec(text):
    name, sep, rest = text.partition("=")
    parts = rest.split(":")
    if not sep or not name or len(parts) != 3:
        raise SystemExit(f"--kernel: NAME=FILE:THREADS:BLOCKS, got {text!r}")
    try:
        threads, blocks = int(parts[1]), int(parts[2])
    except ValueError:
        raise SystemExit(f"--kernel {name}: THREADS and BLOCKS must be integers, got {parts[1]!r}, {parts[2]!r}")
    if not os.path.isfile(parts[0]):
        raise SystemExit(f"--kernel {name}: no file {parts[0]!r}")
    if not 1 <= threads <= 1024 or blocks < 1:
        raise SystemExit(f"--kernel {name}: THREADS must be 1-1024 and BLOCKS at least 1")
    return name, parts[0], threads, blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", required=True)
    ap.add_argument("--perm", required=True)
    ap.add_argument("--dtype", required=True, choices=DTYPES)
    ap.add_argument("--kernel", action="append", default=[], help="NAME=FILE:THREADS:BLOCKS (repeatable)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--seconds", type=float, default=0.3, help="time limit of one measurement")
    ap.add_argument("--hold-us", type=float, default=1000.0, help="GPU spin before each sample (0: none)")
    ap.add_argument("--out")
    ap.add_argument("--nvrtc-option", action="append", default=[], help="an NVRTC option for every --kernel")
    args = ap.parse_args()
    shape, perm = int_list(args.shape, "shape"), int_list(args.perm, "perm")
    if sorted(perm) != list(range(len(shape))):
        raise SystemExit(f"--perm must be a permutation of 0..{len(shape) - 1}, got {args.perm!r}")
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    if args.hold_us < 0:
        raise SystemExit(f"--hold-us must be 0 or more, not {args.hold_us}")
    kernels = [kernel_spec(k) for k in args.kernel]

    # After the arguments: a bad command line is refused on a machine without torch or a GPU.
    import cupy as cp
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "peers"))
    from convert_peers import case_op, channels_last_format, generated_kernel  # the corpus peers' input, formats
    from peers import hold_for, measure  # the peers' sampling loop

    x, eager = case_op({"shape": shape, "perm": perm, "dtype": args.dtype})
    ref = eager(x)
    y = torch.empty_like(ref)
    xb, yb = cp.from_dlpack(x.view(-1).view(torch.uint8)), cp.from_dlpack(y.view(-1).view(torch.uint8))
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    hold = hold_for(args.hold_us)

    variants = {}
    for name, path, threads, blocks in kernels:
        k = generated_kernel(path, args.nvrtc_option)
        run = (lambda k=k, t=threads, b=blocks: k((b,), (t,), (xb, yb)))
        y.zero_()
        run()
        torch.cuda.synchronize()
        if not torch.equal(y, ref):
            raise SystemExit(f"--kernel {name}: its output is not x.permute({args.perm}).contiguous()")
        variants[name] = run
    flat_x, flat_y = x.view(-1), y.view(-1)
    variants["copy_"] = lambda: flat_y.copy_(flat_x)
    variants["eager"] = lambda: eager(x)
    fmt = channels_last_format(perm)
    if fmt is not None:
        laid = x.contiguous(memory_format=fmt).permute(perm)  # its memory order is the permutation's
        if laid.is_contiguous() and torch.equal(laid, ref):
            variants["channels_last"] = lambda: x.contiguous(memory_format=fmt)

    names = list(variants)
    rounds = {n: [] for n in names}
    for r in range(args.rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            rounds[n].append(measure(variants[n], flush, args.seconds, min_samples=30, hold=hold)["median_s"])
    device = torch.cuda.get_device_name(0)
    print(f"{device}: shape {shape} perm {perm} {args.dtype}, {args.rounds} rounds, median of each round's median")
    for n in names:
        print(f"  {n:16s} {statistics.median(rounds[n]) * 1e6:8.3f} us   " +
              " ".join(f"{s * 1e6:.3f}" for s in rounds[n]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": device, "shape": shape, "perm": perm, "dtype": args.dtype,
                       "kernels": [{"name": n, "file": p, "threads": t, "blocks": b} for n, p, t, b in kernels],
                       "median_s": {n: statistics.median(v) for n, v in rounds.items()}, "rounds_s": rounds}, f,
                      indent=1)


if __name__ == "__main__":
    main()
