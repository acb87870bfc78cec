#!/usr/bin/env bash
# Builds incrementally: native (engine, CLI, tests, agent) into build/, the WebAssembly module into
# build-wasm/, the page into web/dist/, the Python package into build/python/. A second run only rebuilds what
# changed.
#   scripts/build.sh [native] [wasm] [web] [python]      (no argument: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
parts=("$@")
((${#parts[@]})) || parts=(native wasm web python)

for part in "${parts[@]}"; do
  case $part in
    native)
      [ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build -j"$jobs"
      ;;
    wasm)
      [ -f wasm/CMakeLists.txt ] || continue
      export NODE_PATH=/usr/share/nodejs  # Debian's emcc needs node-acorn from here under Node 20
      [ -f build-wasm/CMakeCache.txt ] || emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build-wasm -j"$jobs"
      ;;
    web)
      [ -f web/package.json ] || continue
      # Skip Vite when web/dist is newer than every input (the second ./run.sh stays fast). docs/results: the
      # committed H200 runs the build copies to dist/results/ (web/src/bench/reference-runs.ts).
      if [ -f web/dist/index.html ] && [ -z "$(find web build-wasm/wasm/layoutscope.js build-wasm/wasm/layoutscope.wasm schemas docs/results agent/openapi.json agent/openapi_bundle.cmake -newer web/dist/index.html -type f \
        -not -path 'web/node_modules/*' -not -path 'web/dist/*' -not -path 'web/src/generated/*' 2>/dev/null | head -n1)" ]; then
        echo "web/dist is up to date"
        continue
      fi
      (cd web && npm run --silent build)
      ;;
    python)
      # The documented install (python/README.md) into build/python; CMake's build folder stays in python/build/,
      # so a second run recompiles only what changed.
      [ -f python/setup.py ] || continue
      /usr/bin/python3 -m pip install --no-build-isolation --no-deps --no-index --root-user-action=ignore -q \
        --upgrade --target build/python ./python
      ;;
    *) echo "build.sh: unknown part '$part' (native, wasm, web, python)" >&2; exit 2 ;;
  esac
done
