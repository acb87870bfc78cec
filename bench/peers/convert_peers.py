#!/usr/bin/env python3
"""Peers of the generated conversion kernels: the same cases, the same method, the same GPU.

    python3 bench/peers/convert_peers.py --cases lab.jsonl --out convert-peers.json [--seconds 1]

Reads the cases (shape, perm, dtype) from the conversion lab's JSON lines and measures, for each:
PyTorch eager `x.permute(p).contiguous()`, `torch.compile` of the same function, CuPy
`cupy.ascontiguousarray(x.transpose(p))` where CuPy is installed, and `y.copy_(x)` (a plain copy of the same
bytes) as the run's own ceiling. Every output is checked with torch.equal against eager before it is timed.
Method as bench/peers/peers.py (docs/benchmark-method.md): cold L2 before every sample, warm-up, CUDA events,
adaptive sample count, median.
"""
import argparse
import json
import sys
import time

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from peers import measure  # noqa: E402  (the shared sampling loop)

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "u8": torch.uint8}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", required=True, help="JSON lines of tests/gpu/convert_lab (shape, perm, dtype)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--compile-budget", type=float, default=240.0, help="seconds of torch.compile in all")
    args = ap.parse_args()
    try:
        import cupy
    except ImportError:
        cupy = None
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    cases = [json.loads(line) for line in open(args.cases) if line.startswith("{")]
    cases = [c for c in cases if "shape" in c]
    results = []
    compile_spent = 0.0
    for c in cases:
        shape, perm, dtype = c["shape"], c["perm"], DTYPES[c["dtype"]]
        if dtype == torch.uint8:
            x = torch.randint(0, 256, shape, dtype=dtype, device="cuda")
        else:
            x = torch.randn(shape, device="cuda").to(dtype)
        ref = x.permute(perm).contiguous()
        y = torch.empty_like(x)
        row = {"case": c["case"], "shape": shape, "perm": perm, "dtype": c["dtype"], "bytes": x.numel() * x.element_size()}
        row["copy_"] = measure(lambda: y.copy_(x), flush, args.seconds)["median_s"]
        row["eager"] = measure(lambda: x.permute(perm).contiguous(), flush, args.seconds)["median_s"]
        if compile_spent < args.compile_budget:
            t0 = time.monotonic()
            fn = torch.compile(lambda t: t.permute(perm).contiguous(), dynamic=False)
            ok = torch.equal(fn(x), ref)
            compile_spent += time.monotonic() - t0
            row["compile"] = measure(lambda: fn(x), flush, args.seconds)["median_s"] if ok else None
            row["compile_verified"] = ok
            torch._dynamo.reset()
        if cupy is not None:
            # CuPy has no bfloat16: bf16 moves as 16-bit integers, the same bytes.
            cx = cupy.asarray(x.view(torch.int16) if dtype == torch.bfloat16 else x)
            out = cupy.ascontiguousarray(cx.transpose(perm))
            row["cupy_verified"] = bool(torch.equal(torch.as_tensor(out, device="cuda").view(dtype), ref))
            row["cupy"] = measure(lambda: cupy.ascontiguousarray(cx.transpose(perm)), flush, args.seconds)["median_s"]
        results.append(row)
        print(json.dumps(row), flush=True)
        del x, y, ref
        torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "cupy": getattr(cupy, "__version__", None), "cases": results}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
