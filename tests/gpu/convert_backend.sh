#!/usr/bin/env bash
# The agent's convert benchmark on a machine with an NVIDIA GPU and no agent dependencies (no cpp-httplib,
# nlohmann/json or CMake packages): builds tests/gpu/convert_backend.cpp with the CUDA backend, the engine
# and the code generator from the compilers alone, runs the suite, then Nsight Compute on the first launch of
# three generated kernels (measured global sectors per request and shared wavefronts per instruction, to
# compare with the "pred" columns of the suite's lines). From the repository root:
#   bash tests/gpu/convert_backend.sh          results in $OUT (default build-gpu-out/)
set -uo pipefail
out="${OUT:-build-gpu-out}"
mkdir -p "$out"
cuda="${CUDA_HOME:-/usr/local/cuda}"
obj="$(mktemp -d)"
export CUDA_INCLUDE="$cuda/include" OBJ="$obj"
ls shared/src/*.cpp shared/src/*/*.cpp codegen/*.cpp tests/gpu/convert_backend.cpp \
  {agent/backends/cuda/cuda_backend,agent/bench/kinds/convert_run,agent/backends/cuda/nvml,agent/backends/cuda/nvrtc,agent/bench/stats,agent/bench/benchmark}.cpp |
  xargs -P "$(nproc)" -I{} sh -c 'g++ -std=c++20 -O2 -Ishared/include -Icodegen -Iagent \
    -I"$CUDA_INCLUDE" -c {} -o "$OBJ/$(echo {} | tr / _).o"' || exit 1
"$cuda/bin/nvcc" -c -std=c++17 -O3 -lineinfo -arch=sm_90 agent/backends/cuda/cuda_kernels.cu -o "$obj/cuda_kernels.o" || exit 1
g++ "$obj"/*.o -L"$cuda/lib64" -lcudart_static -lrt -ldl -lpthread -o "$obj/convert_backend" || exit 1
export LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$out/convert-backend-env.txt" 2>&1
"$obj/convert_backend" "$@" 2>"$out/convert-backend-progress.txt" | tee "$out/convert-backend.txt"
status=$?
ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)"
if [[ -n "$ncu" ]]; then
  m=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  m=$m,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
  m=$m,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  for c in "8192,8192 1,0 f32" "32768,8192 1,0 u8" "32,4096,32,32 0,2,1,3 bf16"; do
    # shellcheck disable=SC2086
    timeout 90 "$ncu" --clock-control none --csv --page raw --kernel-name layoutscope_convert --launch-count 1 \
      --metrics "$m" "$obj/convert_backend" $c 2>/dev/null | grep -E '^"|^case0' >>"$out/convert-backend-ncu.csv"
  done
fi
rm -rf "$obj"
exit $status
