# Sourced by tests/*/run.sh. run_node_tests ARGS...: runs `node --test --test-reporter=spec ARGS...`, shows its
# output, and ends with the line test.sh reads: "N passed, N failed" (a non-zero exit with no failed test
# counted is one failure, so a crash before the summary is never reported as green). Returns non-zero on failure.
run_node_tests() {
  local log rc pass fail
  log="$(mktemp)"
  node --test --test-reporter=spec "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  pass=$(grep -E '^ℹ pass [0-9]+' "$log" | awk '{print $3}' | tail -1)
  fail=$(grep -E '^ℹ fail [0-9]+' "$log" | awk '{print $3}' | tail -1)
  rm -f "$log"
  pass=${pass:-0}
  fail=${fail:-0}
  if [[ $rc -ne 0 && $fail -eq 0 ]]; then fail=1; fi
  echo "$pass passed, $fail failed"
  return $(( rc != 0 || fail != 0 ))
}
