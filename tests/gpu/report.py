#!/usr/bin/env python3
"""Tables from one H200 call (tests/gpu/run_h200.sh): reads the h200-*.json files in --dir and writes
h200-summary.md (agent results, ceilings, predicted vs measured, HTTP vs in-process, wall times) and
h200-peers.md + h200-peers.json (peers beside the agent's kernels, ratios to the agent's best transpose).
Standard library only."""
import argparse
import json
import os
import statistics


def load(d, name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else None


def summ(state, suffix):
    for s in state["summaries"]:
        if s["tag"].endswith(suffix):
            return s["value"]
    return None


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def transpose_rows(res):
    b = res["benchmarks"][0]
    rows = []
    for c in b.get("ceilings", []):
        rows.append(("ceiling " + c["name"], c["axis_values"]["dim"], c, None))
    for s in b["states"]:
        rows.append((s["axis_values"]["variant"], s["axis_values"]["dim"], s, s))
    return sorted(rows, key=lambda r: r[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    d = a.dir
    L = []
    tr, aos = load(d, "h200-transpose.json"), load(d, "h200-aos_soa.json")
    walls = load(d, "h200-http-walls.json") or {}
    dev = (tr or aos)["devices"][0] if (tr or aos) else {}
    meta = (tr or aos)["meta"] if (tr or aos) else {}
    L.append(f"device: {dev.get('name')} sm_{dev.get('sm_version')}, {dev.get('multiprocessors')} SMs, L2 {dev.get('l2_cache_bytes')} B, "
             f"peak {fmt((dev.get('peak_bandwidth_bytes_per_second') or 0) / 1e12, '.2f')} TB/s (attributes); agent {meta.get('agent', {}).get('git_sha')}")
    for side in ("before", "after"):
        if dev:
            L.append(f"telemetry {side}: {json.dumps(dev['telemetry'][side])}")
    if tr:
        p = tr["meta"]["request"]["params"]
        L.append(f"\n### transpose fp32 (cache {p['cache']}, adaptive: >= {p['min_samples']} samples, stop at rel. IQR <= {p['noise']} or {p['max_time_s']} s)")
        L.append("| dim | variant | median us | rel IQR | samples (stop) | dropped | useful TB/s | x float4 copy | x best ceiling | pred. ld/st sectors | pred. smem col-read wavefronts (ideal) | verified |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, dim, s, st in transpose_rows(tr):
            g = "/".join(str(x["sectors_per_request"]) for x in st["predicted"].get("global", [])) if st else "-"
            sh = (st["predicted"].get("shared") or []) if st else []
            w = f"{sh[1]['wavefronts']} ({sh[1]['ideal_wavefronts']})" if len(sh) > 1 else "-"
            smp = s.get("sampling", {})
            L.append(f"| {dim} | {name} | {fmt(summ(s, '/median') * 1e6, '.1f')} | {fmt(summ(s, 'relative_iqr'), '.4f')} | "
                     f"{fmt(summ(s, 'sample_size'), '.0f')} ({smp.get('stop_reason')}) | {smp.get('throttled_samples_dropped')} | "
                     f"{fmt(summ(s, 'bw/global/bytes_per_second') / 1e12)} | {fmt(summ(s, 'fraction_of_copy'))} | "
                     f"{fmt(summ(s, 'fraction_of_ceiling'))} | {g} | {w} | {s['verification']['passed']} |")
    if aos:
        p = aos["meta"]["request"]["params"]
        L.append(f"\n### aos_soa n={p['n']} (cache {p['cache']})")
        L.append("| touch | layout | median us | useful TB/s | x float4 copy | SoA/AoS | bound 8/t | fraction of bound | pred. sectors/req (B/lane) | verified |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        b = aos["benchmarks"][0]
        for c in b.get("ceilings", []):
            L.append(f"| - | ceiling {c['name']} | {fmt(summ(c, '/median') * 1e6, '.1f')} | {fmt(summ(c, 'bw/global/bytes_per_second') / 1e12)} | "
                     f"- | - | - | - | - | {c['verification']['passed']} |")
        for s in b["states"]:
            ax, g = s["axis_values"], s["predicted"]["global"][0]
            L.append(f"| {ax['touch_fields']} | {ax['layout']} | {fmt(summ(s, '/median') * 1e6, '.1f')} | "
                     f"{fmt(summ(s, 'bw/global/bytes_per_second') / 1e12)} | {fmt(summ(s, 'fraction_of_copy'))} | "
                     f"{fmt(summ(s, 'speedup_soa_over_aos'), '.2f')} | {fmt(summ(s, 'dram_sector_bound_speedup'), '.0f')} | "
                     f"{fmt(summ(s, 'fraction_of_sector_bound'))} | {g['sectors_per_request']} ({g['bytes_per_lane']}) | {s['verification']['passed']} |")
    for name in ("h200-l2-sweep-transpose.json", "h200-l2-sweep-aos_soa.json"):
        r = load(d, name)
        if not r:
            continue
        b = r["benchmarks"][0]
        L.append(f"\n### size sweep across the L2 ({name})")
        L.append("| size | state | median us | useful TB/s | x float4 copy |")
        L.append("|---|---|---|---|---|")
        for c in b.get("ceilings", []):
            if c["name"] == "copy_vec4":
                L.append(f"| {list(c['axis_values'].values())[0]} | ceiling copy_vec4 | {fmt(summ(c, '/median') * 1e6, '.1f')} | {fmt(summ(c, 'bw/global/bytes_per_second') / 1e12)} | 1 |")
        for s in b["states"]:
            size = s["axis_values"].get("dim", s["axis_values"].get("n"))
            L.append(f"| {size} | {s['name']} | {fmt(summ(s, '/median') * 1e6, '.1f')} | {fmt(summ(s, 'bw/global/bytes_per_second') / 1e12)} | {fmt(summ(s, 'fraction_of_copy'))} |")
    for name in ("h200-profile-aos_soa.json", "h200-profile-transpose.json"):
        r = load(d, name)
        if not r:
            continue
        b = r["benchmarks"][0]
        L.append(f"\n### profile ({name}): engine prediction vs ncu --clock-control none")
        L.append(f"command: `{b.get('profile', {}).get('command', '-')}`")
        L.append("| state | pred. ld / st sectors/req | measured ld / st sectors/req | pred. smem st / ld wavefronts per instr. | measured smem st / ld wavefronts per instr. | measured bank conflicts st / ld |")
        L.append("|---|---|---|---|---|---|")
        for s in b["states"]:
            pr, m = s["predicted"], s.get("profile", {})
            gl = [x["sectors_per_request"] for x in pr.get("global", [])]
            gl = gl * 2 if len(gl) == 1 else gl
            sh = pr.get("shared") or []
            shp = f"{sh[0]['wavefronts']} / {sh[1]['wavefronts']}" if len(sh) > 1 else "-"
            if m.get("available"):
                ms = f"{fmt(m['global_load_sectors_per_request'], '.2f')} / {fmt(m['global_store_sectors_per_request'], '.2f')}"
                mw = f"{fmt(m['shared_store_wavefronts_per_instruction'], '.2f')} / {fmt(m['shared_load_wavefronts_per_instruction'], '.2f')}"
                mc = f"{fmt(m['shared_store_bank_conflicts'], '.0f')} / {fmt(m['shared_load_bank_conflicts'], '.0f')}"
            else:
                ms, mw, mc = m.get("reason", "-")[:120], "-", "-"
            L.append(f"| {s['name']} | {gl[0]} / {gl[1]} | {ms} | {shp} | {mw} | {mc} |")
    # HTTP path vs in-process
    L.append("\n### HTTP path vs in-process (same kernels, same binary; ratio = HTTP median / in-process median)")
    L.append("| run | state | HTTP median us | in-process median us | ratio |")
    L.append("|---|---|---|---|---|")
    ratios = []
    for http_name, inproc_name in (("h200-aos_soa.json", "h200-inprocess-aos_soa.json"), ("h200-transpose.json", "h200-inprocess-transpose.json")):
        h, i = load(d, http_name), load(d, inproc_name)
        if not (h and i):
            continue
        ib = {s["name"]: s for s in i["benchmarks"][0]["states"]}
        for s in h["benchmarks"][0]["states"]:
            if s["name"] in ib:
                r = summ(s, "/median") / summ(ib[s["name"]], "/median")
                ratios.append(r)
                L.append(f"| {http_name[5:-5]} | {s['name']} | {fmt(summ(s, '/median') * 1e6, '.1f')} | {fmt(summ(ib[s['name']], '/median') * 1e6, '.1f')} | {r:.4f} |")
    if ratios:
        L.append(f"\nHTTP/in-process median ratio over {len(ratios)} states: median {statistics.median(ratios):.4f}, "
                 f"min {min(ratios):.4f}, max {max(ratios):.4f}")
    if walls:
        L.append(f"\nwall times through HTTP (submit to final status): {json.dumps(walls.get('walls_s'))}")
    # peers
    peers = load(d, "h200-peers-raw.json")
    if peers and tr:
        best = {}
        for s in tr["benchmarks"][0]["states"]:
            v, dim = s["axis_values"]["variant"], s["axis_values"]["dim"]
            bw = summ(s, "bw/global/bytes_per_second")
            if v != "copy" and (dim not in best or bw > best[dim][1]):
                best[dim] = (v, bw, summ(s, "/median"))
        rows = []
        for s in tr["benchmarks"][0]["states"]:
            dim = s["axis_values"]["dim"]
            rows.append({"who": "layoutscope-agent", "op": s["axis_values"]["variant"], "dim": dim,
                         "median_s": summ(s, "/median"), "bytes_per_second": summ(s, "bw/global/bytes_per_second"),
                         "samples": summ(s, "sample_size"), "relative_iqr": summ(s, "relative_iqr")})
        for c in tr["benchmarks"][0].get("ceilings", []):
            dim = c["axis_values"]["dim"]
            rows.append({"who": "layoutscope-agent ceiling", "op": c["name"], "dim": dim, "median_s": summ(c, "/median"),
                         "bytes_per_second": summ(c, "bw/global/bytes_per_second"), "samples": summ(c, "sample_size"),
                         "relative_iqr": summ(c, "relative_iqr")})
        for r in peers["results"]:
            rows.append({"who": r["peer"], "op": r["op"], "dim": r["dim"], "median_s": r["median_s"],
                         "bytes_per_second": r["bytes_per_second"], "samples": r["samples"], "relative_iqr": r["relative_iqr"]})
        for r in rows:
            b = best.get(r["dim"])
            r["agent_best_transpose"] = b[0] if b else None
            r["ratio_agent_best_over_this"] = (b[1] / r["bytes_per_second"]) if b else None
        doc = {"schema_version": "1.0.0",
               "meta": {"agent": tr["meta"]["agent"], "device": dev.get("name"), "agent_run_started_at": tr["meta"]["started_at"],
                        "peers": peers["meta"], "method": "cold L2 (memset of 2x L2 before each sample), CUDA events, "
                        "warm-up, adaptive samples (>= 10, stop at relative IQR <= 0.5% or the time limit), median",
                        "useful_bytes": "2 x dim^2 x 4 (each element read once and written once)"},
               "rows": rows}
        json.dump(doc, open(os.path.join(d, "h200-peers.json"), "w"), indent=1)
        P = [f"device: {dev.get('name')}; agent {tr['meta']['agent']['git_sha']} run {tr['meta']['started_at']}; peers {peers['meta']['date']} "
             f"(torch {peers['meta']['torch']}, cupy {peers['meta']['cupy']})",
             "", "| dim | who | op | median us | TB/s | agent best transpose / this (bandwidth) |", "|---|---|---|---|---|---|"]
        for r in sorted(rows, key=lambda r: (r["dim"], -r["bytes_per_second"])):
            P.append(f"| {r['dim']} | {r['who']} | {r['op']} | {r['median_s'] * 1e6:.1f} | {r['bytes_per_second'] / 1e12:.3f} | "
                     f"{fmt(r['ratio_agent_best_over_this'], '.3f')} ({r['agent_best_transpose']}) |")
        open(os.path.join(d, "h200-peers.md"), "w").write("\n".join(P) + "\n")
        L.append("\n### peers\n" + "\n".join(P))
    text = "\n".join(L)
    open(os.path.join(d, "h200-summary.md"), "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
