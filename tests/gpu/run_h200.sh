#!/usr/bin/env bash
# Run on the H200 machine (the `run` tool), from the repository root, with .carry/ carried:
#   .carry/bin/layoutscope-agent  a CUDA build made on the development machine (tried first)
#   .carry/lib                    libcpp-httplib.so.0.11 (+ brotli, OpenSSL) for it
#   .carry/include                httplib.h, nlohmann/, openssl/, zlib.h, brotli/ for a build from source
# Builds from source (sm_90 + compute_90 PTX) when the carried binary does not start, starts the agent with
# --backend cuda, runs the default sweep and transpose 4096/8192/16384 through HTTP (drive_agent.py),
# checks verification and sanity, and leaves the result JSON/CSV under $OUT. Changes no GPU setting.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/.gpu-out}"
mkdir -p "$out"
log="$out/h200-log.txt"
: >"$log"
export LD_LIBRARY_PATH="$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv; nvcc --version | tail -2; } >>"$log" 2>&1

bin="$root/.carry/bin/layoutscope-agent"
if ! "$bin" --version >>"$log" 2>&1; then
  echo "carried binary does not run here; building from source" | tee -a "$log"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DLAYOUTSCOPE_TESTS=OFF -DLAYOUTSCOPE_BENCH=OFF \
    -DLAYOUTSCOPE_HTTPLIB_ROOT="$root/.carry" -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" >>"$log" 2>&1 &&
    cmake --build build-gpu -j16 --target layoutscope-agent >>"$log" 2>&1 || { tail -40 "$log"; exit 1; }
  bin="$root/build-gpu/bin/layoutscope-agent"
  "$bin" --version | tee -a "$log"
fi

work="$(mktemp -d)"
"$bin" --port 0 --backend cuda --test-endpoints --results-dir "$work/results" --token-file "$work/token" >"$work/out" 2>"$work/err" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; cat "$work/err" >>"$log"' EXIT
url=""
for _ in $(seq 100); do
  url="$(grep -o 'http://[^ ]*' "$work/out" | head -1)"
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/err"; exit 1; }
SECONDS=0
python3 "$root/tests/gpu/drive_agent.py" --url "$url" --out "$out" --prefix h200 --repeat "${REPEAT:-2}" --fault-test
status=$?
echo "default sweep + transpose through HTTP (x${REPEAT:-2}) + fault test: ${SECONDS} s wall" | tee -a "$log"
exit $status
