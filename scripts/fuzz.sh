#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 and fuzzes the dump scanner, then the parser, for SECONDS each
# (default 30).
# Longer runs: scripts/fuzz.sh 3600 (the corpus grows in build-fuzz/corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
[ -f build-fuzz/CMakeCache.txt ] ||
  CXX=clang++-14 cmake -S . -B build-fuzz -DLAYOUTSCOPE_FUZZ=ON -DLAYOUTSCOPE_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"${JOBS:-$(nproc)}" >/dev/null
mkdir -p build-fuzz/corpus build-fuzz/corpus-scan
# The dump scanner first (its log: build-fuzz/last-scan-run.log; a finding stops the script).
build-fuzz/bin/layoutscope-fuzz-scan -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=build-fuzz/scan- build-fuzz/corpus-scan tests/fuzz/corpus-scan >build-fuzz/last-scan-run.log 2>&1 ||
  { tail -n 30 build-fuzz/last-scan-run.log; echo "0 passed, 1 failed"; exit 1; }
if build-fuzz/bin/layoutscope-fuzz-parse -max_total_time="$seconds" -max_len=512 -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=build-fuzz/ build-fuzz/corpus tests/fuzz/corpus >build-fuzz/last-run.log 2>&1; then
  tail -n1 build-fuzz/last-run.log
  echo "1 passed, 0 failed"
else
  tail -n 30 build-fuzz/last-run.log
  echo "0 passed, 1 failed"
  exit 1
fi
