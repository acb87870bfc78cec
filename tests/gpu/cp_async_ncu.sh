#!/usr/bin/env bash
# cp.async's shared-memory wavefronts as Nsight Compute counts them, per PTX form (tests/gpu/cp_async_ncu.cu),
# and the SASS each form compiles to. Writes $OUT/cp-async-ncu.csv and $OUT/cp-async-sass.txt.
#   bash tests/gpu/cp_async_ncu.sh
set -euo pipefail
out="${OUT:-build-gpu-out}"
mkdir -p "$out"
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
nvcc -O2 -arch=sm_90 -o "$out/cp_async_ncu" tests/gpu/cp_async_ncu.cu
cuobjdump -sass "$out/cp_async_ncu" | grep -E "Function|LDGSTS" >"$out/cp-async-sass.txt" || true
ncu --clock-control none --csv \
  --metrics sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,smsp__sass_inst_executed_op_ldgsts.sum \
  "$out/cp_async_ncu" >"$out/cp-async-ncu.csv"
rm -f "$out/cp_async_ncu"
