#!/usr/bin/env bash
# The realistic conversion corpus (tests/gpu/convert_corpus.json) on a machine with an NVIDIA GPU, from the
# repository root, in one call:
#   bash tests/gpu/convert_corpus_gpu.sh        results in $OUT (default build-gpu-out/)
# 0. builds tests/gpu/convert_lab.cpp with the engine and the code generator from the compilers alone (no CMake),
#    unless LAB names a convert_lab of this tree that starts on this machine
# 1. every case planned, generated, compiled with NVRTC (a fresh HOME: first compiles), verified element by
#    element on the device and timed against the float4 copy and cudaMemcpy of the same bytes
#    (corpus-lab.jsonl; refusals are lines with "error")
# 2. Nsight Compute on every case's kernel: global sectors per request and shared wavefronts per instruction,
#    next to the plan's prediction (corpus-ncu.csv, corpus-ncu-pred.jsonl); SKIP_NCU=1 leaves it out,
#    NCU_CASES (a regular expression over case names) profiles some
# 3. the peers on the same cases in the same call (corpus-peers.json): PyTorch copy_, eager, torch.compile
#    (default and max-autotune-no-cudagraphs), CuPy, channels_last, and each case's own kernel (the lab's
#    --emit folder) timed again by the peers' loop, which judges "behind a peer"; PEER_ROUNDS=R measures the
#    peers other than torch.compile and our kernel R times each, alternating (their medians); the loop spins the GPU
#    PEER_HOLD_US microseconds (default 1000, 0: none) after each flush while Python queues the sample, so that
#    it times the GPU and not Python's launches; SKIP_PEERS=1 leaves them out;
#    COMPILE_WORKERS=N compiles torch.compile's functions in N processes first (Inductor's caches), so that
#    the timed pass fits every case in COMPILE_BUDGET seconds
# 4. LOOPS_CHECK=S (seconds): bench/peers/loops_check.py, the lab's float4 copy of each case's bytes against the
#    same copy timed from Python with and without the hold (corpus-loops-check.jsonl)
# 5. the table and the summary against the targets (corpus-report.md)
set -uo pipefail
out="${OUT:-build-gpu-out}"
mkdir -p "$out"
cuda="${CUDA_HOME:-/usr/local/cuda}"
obj="$(mktemp -d)"
export PATH="$cuda/bin:$PATH" PYTHONUNBUFFERED=1 CUDA_INCLUDE="$cuda/include" OBJ="$obj"
# NVRTC 12.9 and later keep compiled programs in ~/.nv/ComputeCache: a fresh HOME makes every compile a first one.
export HOME="$(mktemp -d)"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$out/corpus-env.txt" 2>&1
export INC="-Ishared/include -Icodegen -Iagent -I$cuda/include"
# LAB names a convert_lab built elsewhere (from this tree), used where it starts here (--cache-check runs).
if [[ -n "${LAB:-}" ]] && "$LAB" --cache-check "$obj/cache-check" >"$out/corpus-cache-check.jsonl" 2>&1; then
  cp "$LAB" "$obj/convert_lab"
else
  ls shared/src/*.cpp shared/src/*/*.cpp codegen/*.cpp tests/gpu/convert_lab.cpp agent/bench/kinds/convert_run.cpp agent/bench/engine_calls.cpp \
    agent/backends/cuda/nvrtc.cpp agent/backends/cuda/cubin_folder.cpp |
    xargs -P "$(nproc)" -I{} sh -c 'g++ -std=c++20 -O2 $INC -c {} -o "$OBJ/$(echo {} | tr / _).o"' || exit 1
  g++ "$obj"/*.o -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lcudart -lcrypto -ldl -lpthread -o "$obj/convert_lab" || exit 1
fi
export LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
python3 tests/gpu/convert_corpus.py tsv >"$obj/corpus.tsv"
echo "== lab $(date -u +%T)"
"$obj/convert_lab" --corpus "$obj/corpus.tsv" --samples "${SAMPLES:-20}" --emit "$obj/kernels" | tee "$out/corpus-lab.jsonl"
ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)"
if [[ -z "${SKIP_NCU:-}" && -n "$ncu" ]]; then
  echo "== ncu $(date -u +%T)"
  m=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  m=$m,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
  m=$m,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  # NCU_CASES (an extended regular expression over case names) profiles those cases only.
  grep -E "^(${NCU_CASES:-.*})"$'\t' "$obj/corpus.tsv" >"$obj/ncu.tsv"
  timeout "${NCU_SECONDS:-240}" "$ncu" --clock-control none --csv --page raw --kernel-name layoutscope_convert \
    --metrics "$m" "$obj/convert_lab" --corpus "$obj/ncu.tsv" --profile >"$obj/ncu-raw.txt" 2>&1
  grep -E '^\{' "$obj/ncu-raw.txt" >"$out/corpus-ncu-pred.jsonl"
  grep -vE '^\{' "$obj/ncu-raw.txt" | grep -E '^"' >"$out/corpus-ncu.csv"
fi
if [[ -z "${SKIP_PEERS:-}" ]]; then
  echo "== peers $(date -u +%T)"
  timeout "${PEER_TIMEOUT:-400}" python3 bench/peers/convert_peers.py --cases "$out/corpus-lab.jsonl" \
    --out "$out/corpus-peers.json" --seconds "${PEER_SECONDS:-0.2}" --max-autotune \
    --compile-budget "${COMPILE_BUDGET:-240}" --compile-workers "${COMPILE_WORKERS:-0}" --kernels "$obj/kernels" --rounds "${PEER_ROUNDS:-1}" --hold-us "${PEER_HOLD_US:-1000}" >"$out/corpus-peers.jsonl" 2>"$obj/peers-err.txt"
  tail -5 "$obj/peers-err.txt"
  # A peers run cut short still leaves its lines.
  [[ -s "$out/corpus-peers.json" ]] || cp "$out/corpus-peers.jsonl" "$out/corpus-peers.json"
fi
if [[ -n "${LOOPS_CHECK:-}" ]]; then
  echo "== loops check $(date -u +%T)"
  timeout "$((LOOPS_CHECK + 30))" python3 bench/peers/loops_check.py --lab "$out/corpus-lab.jsonl" \
    --out "$out/corpus-loops-check.jsonl" --time-limit "$LOOPS_CHECK" | tail -30
fi
ncu_args=()
[[ -s "$out/corpus-ncu.csv" ]] && ncu_args=(--ncu "$out/corpus-ncu-pred.jsonl" "$out/corpus-ncu.csv")
python3 tests/gpu/convert_corpus.py report "$out/corpus-lab.jsonl" "$out/corpus-peers.json" "${ncu_args[@]}" --md \
  >"$out/corpus-report.md"
tail -40 "$out/corpus-report.md"
rm -rf "$obj"
