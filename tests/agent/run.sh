#!/usr/bin/env bash
# HTTP tests of layoutscope-agent. Assumes build/bin/layoutscope-agent is built
# (cmake -S . -B build && cmake --build build --target layoutscope-agent).
# Starts one agent (CPU backend, free port, temporary results dir) for the tests that share it; the tests
# start their own instances where they need them (restart, token files, flags). Always stops what it
# started. Last line: "N passed, N failed". The soak runs here in its short form (soak.test.js, about 20 s); the
# full form is `node tests/agent/soak.js` (agent/README.md, "Load").
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${LAYOUTSCOPE_AGENT_BIN:-$root/build/bin/layoutscope-agent}"
if [[ ! -x "$bin" ]]; then
  echo "tests/agent: $bin is not built (cmake --build build --target layoutscope-agent)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
export LAYOUTSCOPE_AGENT_BIN="$bin"

cd "$here"
# the soak opens hundreds of connections at once; raise a low soft limit (never lower it)
if [[ "$(ulimit -Sn)" != unlimited && "$(ulimit -Sn)" -lt 4096 ]]; then ulimit -Sn 4096 2>/dev/null || true; fi
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --silent || { echo "tests/agent: npm ci failed" >&2; echo "0 passed, 1 failed"; exit 1; }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ls-agent-run.XXXXXX")"
agent_pid=""
cleanup() {
  if [[ -n "$agent_pid" ]] && kill -0 "$agent_pid" 2>/dev/null; then
    kill -TERM "$agent_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$agent_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

"$bin" --port 0 --backend cpu --results-dir "$work/results" --token-file "$work/token" \
  >"$work/agent.out" 2>"$work/agent.err" &
agent_pid=$!
url=""
for _ in $(seq 100); do
  url="$(grep -o 'http://[^ ]*' "$work/agent.out" 2>/dev/null | head -1)"
  [[ -n "$url" ]] && break
  kill -0 "$agent_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "tests/agent: the agent did not start:" >&2
  cat "$work/agent.err" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
export LAYOUTSCOPE_AGENT_URL="$url" LAYOUTSCOPE_AGENT_RESULTS="$work/results"

node --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$work/report.tap" \
  api.test.js convert.test.js cancel.test.js fuzz_findings.test.js reshard.test.js policy.test.js hardening.test.js hardening_faults.test.js hardening_requests.test.js openapi.test.js request_schema.test.js typecheck.test.js soak.test.js
status=$?

pass="$(grep -E '^# pass [0-9]+' "$work/report.tap" | tail -1 | awk '{print $3}')"
fail="$(grep -E '^# fail [0-9]+' "$work/report.tap" | tail -1 | awk '{print $3}')"
pass="${pass:-0}"
fail="${fail:-0}"
if [[ $status -ne 0 && $fail -eq 0 ]]; then fail=1; fi
echo "${pass} passed, ${fail} failed"
exit $(( status != 0 || fail != 0 ))
