#!/usr/bin/env python3
"""Drives a running layoutscope-agent (CUDA backend) through the multi-GPU benchmarks and writes what it saw
under --out (one JSON per run, reshard-table.md). With n >= 2 GPUs: the four collectives (all_gather,
reduce_scatter, all_to_all, all_reduce) from 1 MiB to 4 GiB, then three reshards of a 64 MiB bf16 tensor on
a mesh of the machine's GPUs (2: x=2; 4: 2x2; 8: 2x4): fully sharded -> replicated (all_gathers), partial ->
replicated (all_reduce), Shard(0) -> Shard(1) (all_to_all). With one GPU: the two 422s ("needs N GPUs, this
machine has 1"), a one-device all_reduce, and four 64 MiB local permutes (bf16 and f32; a transpose, which the
conversion planner tiles, and a BSHD -> BHSD reorder, a vector plan), each of which must run the kernel
generated from its conversion plan. Per step: the kernel (generated or strided_copy, and why), its compile
time (before timing), predicted and measured time, verified. Every run must succeed with every step verified;
the exit status says whether all did. Standard library only."""
import argparse
import json
import pathlib
import sys
import time
import urllib.error
import urllib.request


def call(base, token, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def run(base, token, body, timeout_s=550):
    for _ in range(60):  # 409: the device is still busy with the previous run
        status, text = call(base, token, "POST", "/v1/runs", body)
        if status != 409:
            break
        time.sleep(1)
    if status != 202:
        return {"status": "refused", "http": status, "error": json.loads(text).get("error")}
    rid = json.loads(text)["id"]
    t0 = time.time()
    while time.time() - t0 < timeout_s:
        status, text = call(base, token, "GET", f"/v1/runs/{rid}")
        rec = json.loads(text)
        if rec["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
            return rec
        time.sleep(0.5)
    return {"status": "timeout", "id": rid}


def mesh_for(n):
    return {2: ("gpuid_x=2", (2, 1)), 4: ("gpuid_x=2,gpuid_y=2", (2, 2)), 8: ("gpuid_x=2,gpuid_y=4", (2, 4))}.get(n)


def reshard_cases(n, rows=4096, cols=8192):
    """Three reshards of a rows x cols bf16 tensor (default 64 MiB) on the mesh of n GPUs (x is 2)."""
    mesh, (x, y) = mesh_for(n)
    rep = "R[2:1@gpuid_x]" if y == 1 else f"R[(2,{y}):(1@gpuid_x,1@gpuid_y)]"
    if y == 1:
        sharded = f"S[(2,{rows // 2},{cols}):(1@gpuid_x,{cols},1)]"
        shard_rows_y = f"S[({rows},{cols}):({cols},1)]"
    else:
        sharded = f"S[(2,{rows // 2},{y},{cols // y}):(1@gpuid_x,{cols // y},1@gpuid_y,1)]"
        shard_rows_y = f"S[({y},{rows // y},{cols}):(1@gpuid_y,{cols},1)]"
    dense = f"S[({rows},{cols}):({cols},1)]"
    cases = [
        ("sharded_to_replicated", sharded, f"{dense} + {rep}"),
    ]
    if y == 1:
        cases.append(("partial_to_replicated", f"{dense} + P[2:1@gpuid_x]", f"{dense} + R[2:1@gpuid_x]"))
        cases.append(("shard0_to_shard1", sharded, f"S[({rows},2,{cols // 2}):({cols // 2},1@gpuid_x,1)]"))
    else:
        cases.append(("partial_to_replicated", f"{shard_rows_y} + P[2:1@gpuid_x]", f"{shard_rows_y} + R[2:1@gpuid_x]"))
        cases.append(("shard0_to_shard1", f"{shard_rows_y} + R[2:1@gpuid_x]",
                      f"S[({rows},{y},{cols // y}):({cols // y},1@gpuid_y,1)] + R[2:1@gpuid_x]"))
    return mesh, [rows, cols], cases


def permute_cases():
    """64 MiB local permutes on one device: (name, from, to, shape, dtype)."""
    cases = []
    for dtype, rows, cols in (("bf16", 4096, 8192), ("f32", 4096, 4096)):
        cases.append((f"transpose_{rows}x{cols}_{dtype}", f"S[({rows},{cols}):({cols},1)]",
                      f"S[({rows},{cols}):(1,{rows})]", [rows, cols], dtype))
    # BSHD -> BHSD (perm 0,2,1,3): D = 64 stays innermost on both sides.
    for dtype, s in (("bf16", 1024), ("f32", 512)):
        b, h, d = 16, 32, 64
        shape = [b, s, h, d]
        src = f"S[({b},{s},{h},{d}):({s * h * d},{h * d},{d},1)]"
        dst = f"S[({b},{s},{h},{d}):({s * h * d},{d},{s * d},1)]"
        cases.append((f"bshd_to_bhsd_{b}x{s}x{h}x{d}_{dtype}", src, dst, shape, dtype))
    return cases


def all_verified(result):
    return all(s["verification"]["passed"] for b in result["benchmarks"] for s in b["states"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="", help="collective sizes in bytes, comma separated (default 1 MiB..4 GiB)")
    a = ap.parse_args()
    token = pathlib.Path(a.token_file).read_text().strip()
    # The agent prints its page's address, "http://127.0.0.1:PORT/#token=...": the API lives at its origin.
    a.url = a.url.split("#")[0].rstrip("/")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    problems = []
    lines = []
    status, text = call(a.url, token, "GET", "/v1/devices")
    devices = json.loads(text)
    (out / "devices.json").write_text(json.dumps(devices, indent=1))
    n = len(devices.get("devices", [])) if devices.get("backend") == "cuda" else 0
    print(f"/v1/devices: {status}; {n} CUDA devices; gpus {[g['name'] for g in devices.get('gpus', [])]}; "
          f"links {devices.get('links')}; nccl {devices.get('nccl')}")
    if status != 200 or not devices.get("gpus"):
        problems.append("/v1/devices lists no GPU")
    if not devices.get("nccl", {}).get("version"):
        problems.append("NCCL did not load: " + str(devices.get("nccl")))
    lines.append(f"# reshard and collectives, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    lines.append("")
    lines.append(f"GPUs: {n} x {devices['gpus'][0]['name'] if devices.get('gpus') else '?'}; "
                 f"NCCL {devices.get('nccl', {}).get('version')}; NCCL_NVLS_ENABLE=0")
    lines.append("")
    sampling = {"repetitions": 10, "warmup": 3}

    if n < 2:
        for body, want in [
            ({"benchmark": "collective", "params": {"op": "all_gather"}}, f"needs 2 GPUs, this machine has {n}"),
            ({"benchmark": "reshard", "params": {"from": "S[(2,4,64):(1@gpuid_x,64,1)]",
                                                 "to": "S[(8,64):(64,1)] + R[(2,4):(1@gpuid_x,1@gpuid_y)]",
                                                 "shape": [8, 64], "mesh": "gpuid_x=2,gpuid_y=4"}},
             f"needs 8 GPUs, this machine has {n}"),
        ]:
            s, t = call(a.url, token, "POST", "/v1/runs", body)
            err = json.loads(t).get("error", {})
            ok = s == 422 and want in err.get("message", "")
            print(f"{body['benchmark']}: {s} {err.get('field')}: {err.get('message')} -> {'ok' if ok else 'WRONG'}")
            lines.append(f"- {body['benchmark']} on {n} GPU: HTTP {s}, `{err.get('field')}`: {err.get('message')}")
            if not ok:
                problems.append(f"{body['benchmark']}: expected 422 '{want}', got {s} {t[:200]}")
        # One device: a partial sum over a one-device axis (ncclCommInitAll over device 0 + ncclAllReduce, then
        # a drop) through the agent's NCCL path, and 64 MiB local permutes, each a single permute step that
        # must run the generated conversion kernel.
        dense = "S[(2048,4096):(4096,1)]"
        for name, frm, to, shape, dtype in [
            ("partial_to_replicated", dense + " + P[1:1@gpuid_x]", dense + " + R[1:1@gpuid_x]", [2048, 4096],
             "bf16"),
        ] + permute_cases():
            body = {"benchmark": "reshard", "params": {"from": frm, "to": to, "shape": shape,
                                                       "mesh": "gpuid_x=1", "dtype": dtype, **sampling}}
            rec = run(a.url, token, body, timeout_s=300)
            (out / f"reshard-1gpu-{name}.json").write_text(json.dumps(rec, indent=1))
            if rec.get("status") != "succeeded" or not all_verified(rec["result"]):
                problems.append(f"1-GPU reshard {name}: {rec.get('status')} {rec.get('error')}")
                if rec.get("result"):
                    report_reshard(lines, f"1 GPU, {name} (FAILED): {frm} -> {to} ({dtype})", rec["result"])
                continue
            report_reshard(lines, f"1 GPU, {name}: {frm} -> {to} ({dtype})", rec["result"])
            for st in rec["result"]["benchmarks"][0]["states"]:
                k = st.get("local_kernel")
                if st["op"] == "permute" and (not k or k["kernel"] != "generated"):
                    problems.append(f"1-GPU reshard {name}: the permute ran {k}, not the generated kernel")
    else:
        sizes = [int(s) for s in a.sizes.split(",") if s]
        lines.append("## Collectives (nccl-tests conventions: algbw = S/t, busbw = algbw x (n-1)/n, x 2(n-1)/n for all_reduce)")
        lines.append("")
        lines.append("| op | S (B) | time (us) | algbw (GB/s) | busbw (GB/s) | verified |")
        lines.append("|---|---:|---:|---:|---:|---|")
        for op in ("all_gather", "reduce_scatter", "all_to_all", "all_reduce"):
            params = {"op": op, "gpus": n, **sampling}
            if sizes:
                params["sizes"] = sizes
            rec = run(a.url, token, {"benchmark": "collective", "params": params})
            (out / f"collective-{op}.json").write_text(json.dumps(rec, indent=1))
            if rec.get("status") != "succeeded":
                problems.append(f"collective {op}: {rec.get('status')} {rec.get('error')}")
                continue
            for s in rec["result"]["benchmarks"][0]["states"]:
                t = [x for x in s["summaries"] if x["tag"].endswith("/median")][0]["value"]
                lines.append(f"| {op} | {s['size_bytes']} | {t * 1e6:.1f} | {s['algbw_bytes_per_second'] / 1e9:.1f} | "
                             f"{s['busbw_bytes_per_second'] / 1e9:.1f} | {s['verification']['passed']} |")
                if not s["verification"]["passed"]:
                    problems.append(f"collective {op} S={s['size_bytes']}: {s['verification']['first_mismatch']}")
        lines.append("")
        if mesh_for(n):
            mesh, shape, cases = reshard_cases(n)
            for name, frm, to in cases:
                body = {"benchmark": "reshard", "params": {"from": frm, "to": to, "shape": shape, "mesh": mesh,
                                                           "dtype": "bf16", **sampling}}
                rec = run(a.url, token, body)
                (out / f"reshard-{name}.json").write_text(json.dumps(rec, indent=1))
                if rec.get("status") != "succeeded" or not all_verified(rec["result"]):
                    problems.append(f"reshard {name}: {rec.get('status')} {rec.get('error')}")
                    continue
                report_reshard(lines, f"{name} on {mesh}: {frm} -> {to}", rec["result"])
        else:
            problems.append(f"no reshard mesh for {n} GPUs (2, 4 or 8)")
    lines.append("")
    lines.append("Problems: " + ("none" if not problems else "; ".join(problems)))
    (out / "reshard-table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if problems else 0


def report_reshard(lines, title, result):
    b = result["benchmarks"][0]
    lines.append(f"## {title}")
    lines.append("")
    lines.append(f"bandwidths (GB/s): {b['bandwidths_gbps']}")
    lines.append("")
    lines.append("| step | kernel | compile (ms) | sent B/device | predicted (us) | measured (us) | "
                 "measured/predicted | cold (us) | busbw (GB/s) | verified |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for s in b["states"]:
        meas = s["measured_s"]
        ratio = f"{meas / s['predicted_s']:.2f}" if meas and s["predicted_s"] else ""
        bw = s.get("busbw_bytes_per_second")
        k = s.get("local_kernel")
        kernel = ""
        compile_ms = ""
        if k:
            kernel = k["kernel"] + (f" {k['source_hash']}" if k.get("source_hash") else f" ({k.get('reason')})")
            if k.get("compile_s") is not None:
                compile_ms = f"{k['compile_s'] * 1e3:.1f} ({k.get('compile_cache')})"
        lines.append(f"| {s['axis_values']['step']} | {kernel} | {compile_ms} | {s['send_bytes']} | "
                     f"{s['predicted_s'] * 1e6:.1f} | {(meas or 0) * 1e6:.1f} | {ratio} | {(s['cold_s'] or 0) * 1e6:.1f} | "
                     f"{bw / 1e9 if bw else 0:.1f} | {s['verification']['passed']} |")
    lines.append("")


if __name__ == "__main__":
    sys.exit(main())
