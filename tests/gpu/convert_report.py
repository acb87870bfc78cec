#!/usr/bin/env python3
"""Tables of docs/results/h200-convert.md from one GPU call's files (tests/gpu/convert_gpu.sh).

    python3 tests/gpu/convert_report.py LAB.jsonl PEERS.json|PEERS.jsonl [OLDER_PEERS.json] [--ncu CSV PRED.jsonl]...

Fractions are of the fastest plain copy of the same bytes in the same call (float4 copy kernel, cudaMemcpy,
PyTorch copy_ where the peers ran in that call). Peers missing from the first peers file are taken from
OLDER_PEERS (an earlier call: their fractions use that call's own copies) and marked with *.
"""
import csv
import json
import statistics
import sys


def load_peers(path):
    text = open(path).read()
    if text.lstrip().startswith("{\n") or '"cases"' in text[:200]:
        return {c["case"]: c for c in json.loads(text)["cases"]}
    return {c["case"]: c for c in (json.loads(l) for l in text.splitlines() if l.startswith("{"))}


def ncu_rows(path):
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    hdr = rows[0]
    out = []
    for r in rows[2:]:
        if not r or not r[0].isdigit():
            continue
        d = dict(zip(hdr, r))
        f = lambda k: float(d[k].replace(",", ""))  # noqa: E731
        per = lambda a, b: f(a) / f(b) if f(b) else 0.0  # noqa: E731
        # Shared wavefronts: the sm__sass_ counters (what the instructions' addresses need), then the hardware
        # L1 counters (which add bank cycles lost to concurrent L1 traffic).
        out.append((per("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
                    per("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
                    per("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
                    per("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"),
                    per("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
                    per("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum")))
    return out


def main():
    args = sys.argv[1:]
    ncu = []
    while "--ncu" in args:
        i = args.index("--ncu")
        ncu.append((args[i + 1], args[i + 2]))
        del args[i:i + 3]
    lab = [json.loads(l) for l in open(args[0]) if l.startswith("{") and '"shape"' in l]
    fresh = load_peers(args[1])
    older = load_peers(args[2]) if len(args) > 2 else {}
    by_dtype = {}
    lines = []
    for r in lab:
        p, star = fresh.get(r["case"]), ""
        copies = [r["copy16_s"], r["memcpy_s"]]
        if p is not None:
            copies.append(p["copy_"])
        elif r["case"] in older:
            p, star = older[r["case"]], "*"
        best = min(copies)
        ours = best / r["kernel_s"]
        # An earlier call's peers are fractions of that call's copy_ (its lab copies are not in the file).
        pbest = p["copy_"] if p is not None and star else best
        frac = lambda k: (pbest / p[k]) if p is not None and p.get(k) else None  # noqa: E731
        comp, eager, cupy = frac("compile"), frac("eager"), frac("cupy")
        d = by_dtype.setdefault(r["dtype"], {"ours": [], "compile": [], "eager": [], "cupy": [], "n": 0, "ok": 0})
        d["n"] += 1
        d["ok"] += r["verified"]
        d["ours"].append(ours)
        for k, v in (("compile", comp), ("eager", eager), ("cupy", cupy)):
            if v is not None:
                d[k].append(v)
        tile = "vector" if r["kind"] == "vector" else f"tiled {r['tile'][0]}x{r['tile'][1]}"
        fmt = lambda v: "-" if v is None else f"{v:.3f}{star}"  # noqa: E731
        slower = " **<**" if comp is not None and ours < comp else ""
        lines.append(f"| {r['case']} | {r['dtype']} | {tile}, {r['vector_bytes']} B/lane | {ours:.3f}{slower} | "
                     f"{fmt(comp)} | {fmt(eager)} | {fmt(cupy)} | {2 * r['bytes'] / r['kernel_s'] / 1e12:.2f} | "
                     f"{r['compile_s'] * 1e3:.0f} | {r['cached_plan_s'] * 1e6:.1f} | {'yes' if r['verified'] else 'NO'} |")
    print("| dtype | cases | verified | ours median | ours min | torch.compile median | eager median | CuPy median |")
    print("|---|---|---|---|---|---|---|---|")
    for dt in ("f32", "bf16", "u8"):
        d = by_dtype[dt]
        med = lambda k: f"{statistics.median(d[k]):.3f}" if d[k] else "-"  # noqa: E731
        print(f"| {dt} | {d['n']} | {d['ok']} | {med('ours')} | {min(d['ours']):.3f} | {med('compile')} | "
              f"{med('eager')} | {med('cupy')} |")
    compile_ms = [r["compile_s"] * 1e3 for r in lab]
    cached = [r["cached_plan_s"] * 1e6 for r in lab]
    print(f"\nNVRTC per kernel: median {statistics.median(compile_ms):.0f} ms, {min(compile_ms):.0f}-"
          f"{max(compile_ms):.0f} ms; cached plan: median {statistics.median(cached):.1f} us, max {max(cached):.1f} us")
    print("\n| case | dtype | plan | ours | torch.compile | eager | CuPy | TB/s | NVRTC ms | cached plan us | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    for csv_path, pred_path in ncu:
        preds = [json.loads(l) for l in open(pred_path) if l.startswith("{")]
        meas = ncu_rows(csv_path)
        print(f"\n{csv_path}: {len(meas)} kernels measured")
        print("| case | sectors/request ld (engine / ncu) | st | shared wavefronts/instr st (engine / sm__sass) | ld "
              "| st, L1 hardware counter | ld, L1 hardware counter | equal |")
        print("|---|---|---|---|---|---|---|---|")
        equal = 0
        for p, m in zip(preds, meas):
            same = (abs(p['pred_sectors_read'] - m[0]) < 1e-9 and abs(p['pred_sectors_write'] - m[1]) < 1e-9
                    and abs(p['pred_smem_write'] - m[2]) < 1e-9 and abs(p['pred_smem_read'] - m[3]) < 1e-9)
            equal += same
            print(f"| {p['case']} | {p['pred_sectors_read']} / {m[0]:.2f} | {p['pred_sectors_write']} / {m[1]:.2f} | "
                  f"{p['pred_smem_write']} / {m[2]:.2f} | {p['pred_smem_read']} / {m[3]:.2f} | {m[4]:.2f} | {m[5]:.2f} | "
                  f"{'yes' if same else 'NO'} |")
        print(f"\nEngine equal to ncu (sectors per request and sm__sass wavefronts per instruction, exactly): "
              f"{equal} of {len(meas)} kernels")


if __name__ == "__main__":
    main()
