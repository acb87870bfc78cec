#!/usr/bin/env bash
# The agent's benchmarks on a machine with an NVIDIA GPU (written for an H200), from the repository root:
#   bash tests/gpu/run_h200.sh [AGENT] [DEPS]
#   AGENT  a CUDA build of layoutscope-agent (default build/bin/layoutscope-agent); if it does not run there,
#          the script builds one from source into build-gpu/
#   DEPS   a folder with lib/ (libcpp-httplib.so.0.11 and what it links) and include/ (httplib.h), for machines
#          without Debian's cpp-httplib package (default: none, the system's)
# One call measures everything below and changes no GPU setting:
#   1. the agent (--backend cuda) over HTTP: default sweep + default transpose (wall time), transpose at
#      4096/8192/16384, size sweeps across the L2 size, profile runs under ncu (drive_agent.py)
#   2. the same default sweep and headline transpose in-process (--run): HTTP-path overhead; odd sizes in-process
#   3. the peers (bench/peers/peers.py: PyTorch eager, copy_, torch.compile, CuPy) with the same method
#   4. tables (tests/gpu/report.py)
#   5. the cold-L2 check (tests/gpu/check_cold_flush.sh: a cold sample's loads must not hit in L2)
# Everything lands in $OUT (default build-gpu-out/): h200.tar.gz, the summary markdown and the log.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/build-gpu-out}"
res="$out/res"
mkdir -p "$res"
log="$res/h200-log.txt"
: >"$log"
bin="${1:-$root/build/bin/layoutscope-agent}"
deps="${2:-}"
[[ -n "$deps" ]] && export LD_LIBRARY_PATH="$(cd "$deps" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu,ecc.mode.current --format=csv; nvcc --version | tail -2; command -v ncu || ls /opt/nvidia/nsight-compute/ 2>&1; } >>"$log" 2>&1

if ! "$bin" --version >>"$log" 2>&1; then
  echo "$bin does not run here; building from source" | tee -a "$log"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DLAYOUTSCOPE_TESTS=OFF -DLAYOUTSCOPE_BENCH=OFF \
    ${deps:+-DLAYOUTSCOPE_HTTPLIB_ROOT="$(cd "$deps" && pwd)"} -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" >>"$log" 2>&1 &&
    cmake --build build-gpu -j16 --target layoutscope-agent >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
  bin="$root/build-gpu/bin/layoutscope-agent"
fi

work="$(mktemp -d)"
"$bin" --port 0 --backend cuda --test-endpoints --results-dir "$work/results" --token-file "$work/token" >"$work/out" 2>"$work/err" &
pid=$!
url=""
for _ in $(seq 100); do
  url="$(grep -o 'http://[^ ]*' "$work/out" | head -1)"
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/err"; exit 1; }
echo "== HTTP runs $(date -u +%FT%TZ)" | tee -a "$log"
timeout 400 python3 tests/gpu/drive_agent.py --url "$url" --out "$res" --dims 4096,8192,16384 --fault-test 2>&1 | tee -a "$log"
kill -TERM $pid; wait $pid 2>/dev/null; cat "$work/err" >>"$log"

echo "== in-process runs $(date -u +%FT%TZ)" | tee -a "$log"
SECONDS=0
"$bin" --backend cuda --run '{"benchmark":"aos_soa"}' >"$res/h200-inprocess-aos_soa.json" 2>>"$log"
"$bin" --backend cuda --run '{"benchmark":"transpose","params":{"dim":[4096,8192,16384]}}' >"$res/h200-inprocess-transpose.json" 2>>"$log"
echo "in-process: ${SECONDS} s" | tee -a "$log"
# Odd sizes (dim % 4 != 0: every tile takes the scalar path) next to the nearest aligned ones.
"$bin" --backend cuda --run '{"benchmark":"transpose","params":{"dim":[5792,5793,8191,16383]}}' >"$res/h200-inprocess-odd.json" 2>>"$log"

echo "== peers $(date -u +%FT%TZ)" | tee -a "$log"
timeout 240 python3 bench/peers/peers.py --dims 4096,8192,16384 --seconds 1 --out "$res/h200-peers-raw.json" 2>&1 | tail -30 | tee -a "$log"

python3 tests/gpu/report.py --dir "$res" 2>&1 | tee -a "$log"

echo "== cold-L2 check $(date -u +%FT%TZ)" | tee -a "$log"
bash tests/gpu/check_cold_flush.sh "$bin" ${deps:+"$deps"} 2>&1 | tee "$res/h200-cold-flush.txt" | tee -a "$log"
cp "$res/h200-summary.md" "$out/" 2>/dev/null
(cd "$res" && tar czf "$out/h200.tar.gz" .)
cp "$log" "$out/"
