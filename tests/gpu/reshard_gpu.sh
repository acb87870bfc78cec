#!/usr/bin/env bash
# The multi-GPU benchmarks on a machine with NVIDIA GPUs, from the repository root:
#   bash tests/gpu/reshard_gpu.sh [AGENT] [DEPS]
#   AGENT  a CUDA build of layoutscope-agent (default build/bin/layoutscope-agent)
#   DEPS   a folder whose lib/ holds the agent's shared libraries missing there (cpp-httplib, brotli)
# 1. where libnccl.so.2 is (the system's, or the one PyTorch's nvidia-nccl wheel ships), and NCCL on one GPU
#    without the agent (nccl_smoke.py: ncclCommInitAll over device 0 + one ncclAllReduce, checked)
# 2. the agent (--backend cuda, NCCL_NVLS_ENABLE=0) driven by reshard_gpu.py: GET /v1/devices, then with
#    2+ GPUs the four collectives from 1 MiB to 4 GiB and three reshards of a 64 MiB tensor, with one GPU the
#    422s, a one-device all_reduce and four 64 MiB local permutes (bf16, f32) that must run the generated
#    conversion kernels. Results and reshard-table.md under $OUT (default build-gpu-out).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bin="${1:-$root/build/bin/layoutscope-agent}"
deps="${2:-}"
[[ -n "$deps" ]] && export LD_LIBRARY_PATH="$(cd "$deps" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-build-gpu-out}"
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
log="$out/reshard-log.txt"
{ date -u; nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv; nvidia-smi topo -m; } >"$log" 2>&1

nccl="${LAYOUTSCOPE_NCCL_LIBRARY:-}"
if [[ -z "$nccl" ]]; then
  nccl="$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')"
fi
if [[ -z "$nccl" ]]; then
  d="$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)"
  [[ -n "$d" && -f "$d/lib/libnccl.so.2" ]] && nccl="$d/lib/libnccl.so.2"
fi
if [[ -z "$nccl" ]]; then
  nccl="$(timeout 20 find / -name 'libnccl.so.2' -not -path '/proc/*' 2>/dev/null | head -1)"
fi
echo "libnccl.so.2: ${nccl:-not found}" | tee -a "$log"
[[ -n "$nccl" ]] || exit 1
export LAYOUTSCOPE_NCCL_LIBRARY="$nccl"
cudart="$(python3 -c 'import nvidia.cuda_runtime, os, glob; d=os.path.dirname(nvidia.cuda_runtime.__file__); print((glob.glob(d+"/lib/libcudart.so*") or [""])[0])' 2>/dev/null)"
[[ -z "$cudart" ]] && cudart="$(ls /usr/local/cuda/lib64/libcudart.so* 2>/dev/null | head -1)"
echo "== NCCL on one GPU without the agent" | tee -a "$log"
timeout 60 python3 tests/gpu/nccl_smoke.py "$nccl" $cudart 2>&1 | tee -a "$log"
smoke=${PIPESTATUS[0]}

work="$(mktemp -d)"
"$bin" --port 0 --backend cuda --results-dir "$work/results" --token-file "$work/token" >"$work/out" 2>"$work/err" &
pid=$!
url=""
for _ in $(seq 100); do
  url="$(grep -o 'http://[^ ]*' "$work/out" | head -1)"
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/err"; exit 1; }
echo "== agent runs $(date -u +%FT%TZ)" | tee -a "$log"
timeout "${DRIVE_TIMEOUT:-1500}" python3 tests/gpu/reshard_gpu.py --url "$url" --token-file "$work/token" --out "$out" \
  ${SIZES:+--sizes "$SIZES"} 2>&1 | tee -a "$log"
drive=${PIPESTATUS[0]}
kill -TERM $pid
wait $pid 2>/dev/null
cat "$work/err" >>"$log"
rm -rf "$work"
echo "nccl_smoke: $smoke, reshard_gpu.py: $drive" | tee -a "$log"
exit $(( smoke != 0 || drive != 0 ))
