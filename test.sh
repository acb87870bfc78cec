#!/usr/bin/env bash
# One command to build and run every test suite. Prints each suite's result and, last, "N passed, N failed"
# (test counts over all suites); exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
logs=build/test-logs
passed=0
failed=0
results=()

scripts/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$logs"

# record SUITE STATUS LOG: takes the suite's counts from its log.
record() {
  local suite=$1 status=$2 log=$3 p=0 f=0 line
  if line=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n1) && [ -n "$line" ]; then
    f=$(echo "$line" | awk '{print $1}')
    p=$(($(echo "$line" | awk '{print $6}') - f))
  elif line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1) && [ -n "$line" ]; then
    p=$(echo "$line" | awk '{print $1}')
    f=$(echo "$line" | awk '{print $3}')
  elif [ "$status" -eq 0 ]; then
    p=1
  fi
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  results+=("$(printf '%-8s %s  (%d passed, %d failed; log %s)' "$suite" "$([ "$status" -eq 0 ] && echo ok || echo FAIL)" "$p" "$f" "$log")")
}

suite() {
  local name=$1
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$logs/$name.log"
  local status=${PIPESTATUS[0]}
  record "$name" "$status" "$logs/$name.log"
  return "$status"
}

# Formatting and lint first: clang-format, prettier and eslint report every drift (scripts/lint.sh --fix mends it).
suite lint scripts/lint.sh

# A build that fails is a failed suite; the suites that need it are then reported as failed too.
built=()
for part in native wasm web python; do
  suite "build-$part" scripts/build.sh "$part" && built+=("$part")
done
has() { [[ " ${built[*]} " == *" $1 "* ]]; }
need() {  # need PART... -- SUITE CMD...: run SUITE only when every PART built
  local parts=()
  while [ "$1" != "--" ]; do parts+=("$1"); shift; done
  shift
  for p in "${parts[@]}"; do
    if ! has "$p"; then
      echo "== $1: not run, the $p build failed" | tee "$logs/$1.log"
      record "$1" 1 "$logs/$1.log"
      return
    fi
  done
  suite "$@"
}

need native -- engine ctest --test-dir build --output-on-failure -j"$(nproc)"
suite fuzz scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
[ -x tests/wasm/run.sh ] && need wasm -- wasm tests/wasm/run.sh
[ -x tests/web/run.sh ] && need wasm web -- web tests/web/run.sh
[ -x tests/agent/run.sh ] && need native -- agent tests/agent/run.sh
[ -x tests/python/run.sh ] && need python -- python tests/python/run.sh

echo
echo "== summary"
printf '%s\n' "${results[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
