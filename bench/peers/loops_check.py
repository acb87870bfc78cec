#!/usr/bin/env python3
"""Do the peers' loop and the lab time the same copy alike? A check of the two timing loops, on the sizes of a lab run.

    python3 bench/peers/loops_check.py --lab corpus-lab.jsonl --out loops-check.jsonl [--time-limit 45]

The lab (tests/gpu/convert_lab.cpp, C++) times its float4 copy of each case's bytes (`copy16_s`) with a
cudaMemsetAsync of 2 x L2 before each sample, filled with the sample's number. This script times the same
copies from Python (PyTorch `copy_` and `copy16`, the peers' loop's float4 copy) three ways:

    free   the peers' loop without a hold: flush.zero_(), then the events and the launch queued from Python
    held   the same with the GPU spinning --hold-us after the flush while Python queues the sample
    fill   held, and the flush filled with the sample's number as the lab's memset is, not with zeros

and prints, for each way, the median of (Python's copy16 time / the lab's copy16 time) over the sizes up to
8 MiB and over the larger ones: 1.0 where the loops agree. A line per size, then one summary line (JSON).
Sizes are taken smallest and largest first, so that a --time-limit cut still covers both ends.
"""
import argparse
import json
import statistics
import sys
import time

SMALL = 8 << 20  # bytes: up to here a copy takes a few microseconds, and a launch from Python is as long
WAYS = ("free", "held", "fill")


def both_ends(values):
    """Sorted values, taken from both ends inwards: smallest, largest, second smallest, second largest, ..."""
    s = sorted(values)
    return [s[i // 2] if i % 2 == 0 else s[-1 - i // 2] for i in range(len(s))]


def summarize(rows, lab_copy16):
    """For each way, the median of copy16's time here over the lab's copy16 time of the same bytes, split at SMALL."""
    out = {}
    for way in WAYS:
        for part, keep in (("small", lambda b: b <= SMALL), ("large", lambda b: b > SMALL)):
            r = [row["copy16_" + way] / lab_copy16[row["bytes"]] for row in rows
                 if keep(row["bytes"]) and row.get("copy16_" + way) and lab_copy16.get(row["bytes"])]
            if r:
                out[f"{way}_{part}"] = {"median": statistics.median(r), "min": min(r), "max": max(r), "sizes": len(r)}
    return out


class Numbered:
    """A flush that fills the buffer with the sample's number (mod 256), as the lab's memset does."""

    def __init__(self, buf):
        self.buf, self.n = buf, 0

    def zero_(self):
        self.buf.fill_(self.n & 0xFF)
        self.n += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", required=True, help="the lab's JSON lines (bytes, copy16_s per case)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=0.03, help="time limit of each measurement")
    ap.add_argument("--hold-us", type=float, default=1000.0)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds for all sizes; the rest are left out")
    args = ap.parse_args()
    if args.hold_us <= 0:
        ap.error(f"--hold-us must be above 0, not {args.hold_us}")

    import torch
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    from float4_copy import copy16
    from peers import hold_for, measure

    lab_copy16 = {}
    for line in open(args.lab):
        if line.startswith("{"):
            r = json.loads(line)
            if r.get("bytes") and r.get("copy16_s"):
                lab_copy16.setdefault(r["bytes"], r["copy16_s"])
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    hold = hold_for(args.hold_us)
    flushes = {"free": (flush, None), "held": (flush, hold), "fill": (Numbered(flush), hold)}
    rows = []
    t0 = time.monotonic()
    with open(args.out, "w") as out:
        for b in both_ends(lab_copy16):
            if time.monotonic() - t0 > args.time_limit:
                break
            x = torch.ones(b, dtype=torch.uint8, device="cuda")
            y = torch.empty_like(x)
            row = {"bytes": b, "lab_copy16_s": lab_copy16[b]}
            for name, fn in (("copy_", lambda: y.copy_(x)), ("copy16", copy16(b))):
                for way in WAYS:
                    f, h = flushes[way]
                    stats = measure(fn, f, args.seconds, hold=h)
                    row[f"{name}_{way}"] = stats["median_s"]
                    if h:
                        row[f"{name}_{way}_unheld"] = stats["unheld"]
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            del x, y
        summary = {"device": torch.cuda.get_device_name(0), "hold_s": hold[0], "sizes": len(rows),
                   "of": len(lab_copy16), "python_over_lab_copy16": summarize(rows, lab_copy16)}
        out.write(json.dumps(summary) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
