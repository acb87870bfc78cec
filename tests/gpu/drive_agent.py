#!/usr/bin/env python3
"""Drives a running layoutscope-agent (CUDA backend) through its HTTP API and writes one JSON per run under
--out: the default sweep + default transpose (their HTTP wall time is the overhead figure), the headline
transpose at 4096/8192/16384, a size sweep across the L2 size, and profile runs (ncu) of the document's
configurations. Checks: every state and ceiling verified; the engine predicts AoS 32 / SoA 4 sectors per
request, naive store 32, tile[32][32] column read 32 wavefronts, tile[32][33] and both 64x64 tiles conflict-free.
Standard library only (runs under the device machine's python3)."""
import argparse
import json
import sys
import threading
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


def run(base, token, body, timeout_s=500):
    t0 = time.time()
    status, text = call(base, token, "POST", "/v1/runs", body)
    if status != 202:
        raise SystemExit(f"POST /v1/runs {body} -> {status}: {text}")
    rid = json.loads(text)["id"]
    while True:
        status, text = call(base, token, "GET", f"/v1/runs/{rid}")
        rec = json.loads(text)
        if rec["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
            rec["_http_wall_s"] = time.time() - t0
            return rec
        if time.time() - t0 > timeout_s:
            raise SystemExit(f"run {rid} still {rec['status']} after {timeout_s} s")
        time.sleep(0.05)


def summary(state, suffix):
    for s in state["summaries"]:
        if s["tag"].endswith(suffix):
            return s["value"]
    return None


def check(result, problems, label):
    for b in result["benchmarks"]:
        for c in b.get("ceilings", []):
            if not c["verification"]["passed"]:
                problems.append(f"{label}: ceiling {c['name']} not verified")
        for s in b["states"]:
            if not s["verification"]["passed"]:
                problems.append(f"{label}: {s['name']} not verified")
            ax, p = s["axis_values"], s["predicted"]
            if b["name"] == "aos_soa" and ax["layout"] in ("aos", "soa"):
                want = 32 if ax["layout"] == "aos" else 4
                if p["global"][0]["sectors_per_request"] != want:
                    problems.append(f"{label}: {s['name']} predicted {p['global'][0]['sectors_per_request']} != {want}")
            if b["name"] == "transpose":
                sh = p.get("shared") or []
                want = {"tiled": 32, "pad": 1}.get(ax["variant"])
                if want and sh[1]["wavefronts"] != want:
                    problems.append(f"{label}: {s['name']} shared column read {sh[1]['wavefronts']} != {want}")
                if ax["variant"].startswith("tile64") and sh and sh[1]["wavefronts"] != sh[1]["ideal_wavefronts"]:
                    problems.append(f"{label}: {s['name']} tile64 column read not conflict-free in the engine")


def admission_test(base, token):
    """A request holds its device during its bounds check (cudaMemGetInfo on the CUDA backend): a second request
    sent meanwhile is refused 409 at once, and the first is queued and succeeds."""
    call(base, token, "POST", "/v1/_test/slow-next-admission", {"ms": 800})
    small = {"benchmark": "transpose", "params": {"dim": 1024, "repetitions": 2}}
    first = {}
    t = threading.Thread(target=lambda: first.update(zip(("status", "text"), call(base, token, "POST", "/v1/runs", small))))
    t.start()
    time.sleep(0.2)
    second_status, second_text = call(base, token, "POST", "/v1/runs", small)
    first_done_early = not t.is_alive()
    t.join()
    ok = second_status == 409 and not first_done_early and first.get("status") == 202
    if first.get("status") == 202:
        rid = json.loads(first["text"])["id"]
        while True:
            rec = json.loads(call(base, token, "GET", f"/v1/runs/{rid}")[1])
            if rec["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
                break
            time.sleep(0.05)
        ok = ok and rec["status"] == "succeeded"
    second = json.loads(second_text)["error"]["message"] if second_status == 409 else second_text
    return ok, f"second {second_status} ({second}); first {first.get('status')}" + ("" if ok else " (FAILED)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dims", default="4096,8192,16384")
    ap.add_argument("--fault-test", action="store_true")
    ap.add_argument("--no-runs", action="store_true", help="skip the benchmark runs (with --fault-test: only the checks)")
    args = ap.parse_args()
    u = urllib.parse.urlsplit(args.url)
    token = urllib.parse.parse_qs(u.fragment)["token"][0]
    base = f"{u.scheme}://{u.netloc}"
    problems, walls = [], {}
    status, text = call(base, token, "GET", "/readyz")
    if status != 200:
        raise SystemExit(f"/readyz -> {status}: {text}")
    _, devices = call(base, token, "GET", "/v1/devices")
    with open(f"{args.out}/h200-devices.json", "w") as f:
        f.write(json.dumps(json.loads(devices), indent=2) + "\n")

    dims = [int(d) for d in args.dims.split(",")]
    runs = [
        ("default-aos_soa", {"benchmark": "aos_soa"}),
        ("default-transpose", {"benchmark": "transpose"}),
        ("aos_soa", {"benchmark": "aos_soa"}),
        ("transpose", {"benchmark": "transpose", "params": {"dim": dims}}),
        ("l2-sweep-transpose", {"benchmark": "transpose", "params": {"dim": [1024, 2048, 2896, 4096, 5793, 8192],
                                                                     "variants": ["copy", "pad", "tile64_swizzle"], "raw_samples": False}}),
        ("l2-sweep-aos_soa", {"benchmark": "aos_soa", "params": {"n": [1 << 18, 1 << 20, 1 << 21, 1 << 22, 1 << 24, 1 << 26],
                                                                 "touch_fields": [1], "raw_samples": False}}),
        ("profile-aos_soa", {"benchmark": "aos_soa", "profile": True,
                             "params": {"n": 1 << 24, "touch_fields": [1, 8], "repetitions": 3, "raw_samples": False}}),
        ("profile-transpose", {"benchmark": "transpose", "profile": True,
                               "params": {"dim": 4096, "repetitions": 3, "raw_samples": False}}),
    ]
    for name, body in [] if args.no_runs else runs:
        rec = run(base, token, body)
        walls[name] = rec["_http_wall_s"]
        print(f"{name}: {rec['status']} in {rec['_http_wall_s']:.2f} s (HTTP submit to final status)", flush=True)
        if rec["status"] != "succeeded":
            problems.append(f"{name}: {rec['status']}: {rec.get('error')}")
        if rec.get("result"):
            check(rec["result"], problems, name)
            with open(f"{args.out}/h200-{name}.json", "w") as f:
                f.write(json.dumps(rec["result"], indent=1) + "\n")
            _, csv = call(base, token, "GET", f"/v1/runs/{rec['id']}?format=csv")
            with open(f"{args.out}/h200-{name}.csv", "w") as f:
                f.write(csv)
    if args.fault_test:
        call(base, token, "POST", "/v1/_test/fail-next-run", {"kind": "device_allocation"})
        rec = run(base, token, {"benchmark": "transpose", "params": {"dim": 1024, "repetitions": 2}})
        after = run(base, token, {"benchmark": "transpose", "params": {"dim": 1024, "repetitions": 2}})
        walls["fault"] = f"{rec['status']} ({rec.get('error')}); next run {after['status']}"
        if rec["status"] != "failed" or after["status"] != "succeeded":
            problems.append(f"fault test: {walls['fault']}")
    if args.fault_test:
        ok, walls["admission"] = admission_test(base, token)
        if not ok:
            problems.append(f"admission test: {walls['admission']}")
    if not args.no_runs:
        walls["default_sweep_plus_transpose_s"] = walls["default-aos_soa"] + walls["default-transpose"]
    with open(f"{args.out}/h200-http-walls.json", "w") as f:
        json.dump({"walls_s": walls, "problems": problems}, f, indent=1)
    print(json.dumps(walls, indent=1))
    if problems:
        print("PROBLEMS:\n" + "\n".join(problems))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
