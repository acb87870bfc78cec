#!/usr/bin/env bash
# On the GPU machine: builds the layoutscope Python package from source with this machine's python3 (pip,
# no build isolation, no network) into a temporary folder, then checks layouts imported from live JAX and
# DTensor objects against the libraries' own answers (tests/gpu/python_live.py). JAX runs on 8 host CPU
# devices. Summary on stdout and in $OUT/python-live.txt when OUT is set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-python3}"
target="$(mktemp -d "${TMPDIR:-/tmp}/layoutscope-py.XXXXXX")"
trap 'rm -rf "$target"' EXIT
"$python" -m pip install --no-build-isolation --no-deps --no-index -q --target "$target" "$root/python"
export PYTHONPATH="$target${PYTHONPATH:+:$PYTHONPATH}"
export XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_force_host_platform_device_count=8" JAX_PLATFORMS=cpu
cd "$root"
"$python" tests/gpu/python_live.py
