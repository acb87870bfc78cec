#!/usr/bin/env bash
# The Python package's tests (pytest) against the package scripts/build.sh python installed into build/python
# (or LAYOUTSCOPE_PYTHONPATH). Skipped tests print their reason (-rs). Last line: "N passed, N failed", from
# pytest's closing line (errors count as failed).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-/usr/bin/python3}"
export PYTHONPATH="${LAYOUTSCOPE_PYTHONPATH:-$root/build/python}${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cd "$root"
"$python" -m pytest "$here" -q -rs -p no:cacheprovider 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
last="$(grep -E '(passed|failed|error|skipped|no tests ran)' "$log" | tail -n1)"
count() { echo "$last" | grep -Eo "[0-9]+ $1" | awk '{s += $1} END {print s + 0}'; }
passed=$(count passed)
failed=$(($(count failed) + $(count 'errors?')))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
exit "$status"
