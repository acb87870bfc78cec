#!/usr/bin/env bash
# Browser tests of the page (tests/web/*.test.mjs): npm ci in web/ when node_modules is missing, the Vite
# build when web/dist is missing or older than the sources or the module, then node:test with playwright-core
# driving /usr/bin/chromium against a static server on a free port (started and stopped by the tests).
# Needs build-wasm/ (the Emscripten build) and, for the panel and embedding tests, a built layoutscope-agent
# (build/bin/, or LAYOUTSCOPE_AGENT_BIN), which they start with --backend cpu on a free port and stop.
# Screenshots: build/artifacts/. Last line: "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../lib/node-test.sh
source "$root/tests/lib/node-test.sh"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
fail_setup() { echo "tests/web: $1"; echo "0 passed, 1 failed"; exit 1; }
cd "$root/web" || fail_setup "no web/"
if [[ ! -d node_modules/playwright-core || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund >/dev/null || fail_setup "npm ci failed"
fi
wasm="${LAYOUTSCOPE_WASM_DIR:-$root/build-wasm/wasm}/layoutscope.wasm"
[[ -f "$wasm" ]] || fail_setup "no module at $wasm (build it: emcmake cmake -S . -B build-wasm && cmake --build build-wasm)"
if [[ ! -f dist/index.html || ! -f dist/layoutscope.js || -n "$(find src index.html embed.html examples public scripts vite.config.ts ../schemas ../docs/results ../wasm/layoutscope.d.ts "$wasm" -newer dist/index.html -print -quit)" ]]; then
  npm run build >/dev/null || fail_setup "vite build failed (npm run build in web/)"
fi
run_node_tests --test-concurrency=1 "$here"/*.test.mjs
