#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 and fuzzes each for SECONDS split between them (default 30 in all):
#   scan       the TTGIR dump scanner (scan_fuzz.cpp, seeded from tests/fuzz/corpus-scan)
#   parse      every importer and the notation's parser (tests/fuzz/parse_fuzz.cpp)
#   roundtrip  a layout exported to every format imports back to the same layout (roundtrip_fuzz.cpp)
#   agent      run record files and request bodies as the agent reads them (agent_input_fuzz.cpp; needs
#              cpp-httplib, skipped when it is not installed)
#   request    a POST /v1/runs body through parse_run_request (request_fuzz.cpp, seeded from
#              tests/fuzz/corpus-request; needs cpp-httplib)
# Every target at once on every core, for millions of runs: tests/fuzz/fuzz_many.sh (docs/results/fuzz.md).
# Longer runs: scripts/fuzz.sh 3600, or one target: scripts/fuzz.sh 600 roundtrip (corpora in build-fuzz/corpus-*).
# Each input's work is bounded (tests/fuzz/positions.hpp: tables of more than kCompareCells rows are not compared
# element by element), so the targets run at thousands of inputs a second; a slower input is a finding (-timeout=5).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
only=${2:-}
[ -f build-fuzz/CMakeCache.txt ] ||
  CXX=clang++-14 cmake -S . -B build-fuzz -DLAYOUTSCOPE_FUZZ=ON -DLAYOUTSCOPE_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"${JOBS:-$(nproc)}" >/dev/null
targets=()
for t in scan parse roundtrip agent-input request; do
  [[ -z "$only" || "$t" == "$only"* ]] || continue
  [[ -x build-fuzz/bin/layoutscope-fuzz-$t ]] && targets+=("$t")
done
each=$(( seconds / ${#targets[@]} ))
(( each >= 1 )) || each=1
passed=0
failed=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus-$t
  mkdir -p "$corpus"
  seeds=()
  [[ ( "$t" == parse || "$t" == roundtrip ) && -d tests/fuzz/corpus ]] && seeds=(tests/fuzz/corpus)
  [[ "$t" == scan && -d tests/fuzz/corpus-scan ]] && seeds=(tests/fuzz/corpus-scan)
  [[ "$t" == request && -d tests/fuzz/corpus-request ]] && seeds=(tests/fuzz/corpus-request)
  max_len=512
  [[ "$t" == scan ]] && max_len=4096
  [[ "$t" == request ]] && max_len=2048
  if build-fuzz/bin/layoutscope-fuzz-$t -max_total_time="$each" -max_len="$max_len" -timeout=5 -rss_limit_mb=2048 \
    -artifact_prefix=build-fuzz/$t- "$corpus" "${seeds[@]}" >build-fuzz/last-run-$t.log 2>&1; then
    echo "$t: $(tail -n1 build-fuzz/last-run-$t.log)"
    passed=$((passed + 1))
  else
    echo "$t:"
    tail -n 30 build-fuzz/last-run-$t.log
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
(( failed == 0 ))
