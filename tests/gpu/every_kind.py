#!/usr/bin/env python3
"""Every benchmark kind of the agent, once, on a machine with NVIDIA GPUs: starts layoutscope-agent with the CUDA
backend, reads its catalogue (GET /v1/benchmarks), runs each kind the catalogue lists with small parameters and
checks that each run succeeded and that every state verified. Python standard library only.

    python3 tests/gpu/every_kind.py [--agent build/bin/layoutscope-agent] [--out DIR]

The reshard and collective benchmarks drive as many GPUs as their mesh names: with two or more GPUs they run on a
mesh of two; with one, reshard runs on a mesh of one device and collective, which needs two, is reported as not
run (and fails the check only when the machine has two or more GPUs). Writes one JSON per run and
every-kind.md under --out ($OUT, else build-gpu-out/); the last line is "N passed, N failed".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAST = {"repetitions": 3, "warmup": 1, "seed": 7}


def request(base: str, token: str, method: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def requests_for(gpus: int) -> dict[str, dict]:
    """One small request per kind (parameters as tests/agent uses them on the CPU backend)."""
    mesh = "gpuid_x=2" if gpus >= 2 else "gpuid_x=1"
    shard = "S[(64,64):(1@gpuid_x,1)]" if gpus >= 2 else "S[(64,64):(64,1)]"
    return {
        "aos_soa": {"n": 1 << 20, "touch_fields": [1, 8], **FAST},
        "transpose": {"dim": [2048], **FAST},
        "convert": {"src": "S[(64,32):(32,1)]", "dst": "S[(64,32):(1,64)]", "shape": [64, 32], "dtype": "f32", **FAST},
        "smem_access": {"layout": "S[(32,32):(33,1)]", "shape": [32, 32], "dtype": "f32", "instr": "LDS.32", **FAST},
        "global_access": {"layout": "S[(32,8):(8,1)]", "shape": [32, 8], "dtype": "f32", "instr": "LDG.32", **FAST},
        "reshard": {"from": shard, "to": "S[(64,64):(64,1)] + R[2:1@gpuid_x]" if gpus >= 2 else "S[(64,64):(1,64)]",
                    "shape": [64, 64], "mesh": mesh, "dtype": "f32", **FAST},
        "collective": {"op": "all_gather", "sizes": [1 << 20], "gpus": 2, **FAST},
    }


def unverified(result) -> list[str]:
    bad = []
    for b in result.get("benchmarks", []):
        for s in b.get("states", []):
            v = s.get("verification", {})
            if not v.get("passed"):
                bad.append(f"{b.get('name')}/{s.get('name')}: {v.get('first_mismatch') or v}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default=str(ROOT / "build" / "bin" / "layoutscope-agent"))
    ap.add_argument("--out", default=os.environ.get("OUT") or str(ROOT / "build-gpu-out"))
    ap.add_argument("--backend", default="cuda", help="cuda (default); cpu tries the requests without a GPU")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ls-every-kind-"))
    agent = subprocess.Popen(
        [a.agent, "--port", "0", "--backend", a.backend, "--results-dir", str(work / "results"),
         "--token-file", str(work / "token")],
        stdout=subprocess.PIPE, stderr=open(work / "agent.err", "w"), text=True)
    passed = failed = 0
    lines = [f"# every benchmark kind once, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
             "| kind | status | states | verified | wall s | note |", "|---|---|---|---|---|---|"]
    try:
        first = agent.stdout.readline()
        m = re.search(r"http://[^ /]+/#token=([0-9a-f]+)", first)
        if not m:
            print(f"every_kind: the agent did not start: {first}{(work / 'agent.err').read_text()}")
            print("0 passed, 1 failed")
            return 1
        base = first[m.start():].split("/#")[0]
        token = m.group(1)
        _, devices = request(base, token, "GET", "/v1/devices")
        gpus = len(devices.get("devices", [])) if devices.get("backend") == "cuda" else 0
        if devices.get("backend") != a.backend:
            print(f"every_kind: the agent runs the {devices.get('backend')} backend, not {a.backend}: "
                  f"{devices.get('unavailable', '')}")
            print("0 passed, 1 failed")
            return 1
        print(f"every_kind: backend {devices.get('backend')}, {gpus} GPU(s): "
              f"{', '.join(d['name'] for d in devices.get('devices', []))}")
        _, catalogue = request(base, token, "GET", "/v1/benchmarks")
        kinds = [b["name"] for b in catalogue["benchmarks"]]
        reqs = requests_for(gpus)
        for kind in kinds:
            params = reqs.get(kind)
            if params is None:
                failed += 1
                lines.append(f"| {kind} | no request | | | | every_kind.py has no request for this kind |")
                print(f"every_kind: FAIL {kind}: no request written for it")
                continue
            if kind == "collective" and gpus < 2:
                lines.append(f"| {kind} | not run | | | | needs 2 GPUs, this machine has {gpus} |")
                print(f"every_kind: skip {kind}: needs 2 GPUs, this machine has {gpus}")
                continue
            t0 = time.monotonic()
            status, acc = request(base, token, "POST", "/v1/runs", {"benchmark": kind, "params": params})
            if status != 202:
                failed += 1
                lines.append(f"| {kind} | refused {status} | | | | {json.dumps(acc)[:200]} |")
                print(f"every_kind: FAIL {kind}: POST answered {status}: {acc}")
                continue
            rec = None
            while time.monotonic() - t0 < 300:
                _, rec = request(base, token, "GET", f"/v1/runs/{acc['id']}")
                if rec["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
                    break
                time.sleep(0.2)
            wall = time.monotonic() - t0
            (out / f"every-kind-{kind}.json").write_text(json.dumps(rec, indent=1))
            result = rec.get("result") or {}
            states = sum(len(b.get("states", [])) for b in result.get("benchmarks", []))
            bad = unverified(result) if rec["status"] == "succeeded" else []
            ok = rec["status"] == "succeeded" and states > 0 and not bad
            passed += ok
            failed += not ok
            note = rec.get("error") or ("; ".join(bad)[:200] if bad else "")
            lines.append(f"| {kind} | {rec['status']} | {states} | {'yes' if ok else 'no'} | {wall:.1f} | {note} |")
            print(f"every_kind: {'ok  ' if ok else 'FAIL'} {kind}: {rec['status']}, {states} states, "
                  f"{'all verified' if not bad else bad[0]} ({wall:.1f} s)")
    finally:
        agent.terminate()
        try:
            agent.wait(10)
        except subprocess.TimeoutExpired:
            agent.kill()
    (out / "every-kind.md").write_text("\n".join(lines) + "\n")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
