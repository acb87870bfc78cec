#!/usr/bin/env bash
# Node tests of the WASM module (tests/wasm/*.test.mjs). Needs the Emscripten build in build-wasm/
# (emcmake cmake -S . -B build-wasm && cmake --build build-wasm); LAYOUTSCOPE_WASM_DIR overrides its folder.
# Last line: "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../lib/node-test.sh
source "$root/tests/lib/node-test.sh"
wasm_dir="${LAYOUTSCOPE_WASM_DIR:-$root/build-wasm/wasm}"
if [[ ! -f "$wasm_dir/layoutscope.wasm" ]]; then
  echo "tests/wasm: no module at $wasm_dir (build it: emcmake cmake -S . -B build-wasm && cmake --build build-wasm)"
  echo "0 passed, 1 failed"
  exit 1
fi
export LAYOUTSCOPE_WASM_DIR="$wasm_dir"
run_node_tests "$here"/*.test.mjs
