#!/usr/bin/env python3
"""The realistic conversion corpus (tests/gpu/convert_corpus.json): its cases for the lab, and its report.

    python3 tests/gpu/convert_corpus.py tsv [CORPUS.json] > corpus.tsv
        one line per case for `convert_lab --corpus`: name, dtype, shape, perm, src, dst (tab-separated)
    python3 tests/gpu/convert_corpus.py report LAB.jsonl PEERS.json [--ncu PRED.jsonl NCU.csv [--avg AVG.jsonl]] [--md]
        per case: the fraction of a copy of the same bytes in the same call for ours and every peer, the
        refusals, and the summary against the targets (median >= 0.90, none below 0.75, none behind a peer).
        Every time is against the fastest copy its own loop timed: ours against the lab's float4 copy and
        cudaMemcpy; the peers and our kernel timed in the peers' loop against PyTorch copy_ and that loop's
        float4 copy (`copy16`; in older peers' files without it, against the fastest copy of either loop).
        Where the peers' run timed our kernel too (convert_peers.py --kernels: `ours` in PEERS.json), a case
        is behind a peer when that peer beat our kernel in that same loop (round by round where it alternated
        them: --rounds); elsewhere ours is the lab's time against the peer's. Where the peers' loop held the GPU
        while it queued each sample (convert_peers.py --hold-us: `hold_s` in PEERS.json), both loops time the GPU
        alone, and a second line sets the lab's time against the fastest copy of either loop. With --ncu,
        Nsight Compute's measurements against the engine: its kernel-wide averages where it models them (the avg_ fields of
        PRED.jsonl, or of AVG.jsonl from convert_corpus_averages), else the first warp's predictions

Standard library only.
"""
import csv
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ["eager", "compile", "compile_max_autotune", "cupy", "channels_last"]


def corpus(path=None):
    return json.load(open(path or os.path.join(HERE, "convert_corpus.json")))["cases"]


def tsv(path=None):
    for c in corpus(path):
        j = lambda v: ",".join(str(x) for x in v)  # noqa: E731
        print("\t".join([c["name"], c["dtype"], j(c["shape"]), j(c.get("perm", [])), c.get("src", ""), c.get("dst", "")]))


def ncu_rows(path):
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows:
        return []
    hdr = rows[0]
    out = []
    for r in rows[2:]:
        if not r or not r[0].isdigit():
            continue
        d = dict(zip(hdr, r))
        f = lambda k: float(d[k].replace(",", ""))  # noqa: E731
        per = lambda a, b: f(a) / f(b) if f(b) else 0.0  # noqa: E731
        out.append((per("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
                    per("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
                    per("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
                    per("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum")))
    return out


def figures(fracs, worst=None):
    """Fractions of copy against the targets: median, min (and the case it belongs to), how many below 0.75 and 0.90."""
    return (f"median {statistics.median(fracs):.3f}, min {min(fracs):.3f}" + (f" ({worst})" if worst else "")
            + f", below 0.75: {sum(1 for f in fracs if f < 0.75)}, below 0.90: {sum(1 for f in fracs if f < 0.90)}")


def report(args):
    md = "--md" in args
    args = [a for a in args if a != "--md"]
    ncu = None
    if "--ncu" in args:
        i = args.index("--ncu")
        ncu = (args[i + 1], args[i + 2])
        del args[i:i + 3]
    avg = {}
    if "--avg" in args:
        i = args.index("--avg")
        avg = {r["case"]: r for r in (json.loads(l) for l in open(args[i + 1]) if l.startswith("{")) if "avg_modelled" in r}
        del args[i:i + 2]
    lab = [json.loads(l) for l in open(args[0]) if l.startswith("{")]
    peers, hold = {}, 0
    if len(args) > 1 and os.path.exists(args[1]):
        text = open(args[1]).read()
        if '"cases"' in text[:200]:
            whole = json.loads(text)
            peers = {c["case"]: c for c in whole["cases"]}
            hold = whole.get("hold_s", 0)
        else:
            peers = {c["case"]: c for c in (json.loads(l) for l in text.splitlines() if l.startswith("{"))}
    ours, refused, behind, rows, loop_failed, run_fracs = [], [], [], [], [], []
    for r in lab:
        if "error" in r:
            refused.append((r["case"], r["error"]))
            continue
        if "kernel_s" not in r:
            continue
        p = peers.get(r["case"], {})
        # The two loops can differ on the same kernel binary by a fifth (a 9.6 MB case: 10.3 us in the lab,
        # 8.0 us in the peers' loop, each at its own loop's copy), so ours is against its own loop's copies;
        # a time of one loop against a copy of the other would measure the loops.
        lab_best = min(r["copy16_s"], r["memcpy_s"])
        loop_copies = [p[k] for k in ("copy_", "copy16") if p.get(k)]
        run_best = min([lab_best] + loop_copies)
        best = min(loop_copies) if p.get("copy16") else run_best
        frac = lab_best / r["kernel_s"]
        # Where the peers' loop held the GPU while Python queued each sample, both loops time the GPU alone,
        # and the lab's time can be set against the fastest copy either loop timed (the stricter figure).
        if hold and p:
            run_fracs.append((run_best / r["kernel_s"], r["case"]))
        # A peer that returned its input (no conversion: a permutation of size-1 dimensions) is not compared.
        pf = {k: best / p[k] for k in PEERS if p.get(k) and not p.get(k + "_aliases")}
        ours.append(frac)
        # Our kernel as the peers' own loop timed it, where it did: the fair side of a comparison with them.
        loop = best / p["ours"] if p.get("ours") and p.get("ours_verified") else None
        if "ours_verified" in p and not p["ours_verified"]:
            loop_failed.append((r["case"], p.get("ours_error", "its output differs from the peers'")))
        # Two loops: the lab's time against the peer's, over the same copy.
        ours_vs_peer = loop if loop is not None else best / r["kernel_s"]

        def by_round(k):
            """Ours' time over peer k's, round by round, where the peers' loop alternated both; else None."""
            o, q = p.get("ours_rounds_s"), p.get(k + "_rounds_s")
            return [a / b for a, b in zip(o, q)] if loop is not None and o and q and len(o) == len(q) else None

        # A peer is ahead where it beat our kernel: round by round where both were timed in the same rounds
        # (the median of ours' time over the peer's above 1; the medians of each one's rounds alone would
        # set a slow round of one against a fast round of the other), else by their times.
        ahead = [k for k in pf if (statistics.median(by_round(k)) > 1 if by_round(k) else pf[k] > ours_vs_peer)]
        if ahead:
            k = max(ahead, key=lambda k: pf[k])
            rounds = by_round(k)
            behind.append((r["case"], ours_vs_peer, (k, pf[k]), loop is not None,
                           (sum(1 for x in rounds if x > 1), len(rounds)) if rounds else None))
        rows.append((r["case"], r["dtype"], r["bytes"], r["kind"], r["vector_bytes"], r["unit_bytes"], r["verified"], frac, pf,
                     r.get("first_use_s"), p.get("eager_first_s"), r.get("single_use_s"), r.get("library_verified"), loop))
    if md:
        print("| case | dtype | MiB | plan | B/lane | verified | ours | ours (peers' loop) | " + " | ".join(PEERS)
              + " | first compile ms | single use ms | eager first ms |")
        print("|" + "---|" * (8 + len(PEERS) + 3))
        for (name, dt, b, kind, vb, ub, ok, frac, pf, fu, ef, su, lv, loop) in rows:
            cells = [f"{pf[k]:.3f}" if k in pf else "" for k in PEERS]
            single = "" if su is None or su < 0 else f"{su * 1e3:.1f}" + ("" if lv else " (**not verified**)")
            print(f"| {name} | {dt} | {b / 2**20:.1f} | {kind} | {vb} | {'yes' if ok else '**NO**'} | **{frac:.3f}** | "
                  + ("" if loop is None else f"{loop:.3f}") + " | " + " | ".join(cells)
                  + f" | {fu * 1e3 if fu else 0:.0f} | {single} | {ef * 1e3 if ef else 0:.1f} |")
    else:
        for row in rows:
            print(json.dumps(row))
    verified = sum(1 for r in rows if r[6])
    print()
    if ours:
        print(f"cases timed {len(ours)}, verified {verified}, refused {len(refused)}; ours {figures(ours)}, "
              f"behind a peer: {len(behind)}")
        if run_fracs:
            print(f"  ours against the fastest copy of either loop (the peers' loop held {hold * 1e6:.0f} us: GPU time "
                  f"alone), {len(run_fracs)} cases: {figures([v for v, _ in run_fracs], min(run_fracs)[1])}")
        unheld = sum(v for c in peers.values() for k, v in c.items() if k.endswith("_unheld"))
        if unheld:
            print(f"  samples the hold did not cover (queued for longer than it): {unheld}")
        loops = [r[13] for r in rows if r[13] is not None]
        if loops or loop_failed:
            print(f"  ours in the peers' loop: {len(loops)} cases, median {statistics.median(loops) if loops else 0:.3f}, "
                  f"not verified there: {len(loop_failed)}")
        for k in PEERS:
            v = [r[8][k] for r in rows if k in r[8]]
            if v:
                print(f"  {k}: median {statistics.median(v):.3f} over {len(v)} cases")
    # Single use against PyTorch eager's first call + 100 ms: the plan's kernel compiled (first compile), and
    # the library kernel (single use: plan, library kernel loaded from disk, one run).
    timed_first = [(r[0], r[9], r[10], r[11], r[12]) for r in rows if r[10] is not None]
    if timed_first:
        compile_miss = [n for n, fu, ef, su, lv in timed_first if fu is not None and fu > ef + 0.1]
        single = [(n, su, ef, lv) for n, fu, ef, su, lv in timed_first if su is not None and su >= 0]
        single_miss = [n for n, su, ef, lv in single if su > ef + 0.1 or not lv]
        print(f"single use (vs eager's first call + 100 ms, {len(timed_first)} cases): first compile misses "
              f"{len(compile_miss)}; library single use misses {len(single_miss)} of {len(single)}"
              + (f", median {statistics.median(s for _, s, _, _ in single) * 1e3:.1f} ms, max "
                 f"{max(s for _, s, _, _ in single) * 1e3:.1f} ms" if single else ""))
        for n in single_miss:
            print(f"  single use misses: {n}")
    # A cached plan: each permutation case's repeated requests (cached_plan_s: their median lookup,
    # cached_plan_max_s: the slowest one, absent in older files).
    cached = [(r["cached_plan_s"], r.get("cached_plan_max_s", r["cached_plan_s"]), r["case"]) for r in lab
              if r.get("cached_plan_s", -1) >= 0]
    if cached:
        worst = max(cached)
        slowest = max(cached, key=lambda c: c[1])
        print(f"cached plan ({len(cached)} cases): median {statistics.median(c[0] for c in cached) * 1e6:.1f} us, "
              f"over 10 us: {sum(1 for c in cached if c[0] > 1e-5)}, worst case {worst[2]} {worst[0] * 1e6:.1f} us; "
              f"slowest single lookup {slowest[2]} {slowest[1] * 1e6:.1f} us")
    for name, frac, (k, v), same_loop, rounds in behind:
        how = f"one loop, {k} ahead in {rounds[0]} of {rounds[1]} rounds" if rounds else "one loop" if same_loop else "two loops"
        print(f"  behind: {name} ours {frac:.3f} " + ("<" if v > frac else ">=") + f" {k} {v:.3f} ({how})")
    for name, why in loop_failed:
        print(f"  ours not verified in the peers' loop: {name}: {why}")
    for name, err in refused:
        print(f"  refused: {name}: {err}")
    if ncu:
        pred = [json.loads(l) for l in open(ncu[0]) if l.startswith("{") and "profiled" in l]
        meas = ncu_rows(ncu[1])
        equal = first_equal = 0
        for p, m in zip(pred, meas):
            first = (p["pred_sectors_read"], p["pred_sectors_write"], p["pred_smem_write"], p["pred_smem_read"])
            a = avg.get(p["case"], p)
            modelled = a.get("avg_modelled", False)
            want = (a["avg_sectors_read"], a["avg_sectors_write"], a["avg_smem_write"], a["avg_smem_read"]) if modelled else first
            same = all(abs(x - y) < 0.05 for x, y in zip(want, m) if x or y)
            equal += same
            first_equal += all(abs(x - y) < 0.05 for x, y in zip(first, m) if x or y)
            if not same:
                how = "kernel average" if modelled else "first warp"
                print(f"  ncu differs: {p['case']} predicted ({how}) {tuple(round(x, 2) for x in want)} "
                      f"measured {tuple(round(x, 2) for x in m)}")
        print(f"ncu: {equal} of {len(pred)} kernels as predicted ({len(meas)} profiled; the first warp's "
              f"predictions alone: {first_equal})")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "tsv":
        tsv(sys.argv[2] if len(sys.argv) > 2 else None)
    elif len(sys.argv) > 2 and sys.argv[1] == "report":
        report(sys.argv[2:])
    else:
        print(__doc__)
        sys.exit(2)
