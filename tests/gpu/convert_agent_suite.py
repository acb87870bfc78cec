#!/usr/bin/env python3
"""The agent's convert suite on a machine with an NVIDIA GPU: starts AGENT (CUDA backend), runs {"suite": "permutations"},
prints one line per case (fraction of copy, compile seconds, kernel cache origin, verified), restarts the agent on the
same results folder and runs one more case, then runs shapes that leave partial tiles in every kind of plan (wide
32 B units, u8 and bf16 word-column transposes, folded tiles, a 48 B run left to a vector plan), each verified on the
device; exits 1 if any output differs. Usage: python3 tests/gpu/convert_agent_suite.py AGENT OUTDIR"""
# (its kernel must come from the disk cache), standard library only
import json, os, subprocess, sys, tempfile, time, urllib.request, urllib.error
agent, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
work = tempfile.mkdtemp()
def start():
    # HOME in the work folder: NVRTC's own cache (~/.nv/ComputeCache, NVRTC 12.9+) starts empty, so the suite's
    # compile times are first compiles
    p = subprocess.Popen([agent, "--port", "0", "--backend", "cuda", "--results-dir", work + "/results",
                          "--token-file", work + "/token"], stdout=subprocess.PIPE, stderr=open(out + "/agent-err.txt", "a"), text=True,
                         env={**os.environ, "HOME": work})
    url = None
    for line in p.stdout:
        if "http://" in line:
            url = line[line.index("http://"):].split()[0].split("#")[0].rstrip("/")
            break
    return p, url
def call(url, method, path, body=None):
    tok = open(work + "/token").read().strip()
    req = urllib.request.Request(url + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", "Bearer " + tok); req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r: return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e: return e.code, json.loads(e.read() or b"{}")
def run(url, body, name):
    s, r = call(url, "POST", "/v1/runs", body)
    if s != 202: print(name, "POST", s, r); return None
    rid = r.get("id") or r.get("run", {}).get("id")
    while True:
        s, st = call(url, "GET", f"/v1/runs/{rid}")
        if st.get("status") in ("failed", "cancelled", "succeeded", "interrupted"): break
        time.sleep(1)
    res = st.get("result") or st
    json.dump(res, open(f"{out}/{name}.json", "w"))
    return res
p, url = start()
print("agent", url)
t0 = time.time()
res = run(url, {"benchmark": "convert", "params": {"suite": "permutations", "min_samples": 3, "max_samples": 5, "max_time_s": 0.3}}, "suite")
print("suite wall", round(time.time() - t0, 1), "s")
def summary(res):
    if not res or "benchmarks" not in res: print("no results", json.dumps(res)[:2000]); return
    for b in res["benchmarks"]:
        rows = []
        for s in b["states"]:
            av = s.get("axis_values", {})
            t = s.get("times", {})
            ratio = next((x["value"] for x in s.get("summaries", []) if x["tag"] == "layoutscope/fraction_of_copy"), None)
            rows.append((av.get("case"), ratio and round(ratio, 3), t.get("compile_s"), t.get("compile_cache"), s.get("verification", {}).get("passed", s.get("verification"))))
        for r in rows: print(json.dumps(r))
summary(res)
p.terminate(); p.wait()
p, url = start()
res2 = run(url, {"benchmark": "convert", "params": {"shape": [8192, 8192], "perm": [1, 0], "dtype": "u8", "repetitions": 3}}, "after_restart")
summary(res2)
p.terminate(); p.wait()
# Partial tiles: extents that are not multiples of the tile, in every kind of generated kernel.
EDGES = [
    ([1000, 3, 999, 32], [2, 1, 0, 3], "u8"),    # 32 B units, both groups ragged
    ([1001, 3, 999, 8], [2, 1, 0, 3], "f32"),    # 32 B units of f32
    ([1001, 5, 777, 16], [2, 0, 1, 3], "bf16"),  # 32 B units of bf16
    ([1001, 999], [1, 0], "u8"),                 # odd extents: one byte per lane
    ([1008, 1008], [1, 0], "u8"),                # blocks of 4 rows of 16 B, both groups ragged
    ([48, 2000], [1, 0], "u8"),                  # the same in warps of 8 x 4 blocks (64 blocks per tile row)
    ([1001, 999], [1, 0], "bf16"),               # 8 x 8 blocks of 2 B
    ([1001, 999], [1, 0], "f32"),
    ([3, 100, 64, 16, 5, 32], [1, 0, 2, 4, 5, 3], "u8"),  # folded tile
    ([64, 32, 48], [1, 0, 2], "u8"),             # a 48 B run: a vector plan
    ([100003, 8], [1, 0], "u8"),                 # AoS -> SoA
    ([100003, 8], [1, 0], "bf16"),               # 16 B records: lane pairs
    ([100003, 4], [1, 0], "f32"),
    ([100003, 2], [1, 0], "f64"),
    ([16, 16], [1, 0], "u8"),                    # one block: passes of one trip that most threads leave
    ([24, 40], [1, 0], "bf16"),
    ([40, 24], [1, 0], "f64"),
]
p, url = start()
failed = 0
for shape, perm, dtype in EDGES:
    name = "edge_" + "x".join(map(str, shape)) + "_p" + "".join(map(str, perm)) + "_" + dtype
    res = run(url, {"benchmark": "convert", "params": {"shape": shape, "perm": perm, "dtype": dtype, "repetitions": 3}}, name)
    st = (res or {}).get("benchmarks", [{}])[0].get("states", [{}])[0]
    passed = st.get("verification", {}).get("passed") is True
    plan = st.get("plan", {})
    failed += not passed
    print(json.dumps([name, plan.get("kind"), plan.get("unit_bytes"), plan.get("unit_lanes"), passed]))
p.terminate(); p.wait()
sys.exit(1 if failed else 0)
