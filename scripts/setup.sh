#!/usr/bin/env bash
# Installs what layoutscope needs and is missing: Debian packages (apt-get) and npm packages (npm ci).
# Idempotent and quick the second time: it asks dpkg first and runs apt-get only for what is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ make pkg-config git        # native build
  libgtest-dev libbenchmark-dev        # engine tests and benchmark
  nlohmann-json3-dev libcpp-httplib-dev  # CLI and agent
  libcli11-dev                         # command-line parsing of the CLI and the agent (CLI11 2.1)
  iproute2                             # agent tests: ss shows the listen backlog
  emscripten                           # the engine as WebAssembly (Debian's 3.1.6)
  clang-14 libclang-rt-14-dev          # libFuzzer target
  chromium                             # browser tests (driven by playwright-core)
  python3-dev python3-pybind11 python3-setuptools python3-pip python3-pytest python3-numpy python3-pandas python3-nbconvert python3-ipykernel jupyter-notebook  # python/
  fonts-wqy-microhei                   # CJK glyphs in the 中文 screenshots
  python3-build python3-wheel          # python/: the sdist and the wheel built from it (tests/python/test_packaging.py)
  mkdocs mkdocs-material python3-sphinx furo  # docs/embedding.md's recipes, built by tests/python/test_docs_recipes.py
  zsh fish                             # the CLI's completion scripts, parsed by the shells they are for
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs npm); fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci where a lock file exists and node_modules is older than it.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
for dir in web tests/agent tests/web tests/wasm tools/format; do
  [ -f "$dir/package-lock.json" ] || continue
  stamp="$dir/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
    echo "setup: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
