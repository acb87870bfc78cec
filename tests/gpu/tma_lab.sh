#!/usr/bin/env bash
# The TMA lab on a machine with an NVIDIA GPU (sm_90 or later) and Nsight Compute, from the repository root:
#   bash tests/gpu/tma_lab.sh [LAB [AGENT]]
#     LAB    a build of tests/gpu/tma_lab.cu (built here when absent: see `build` below)
#     AGENT  a CUDA build of layoutscope-agent (optional): its copy ceilings are read from a real run
# 1. the sweep: tiles loaded with cp.async.bulk.tensor in modes none/32B/64B/128B x {fp8, bf16, fp32}, every
#    element's landing byte checked against the engine's tma_layout, and the warp's reads (rows, columns,
#    ldmatrix) checked (tma-lab.jsonl; fails if any case is wrong)
# 2. the same launches under ncu (--clock-control none), counting the wavefront counter the engine names for
#    each instruction (tma-ncu.csv), and the table: predicted vs measured wavefronts (tma-table.md)
# 3. the copy ceilings at 256 MiB: cudaMemcpy, copy_vec4 and copy_tma (several chunk sizes and chunks per block),
#    verified and timed (tma-ceiling.jsonl); with AGENT, a transpose run at dim 8192 (256 MiB) through HTTP,
#    whose ceilings include copy_tma (tma-agent-run.json)
# Everything lands in $OUT (default build-gpu-out/). No GPU setting is changed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/build-gpu-out}"
mkdir -p "$out"
log="$out/tma-log.txt"
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH" PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -2; command -v ncu; } >"$log" 2>&1

lab="${1:-}"
agent="${2:-}"
if [[ -z "$lab" ]]; then
  # build: the engine and the code generator (a small cmake build), then the lab with nvcc for sm_90a.
  cmake -S . -B build-gpu-lab -DCMAKE_BUILD_TYPE=Release -DLAYOUTSCOPE_AGENT=OFF -DLAYOUTSCOPE_TESTS=OFF \
    -DLAYOUTSCOPE_BENCH=OFF >>"$log" 2>&1 &&
    cmake --build build-gpu-lab -j"$(nproc)" --target layoutscope_codegen >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
  lab=build-gpu-lab/tma_lab
  nvcc -std=c++20 -O2 -arch=sm_90a -Ishared/include -Icodegen -Iagent tests/gpu/tma_lab.cu \
    agent/backends/cuda/cuda_kernels.cu build-gpu-lab/codegen/liblayoutscope_codegen.a \
    build-gpu-lab/shared/liblayoutscope_engine.a -o "$lab" >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
fi
export LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== sweep $(date -u +%FT%TZ)" | tee -a "$log"
timeout 60 "$lab" >"$out/tma-lab.jsonl" 2>>"$log"
rc=$?
echo "cases: $(wc -l <"$out/tma-lab.jsonl"), wrong: $(grep '"control":false' "$out/tma-lab.jsonl" | grep -c '"verified":false'), controls rejected: $(grep '"control":true' "$out/tma-lab.jsonl" | grep -c '"verified":false'), lab exit $rc" | tee -a "$log"

echo "== Nsight Compute $(date -u +%FT%TZ)" | tee -a "$log"
metrics="$("$lab" --metrics)"
timeout 110 ncu --clock-control none --csv --page raw --print-units base --kernel-name layoutscope_tma \
  --metrics "$metrics" "$lab" >"$out/tma-ncu-raw.txt" 2>>"$log"
grep -E '^\{' "$out/tma-ncu-raw.txt" >"$out/tma-ncu-pred.jsonl"
grep -vE '^\{' "$out/tma-ncu-raw.txt" | grep -E '^"' >"$out/tma-ncu.csv"

python3 - "$out/tma-ncu-pred.jsonl" "$out/tma-ncu.csv" "$(date -u +%F)" >"$out/tma-table.md" <<'PY'
import csv, json, sys
cases = [json.loads(l) for l in open(sys.argv[1])]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r.get("ID", "").strip().isdigit()]
if len(rows) != len(cases):
    print(f"ncu profiled {len(rows)} kernels for {len(cases)} cases: cannot pair them", file=sys.stderr)
    sys.exit(1)
def num(r, m):
    return int(float(r[m].replace(",", ""))) if m and r.get(m, "").strip() else None
print(f"| mode | dtype | tile | read | instr | n | predicted wf / instr | ncu wf / instr | predicted wf | ncu wf | verified |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
equal = 0
for c, r in zip(cases, rows):
    wf = num(r, c["wavefront_metric"])
    same = wf == c["predicted_wavefronts"]
    equal += same
    n = c["instructions"]
    per = f"{wf / n:g}" if wf is not None and n else "-"
    pred = f"{c['predicted_wavefronts'] / n:g}" if n else "-"
    print(f"| {c['mode']} | {c['dtype']} | {c['shape'][0]}x{c['shape'][1]} | {c['read']} | {c['instr'] if n else '-'} | {n} | "
          f"{pred} | {per}{'' if same else ' **≠**'} | {c['predicted_wavefronts']} | {wf} | "
          f"{c['verified']}{' (control: the 128B load checked as none, must be False)' if c.get('control') else ''} |")
real = [c for c in cases if not c.get("control")]
controls = [c for c in cases if c.get("control")]
print(f"\nWavefronts equal: {equal}/{len(cases)}; verified: {sum(c['verified'] is True for c in real)}/{len(real)}; "
      f"controls rejected: {sum(c['verified'] is False for c in controls)}/{len(controls)}")
print(f"WAVEFRONTS EQUAL {equal}/{len(cases)}", file=sys.stderr)
PY
tail -1 "$out/tma-table.md"

echo "== copy ceilings at 256 MiB $(date -u +%FT%TZ)" | tee -a "$log"
timeout 60 "$lab" --ceiling 256 >"$out/tma-ceiling.jsonl" 2>>"$log" || rc=3
cat "$out/tma-ceiling.jsonl"

if [[ -n "$agent" ]]; then
  echo "== agent transpose dim=8192 $(date -u +%FT%TZ)" | tee -a "$log"
  work="$(mktemp -d)"
  "$agent" --port 0 --backend cuda --results-dir "$work/results" --token-file "$work/token" >"$work/out" 2>"$work/err" &
  pid=$!
  url=""
  for _ in $(seq 100); do
    url="$(grep -o 'http://[^ ]*' "$work/out" | head -1)"
    [[ -n "$url" ]] && break
    sleep 0.1
  done
  if [[ -n "$url" ]]; then
    timeout 120 python3 - "$url" >"$out/tma-agent-run.json" 2>>"$log" <<'PY'
import json, sys, time, urllib.parse, urllib.request
u = urllib.parse.urlsplit(sys.argv[1])  # the agent prints http://host:port/#token=...
base, token = f"{u.scheme}://{u.netloc}", urllib.parse.parse_qs(u.fragment)["token"][0]
def call(method, path, body=None):
    req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(), method=method)
    req.add_header("Authorization", "Bearer " + token)
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read().decode())
rid = call("POST", "/v1/runs", {"benchmark": "transpose", "params": {"dim": 8192, "variants": ["copy"]}})["id"]
while True:
    rec = call("GET", f"/v1/runs/{rid}")
    if rec["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
        break
    time.sleep(0.1)
json.dump(rec, sys.stdout)
PY
    python3 - "$out/tma-agent-run.json" <<'PY' | tee -a "$log"
import json, sys
rec = json.load(open(sys.argv[1]))
print("agent run:", rec["status"])
for c in rec.get("result", {}).get("benchmarks", [{}])[0].get("ceilings", []):
    bw = next((s["value"] for s in c["summaries"] if s["tag"].endswith("bytes_per_second")), None)
    print(f"  {c['name']}: {bw / 1e9 if bw else float('nan'):.1f} GB/s, verified {c['verification']['passed']}")
PY
  else
    echo "agent did not start" | tee -a "$log"
    cat "$work/err" >>"$log"
  fi
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  cat "$work/err" >>"$log"
fi
exit $rc
