#!/usr/bin/env python3
"""Drives a running layoutscope-agent (CUDA backend) through its HTTP API: the default AoS/SoA sweep and the
transpose at 4096, 8192 and 16384; saves the result documents and CSVs; checks that every state verified,
that the engine's predictions are the document's (AoS 32 / SoA 4 sectors per request, naive store 32,
tile[32][32] column read 32-way, tile[32][33] 1), and that the copy ceiling is sane on an H200
(>= 3 TB/s at 8192 and 16384: NOTES.md §4 measured 3.96-4.28 TB/s for a float4 copy). Prints the tables.
Standard library only (runs under the device machine's python3)."""
import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def call(base, token, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def run(base, token, body, timeout_s):
    status, text = call(base, token, "POST", "/v1/runs", body)
    if status != 202:
        raise SystemExit(f"POST /v1/runs {body} -> {status}: {text}")
    rid = json.loads(text)["id"]
    t0 = time.time()
    while True:
        status, text = call(base, token, "GET", f"/v1/runs/{rid}")
        rec = json.loads(text)
        if rec["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
            rec["_http_wall_s"] = time.time() - t0
            return rec
        if time.time() - t0 > timeout_s:
            raise SystemExit(f"run {rid} still {rec['status']} after {timeout_s} s")
        time.sleep(0.2)


def summary(state, suffix):
    for s in state["summaries"]:
        if s["tag"].endswith(suffix):
            return s["value"]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--prefix", default="h200")
    ap.add_argument("--repeat", type=int, default=1, help="run the default suite this many times (spread between runs)")
    ap.add_argument("--fault-test", action="store_true", help="agent has --test-endpoints: check a real cudaMalloc failure")
    ap.add_argument("--dims", default="4096,8192,16384", help="transpose sizes (a local smoke test uses small ones)")
    args = ap.parse_args()
    u = urllib.parse.urlsplit(args.url)
    token = urllib.parse.parse_qs(u.fragment)["token"][0]
    base = f"{u.scheme}://{u.netloc}"
    problems = []

    status, text = call(base, token, "GET", "/readyz")
    if status != 200:
        raise SystemExit(f"/readyz -> {status}: {text}")
    _, devices = call(base, token, "GET", "/v1/devices")
    with open(f"{args.out}/{args.prefix}-devices.json", "w") as f:
        f.write(json.dumps(json.loads(devices), indent=2) + "\n")

    lines = []
    for rep in range(args.repeat):
        first = rep == 0
        records = {}
        for name, body in [("aos_soa", {"benchmark": "aos_soa"}),
                           ("transpose", {"benchmark": "transpose", "params": {"dim": [int(d) for d in args.dims.split(",")]}})]:
            rec = run(base, token, body, 400)
            records[name] = rec
            print(f"{name}: {rec['status']} in {rec['_http_wall_s']:.1f} s (HTTP submit to final status)", flush=True)
            if rec["status"] != "succeeded":
                problems.append(f"{name}: {rec['status']}: {rec.get('error')}")
            if rec.get("result") and first:
                with open(f"{args.out}/{args.prefix}-{name}.json", "w") as f:
                    f.write(json.dumps(rec["result"], indent=2) + "\n")
                _, csv = call(base, token, "GET", f"/v1/runs/{rec['id']}?format=csv")
                with open(f"{args.out}/{args.prefix}-{name}.csv", "w") as f:
                    f.write(csv)

        res = records["aos_soa"].get("result")
        if res:
            lines.append(f"\n## run {rep + 1} of {args.repeat}")
            dev = res["devices"][0]
            lines.append(f"device: {dev['name']} sm_{dev['sm_version']} {dev['multiprocessors']} SMs, L2 {dev['l2_cache_bytes']} B, "
                         f"peak {(dev['peak_bandwidth_bytes_per_second'] or 0) / 1e12:.2f} TB/s (attributes); agent {res['meta']['agent']['git_sha']}")
            clock = "gpu" if res["meta"]["backend"] == "cuda" else "cpu"
            p = res["meta"]["request"]["params"]
            lines.append(f"\naos_soa n={p['n']} cache={p['cache']} repetitions={p['repetitions']} (CUDA events, median)")
            lines.append("| touch | AoS ms | SoA ms | AoS useful GB/s | SoA useful GB/s | SoA/AoS | pred. sectors/req AoS/SoA | verified |")
            lines.append("|---|---|---|---|---|---|---|---|")
            states = res["benchmarks"][0]["states"]
            for t in p["touch_fields"]:
                a = next(s for s in states if s["axis_values"]["layout"] == "aos" and s["axis_values"]["touch_fields"] == t)
                s = next(s for s in states if s["axis_values"]["layout"] == "soa" and s["axis_values"]["touch_fields"] == t)
                pa, ps = a["predicted"]["global"][0]["sectors_per_request"], s["predicted"]["global"][0]["sectors_per_request"]
                if (pa, ps) != (32, 4):
                    problems.append(f"aos_soa touch {t}: predicted {pa}/{ps}, expected 32/4")
                ok = a["verification"]["passed"] and s["verification"]["passed"]
                if not ok:
                    problems.append(f"aos_soa touch {t}: verification failed")
                lines.append(f"| {t} | {summary(a, '/median') * 1e3:.4f} | {summary(s, '/median') * 1e3:.4f} | "
                             f"{summary(a, 'bw/global/bytes_per_second') / 1e9:.0f} | {summary(s, 'bw/global/bytes_per_second') / 1e9:.0f} | "
                             f"{summary(s, 'speedup_soa_over_aos'):.2f} | {pa}/{ps} | {ok} |")
        res = records["transpose"].get("result")
        if res:
            clock = "gpu" if res["meta"]["backend"] == "cuda" else "cpu"
            p = res["meta"]["request"]["params"]
            lines.append(f"\ntranspose fp32 cache={p['cache']} repetitions={p['repetitions']} (CUDA events, median)")
            lines.append("| dim | variant | median ms | q1-q3 ms | useful GB/s | vs copy | pred. global ld/st sectors | pred. smem col-read wavefronts | verified |")
            lines.append("|---|---|---|---|---|---|---|---|---|")
            for s in res["benchmarks"][0]["states"]:
                ax = s["axis_values"]
                g = "/".join(str(x["sectors_per_request"]) for x in s["predicted"]["global"])
                sh = s["predicted"].get("shared") or []
                w = str(sh[1]["wavefronts"]) if len(sh) > 1 else "-"
                bw = summary(s, "bw/global/bytes_per_second")
                if not s["verification"]["passed"]:
                    problems.append(f"transpose {s['name']}: verification failed")
                if ax["variant"] == "copy" and ax["dim"] >= 8192 and bw < 3e12:
                    problems.append(f"copy at dim {ax['dim']}: {bw / 1e12:.2f} TB/s < 3 TB/s")
                lines.append(f"| {ax['dim']} | {ax['variant']} | {summary(s, '/median') * 1e3:.4f} | "
                             f"{summary(s, '/q1') * 1e3:.4f}-{summary(s, '/q3') * 1e3:.4f} | {bw / 1e9:.0f} | "
                             f"{summary(s, 'fraction_of_copy'):.2f} | {g} | {w} | {s['verification']['passed']} |")
            t = res["devices"][0]["telemetry"]
            lines.append(f"\ntelemetry before: {json.dumps(t['before'])}\ntelemetry after:  {json.dumps(t['after'])}")

    if args.fault_test:
        status, text = call(base, token, "POST", "/v1/_test/fail-next-run", {"kind": "device_allocation"})
        if status != 200:
            problems.append(f"fault test: arming -> {status} {text}")
        else:
            rec = run(base, token, {"benchmark": "transpose", "params": {"dim": 1024, "repetitions": 2}}, 120)
            lines.append(f"\nfault test (1 PiB cudaMalloc before a run): status {rec['status']}, error: {rec.get('error')}")
            if rec["status"] != "failed" or "out of memory" not in (rec.get("error") or ""):
                problems.append(f"fault test: expected a failed run with out of memory, got {rec['status']} {rec.get('error')}")
            after = run(base, token, {"benchmark": "transpose", "params": {"dim": 1024, "repetitions": 2}}, 120)
            lines.append(f"next run on the same agent: {after['status']}")
            if after["status"] != "succeeded":
                problems.append(f"fault test: the run after the failure ended {after['status']} {after.get('error')}")
    text = "\n".join(lines)
    print(text)
    with open(f"{args.out}/{args.prefix}-summary.md", "w") as f:
        f.write(text + "\n")
    if problems:
        print("\nPROBLEMS:\n" + "\n".join(problems))
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
