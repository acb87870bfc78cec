#!/usr/bin/env bash
# Node tests of the WASM module (tests/wasm/*.test.mjs). Needs the Emscripten build in build-wasm/
# (emcmake cmake -S . -B build-wasm && cmake --build build-wasm); LAYOUTSCOPE_WASM_DIR overrides its folder.
# Last line: "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wasm_dir="${LAYOUTSCOPE_WASM_DIR:-$root/build-wasm/wasm}"
if [[ ! -f "$wasm_dir/layoutscope.wasm" ]]; then
  echo "tests/wasm: no module at $wasm_dir (build it: emcmake cmake -S . -B build-wasm && cmake --build build-wasm)"
  echo "0 passed, 1 failed"
  exit 1
fi
export LAYOUTSCOPE_WASM_DIR="$wasm_dir"
log="$(mktemp)"
node --test --test-reporter=spec "$here"/*.test.mjs 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
pass=$(grep -E '^ℹ pass [0-9]+' "$log" | awk '{print $3}' | tail -1)
fail=$(grep -E '^ℹ fail [0-9]+' "$log" | awk '{print $3}' | tail -1)
rm -f "$log"
pass=${pass:-0}
fail=${fail:-0}
if [[ $rc -ne 0 && $fail -eq 0 ]]; then fail=1; fi
echo "$pass passed, $fail failed"
exit $(( rc != 0 || fail != 0 ))
