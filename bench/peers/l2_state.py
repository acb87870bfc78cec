#!/usr/bin/env python3
"""What the L2's state before a sample does to kernels of a few MB: a float4 copy with and without cache hints,
and torch.compile's conversions, each timed after two flushes.

    python3 bench/peers/l2_state.py --out l2-state.jsonl [--sizes-mib 2,8] [--cases small_8m_f32,small_2m_f32]

Both timing loops (the lab's and the peers') flush the L2 before each sample by writing over twice its size, so
a sample starts with the L2 full of another buffer's dirty lines, as a real previous kernel's outputs leave it.
This script times each kernel after that flush (`zero`) and after one that reads twice the L2 instead
(`read`: the L2 left clean), held as the peers' loop is (--hold-us), and reports each one's zero / read:

    copy         the float4 copy of each size (16 B a lane, four a thread, blocks of 256), in the variants of
                 VARIANTS: plain `__ldg`, and loads or stores carrying a cache hint or an L2 eviction policy
    compile      torch.compile (default mode) of each named corpus case, and the plain copy of its bytes

A JSON line per size and per case, then a summary line: for each copy variant and size, and for each case,
the time after each flush and zero / read. On an H100 the 8 MiB copy took 9.50 us after the zeroing flush and
7.71 us after the reading one, torch.compile's 2048 x 1024 f32 transpose 7.42 and 7.26 us
(docs/results/h200-convert-corpus.md); its Triton loads carry an L2 evict_last policy, the `l2_evict_last`
variant here.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from float4_copy import LOAD, STORE, source  # noqa: E402  (the peers' loop's float4 copy)

# An L2 eviction policy in a register, for loads or stores with .L2::cache_hint.
_POLICY = 'asm("createpolicy.fractional.L2::{p}.b64 %0, 1.0;" : "=l"(pol));'
_WORDS = '"=r"(x[u].x), "=r"(x[u].y), "=r"(x[u].z), "=r"(x[u].w)'


def _hinted_load(policy, l1=""):
    load = (f'asm("ld.global{l1}.L2::cache_hint.v4.u32 {{%0,%1,%2,%3}}, [%4], %5;" : {_WORDS} : '
            '"l"(src + i), "l"(pol));')
    return "{ unsigned long long pol; " + _POLICY.format(p=policy) + " " + load + " }"


def _hinted_store(policy):
    store = ('asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" :: "l"(dst + i), '
             '"r"(x[u].x), "r"(x[u].y), "r"(x[u].z), "r"(x[u].w), "l"(pol) : "memory");')
    return "{ unsigned long long pol; " + _POLICY.format(p=policy) + " " + store + " }"


# name: (the statement that loads x[u] from src + i, the one that stores it to dst + i)
VARIANTS = {
    "plain": (LOAD, STORE),
    "l1_evict_last": (f'asm("ld.global.L1::evict_last.v4.u32 {{%0,%1,%2,%3}}, [%4];" : {_WORDS} : "l"(src + i));',
                      STORE),
    "ld_cs": ("x[u] = __ldcs(src + i);", STORE),
    "st_cs": (LOAD, "__stcs(dst + i, x[u]);"),
    "l2_evict_last": (_hinted_load("evict_last", ".L1::evict_last"), STORE),
    "l2_evict_first": (_hinted_load("evict_first"), STORE),
    "st_l2_evict_first": (LOAD, _hinted_store("evict_first")),
}


def copy_source(variant):
    """The float4 copy's CUDA source in one of VARIANTS."""
    return source(*VARIANTS[variant])


def ratios(row):
    """row with `K_zero_s` and `K_read_s` for some K: each K's zero / read added as `K_zero_over_read`."""
    out = dict(row)
    for key in row:
        if key.endswith("_zero_s") and row.get(key[: -len("_zero_s")] + "_read_s"):
            base = key[: -len("_zero_s")]
            out[base + "_zero_over_read"] = row[key] / row[base + "_read_s"]
    return out


def positive_ints(text, option):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{option}: '{text}' is not a comma-separated list of whole numbers")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{option}: sizes are whole MiB, at least 1 (got '{text}')")
    return values


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="JSON lines: a line per size and per case, then the summary")
    ap.add_argument("--sizes-mib", default="2,8", type=lambda t: positive_ints(t, "--sizes-mib"),
                    help="copy sizes in MiB, comma-separated (default 2,8)")
    ap.add_argument("--cases", default="small_8m_f32,small_2m_f32",
                    help="corpus cases (names in --corpus) to time torch.compile on; '' for none")
    ap.add_argument("--corpus", default=os.path.join(HERE, "..", "..", "tests", "gpu", "convert_corpus.json"))
    ap.add_argument("--hold-us", type=float, default=1000.0, help="spin after each flush, as the peers' loop")
    ap.add_argument("--seconds", type=float, default=0.05, help="sampling time per measurement")
    args = ap.parse_args(argv)
    if args.hold_us < 0:
        ap.error(f"--hold-us must be 0 or more (got {args.hold_us})")
    with open(args.corpus) as f:
        corpus = {c["name"]: c for c in json.load(f)["cases"]}
    names = [n for n in args.cases.split(",") if n]
    unknown = [n for n in names if n not in corpus]
    if unknown:
        ap.error(f"--cases: {', '.join(unknown)} not in {args.corpus}")

    import torch
    from convert_peers import case_op
    from float4_copy import copy16
    from peers import hold_for, measure

    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    zero = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    read_buf = torch.ones(2 * l2 // 4, dtype=torch.float32, device="cuda")

    class Read:  # measure() flushes with flush.zero_(); this flush reads 2 x L2 instead
        def zero_(self):
            read_buf.sum()

    flushes = (("zero", zero), ("read", Read()))
    hold = hold_for(args.hold_us)
    rows = []
    with open(args.out, "w") as out:
        def emit(row):
            row = ratios(row)
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(json.dumps(row), flush=True)

        for mib in args.sizes_mib:
            row = {"bytes": mib << 20}
            for name in VARIANTS:
                launch = copy16(mib << 20, copy_source(name))
                launch()
                if not bool((launch.dst[: mib << 20] == 1).all()):
                    raise SystemExit(f"copy variant {name}: the copy is wrong")
                for flush_name, flush in flushes:
                    row[f"copy_{name}_{flush_name}_s"] = measure(launch, flush, args.seconds, hold=hold)["median_s"]
            emit(row)
        for name in names:
            x, op = case_op(corpus[name])
            fn = torch.compile(op, dynamic=False)
            if not torch.equal(fn(x), op(x)):
                raise SystemExit(f"{name}: torch.compile's output differs from eager's")
            plain = copy16(x.numel() * x.element_size())
            row = {"case": name, "bytes": x.numel() * x.element_size()}
            for flush_name, flush in flushes:
                row[f"compile_{flush_name}_s"] = measure(lambda: fn(x), flush, args.seconds, hold=hold)["median_s"]
                row[f"copy_plain_{flush_name}_s"] = measure(plain, flush, args.seconds, hold=hold)["median_s"]
            emit(row)
            torch._dynamo.reset()
        summary = {"summary": {(str(r["bytes"]) if "case" not in r else r["case"]):
                               {k: round(v, 3) for k, v in r.items() if k.endswith("_zero_over_read")}
                               for r in rows}}
        out.write(json.dumps(summary) + "\n")
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
