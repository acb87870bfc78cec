#!/usr/bin/env bash
# The warp-access lab on a machine with an NVIDIA GPU (sm_90 or later) and Nsight Compute, from the
# repository root:
#   bash tests/gpu/access_lab.sh [LAB]    LAB: a build of tests/gpu/access_lab.cpp (built here when absent)
# 1. every case runs once outside ncu: its kernel is generated, compiled with NVRTC, run and what it read or
#    wrote checked against the host run (access-lab.jsonl; the run fails if any case is wrong)
# 2. the same launches under ncu, counting the per-op shared-memory wavefront and bank-conflict counters the
#    engine names for each instruction (access-ncu.csv)
# 3. the table: engine vs ncu per case, and the fraction of cases where the wavefronts are equal
#    (access-table.md)
# Everything lands in $OUT (default build-gpu-out/). No GPU setting is changed (ncu --clock-control none).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/build-gpu-out}"
mkdir -p "$out"
log="$out/access-log.txt"
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH" PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -2; command -v ncu; } >"$log" 2>&1

lab="${1:-}"
if [[ -z "$lab" ]]; then
  # Only the engine and the code generator are needed (no agent, no tests): a small build.
  cmake -S . -B build-gpu-lab -DCMAKE_BUILD_TYPE=Release -DLAYOUTSCOPE_AGENT=OFF -DLAYOUTSCOPE_TESTS=OFF \
    -DLAYOUTSCOPE_BENCH=OFF >>"$log" 2>&1 &&
    cmake --build build-gpu-lab -j"$(nproc)" --target layoutscope_codegen >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
  lab=build-gpu-lab/access_lab
  g++ -std=c++20 -O2 -Ishared/include -Icodegen -Iagent -I"$cuda/include" tests/gpu/access_lab.cpp \
    agent/backends/cuda/nvrtc.cpp agent/backends/cuda/cubin_folder.cpp build-gpu-lab/codegen/liblayoutscope_codegen.a build-gpu-lab/shared/liblayoutscope_engine.a \
    -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lcudart -lcrypto -ldl -o "$lab" >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
fi
export LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== runs and checks $(date -u +%FT%TZ)" | tee -a "$log"
"$lab" >"$out/access-lab.jsonl" 2>>"$log"
rc=$?
echo "cases: $(wc -l <"$out/access-lab.jsonl"), wrong: $(grep -c '"verified":false' "$out/access-lab.jsonl"), lab exit $rc" | tee -a "$log"

echo "== Nsight Compute $(date -u +%FT%TZ)" | tee -a "$log"
metrics="$("$lab" --metrics)"
timeout 540 ncu --clock-control none --csv --page raw --print-units base --kernel-name layoutscope_access \
  --metrics "$metrics" "$lab" >"$out/access-ncu-raw.txt" 2>>"$log"
grep -E '^\{' "$out/access-ncu-raw.txt" >"$out/access-ncu-pred.jsonl"
grep -vE '^\{' "$out/access-ncu-raw.txt" | grep -E '^"' >"$out/access-ncu.csv"

python3 - "$out/access-ncu-pred.jsonl" "$out/access-ncu.csv" "$(date -u +%F)" >"$out/access-table.md" <<'PY'
import csv, json, sys
cases = [json.loads(l) for l in open(sys.argv[1])]
rows = list(csv.DictReader(open(sys.argv[2])))
rows = [r for r in rows if r.get("ID", "").strip().isdigit()]  # drop the units row
if len(rows) != len(cases):
    print(f"ncu profiled {len(rows)} kernels for {len(cases)} cases: cannot pair them", file=sys.stderr)
    sys.exit(1)
def num(r, m):
    return int(float(r[m].replace(",", ""))) if m and r.get(m, "").strip() else None
print(f"# Warp accesses: the engine's shared-memory wavefronts vs Nsight Compute ({sys.argv[3]})\n")
print("Command: `bash tests/gpu/access_lab.sh` (tests/gpu/access_lab.cpp; one warp, one block per case).\n")
print("| case | layout | dtype | instr | lanes | n | predicted wf | ncu wf | predicted conflicts | ncu conflicts | verified |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
equal = conf_equal = 0
groups = {}
for c, r in zip(cases, rows):
    wf, cf = num(r, c["wavefront_metric"]), num(r, c["conflict_metric"])
    same = wf == c["predicted_wavefronts"]
    equal += same
    conf_equal += cf == c["predicted_conflicts"]
    g = c["case"].split(" : ")[0]
    groups.setdefault(g, [0, 0])
    groups[g][0] += same
    groups[g][1] += 1
    mark = "" if same else " **≠**"
    print(f"| {c['case']} | `{c['layout']}` | {c['dtype']} | {c['instr']} | {c['lanes']} | {c['instructions']} | "
          f"{c['predicted_wavefronts']} | {wf}{mark} | {c['predicted_conflicts']} | {cf} | {c['verified']} |")
n = len(cases)
print(f"\nWavefronts equal: {equal}/{n} = {equal / n:.3f}; conflicts equal: {conf_equal}/{n} = {conf_equal / n:.3f}\n")
for g, (e, t) in groups.items():
    print(f"- {g}: {e}/{t} equal")
print(f"WAVEFRONTS EQUAL {equal}/{n}", file=sys.stderr)
PY
tail -8 "$out/access-table.md"
exit $rc
