#!/usr/bin/env bash
# Builds everything incrementally: native (engine, CLI, tests, agent) into build/, the WebAssembly module
# into build-wasm/, the page into web/dist/. A second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}

[ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

if [ -f wasm/CMakeLists.txt ]; then
  export NODE_PATH=/usr/share/nodejs  # Debian's emcc needs node-acorn from here under Node 20
  [ -f build-wasm/CMakeCache.txt ] || emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-wasm -j"$jobs"
fi

if [ -f web/package.json ]; then
  (cd web && npm run --silent build)
fi
