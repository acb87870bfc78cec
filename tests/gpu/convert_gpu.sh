#!/usr/bin/env bash
# The conversion suite on a machine with an NVIDIA GPU, from the repository root:
#   bash tests/gpu/convert_gpu.sh [LAB]      LAB: a build of tests/gpu/convert_lab.cpp (default build/bin/convert_lab)
# 0. the disk cache of compiled kernels: restart, damaged and foreign files (convert-cache-check.jsonl)
# 1. every case of the suite planned, generated, compiled with NVRTC, verified and timed (convert-lab.jsonl)
# 2. the peers on the same cases (convert-peers.json): PyTorch eager, torch.compile, CuPy, copy_ (PEER_CASES:
#    a regular expression choosing some)
# 3. Nsight Compute on every case's kernel (the 24 named and the random ones): global sectors per request and
#    shared wavefronts per instruction, next to the plan's prediction (convert-ncu.csv, convert-ncu-pred.jsonl)
set -uo pipefail
lab="${1:-build/bin/convert_lab}"
out="${OUT:-build-gpu-out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
# NVRTC 12.9 and later keep compiled programs in ~/.nv/ComputeCache: a fresh HOME makes every compile a first one.
export HOME="$(mktemp -d)"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$out/convert-env.txt" 2>&1
"$lab" --cache-check "$out/kernel-cache-check" >"$out/convert-cache-check.jsonl" 2>&1
"$lab" --random "${RANDOM_CASES:-50}" | tee "$out/convert-lab.jsonl"
if command -v ncu >/dev/null; then
  m=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  m=$m,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
  m=$m,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  timeout 300 ncu --clock-control none --csv --page raw --kernel-name layoutscope_convert --metrics "$m" \
    "$lab" --random "${RANDOM_CASES:-50}" --profile >"$out/convert-ncu-raw.txt" 2>&1
  grep -E '^\{' "$out/convert-ncu-raw.txt" >"$out/convert-ncu-pred.jsonl"
  grep -vE '^\{' "$out/convert-ncu-raw.txt" | grep -E '^"' >"$out/convert-ncu.csv"
fi
# PEER_CASES (an extended regular expression over case names) measures the peers on those cases only.
grep -E "\"case\":\"(${PEER_CASES:-.*})\"" "$out/convert-lab.jsonl" >"$out/convert-peer-cases.jsonl"
timeout 420 python3 bench/peers/convert_peers.py --cases "$out/convert-peer-cases.jsonl" --out "$out/convert-peers.json" \
  --seconds "${PEER_SECONDS:-0.5}" 2>&1 | tail -100
