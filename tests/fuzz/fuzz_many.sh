#!/usr/bin/env bash
# Fuzzes every target at once, each until it has run RUNS inputs (default 10,500,000) or SECONDS have passed
# (default 270), on all cores: WORKERS processes a target (default: the cores / the targets, at least 1),
# each a plain libFuzzer run over the target's shared corpus folder. A worker that stops on a finding
# (a crash, a timeout, an out-of-memory input: kept as OUT_DIR/<target>-crash-*, -timeout-*, -oom-*) is
# started again for the runs it has left. Prints per target the inputs run (the sum of libFuzzer's
# stat::number_of_executed_units over its runs), the seconds, the inputs a second and the findings kept.
#   tests/fuzz/fuzz_many.sh BIN_DIR SEEDS_DIR OUT_DIR [SECONDS] [RUNS]
# BIN_DIR holds layoutscope-fuzz-<target> (built by scripts/fuzz.sh), SEEDS_DIR the seed folders of
# tests/fuzz (corpus, corpus-scan, corpus-request); OUT_DIR gets the findings and one log a target.
set -uo pipefail
bin=$1 seeds=$2 out=$3 seconds=${4:-270} runs=${5:-10500000}
targets=()
for t in parse roundtrip scan agent-input request; do [[ -x $bin/layoutscope-fuzz-$t ]] && targets+=("$t"); done
workers=${WORKERS:-$(( $(nproc) / ${#targets[@]} ))}
(( workers >= 1 )) || workers=1
mkdir -p "$out"
start=$(date +%s)
deadline=$(( start + seconds ))

# worker TARGET INDEX RUNS: runs the target until RUNS inputs ran or the deadline passed; one line a run
# ("<inputs> <rc>") in OUT_DIR/<target>.runs.
worker() {
  local t=$1 w=$2 left=$3 corpus=$4 log n rc remain
  local seed=() max_len=512
  case $t in
    parse | roundtrip) seed=("$seeds/corpus") ;;
    scan) seed=("$seeds/corpus-scan"); max_len=4096 ;;
    request) seed=("$seeds/corpus-request"); max_len=2048 ;;
  esac
  log=$(mktemp)
  while (( left > 0 )); do
    remain=$(( deadline - $(date +%s) ))
    (( remain >= 2 )) || break
    "$bin/layoutscope-fuzz-$t" -runs="$left" -max_total_time="$remain" -max_len="$max_len" -timeout=5 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/$t-" "$corpus" "${seed[@]}" >"$log" 2>&1
    rc=$?
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1)
    echo "${n:-0} $rc" >>"$out/$t.runs"
    (( rc == 0 )) || { echo "== worker $w, rc $rc"; grep -E 'ERROR|SUMMARY|round trip|^[A-Za-z].*\(|Test unit' "$log" | head -n 12; } >>"$out/$t.log"
    left=$(( left - ${n:-0} ))
    (( ${n:-0} > 0 || rc != 0 )) || break
  done
  rm -f "$log"
}

pids=()
for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  : >"$out/$t.runs"
  for ((w = 0; w < workers; ++w)); do
    worker "$t" "$w" $(( (runs + workers - 1) / workers )) "$corpus" &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p"; done
elapsed=$(( $(date +%s) - start ))
echo "$(nproc) cores, $workers workers a target, $elapsed s"
for t in "${targets[@]}"; do
  total=$(awk '{s += $1} END {print s + 0}' "$out/$t.runs")
  restarts=$(awk '$2 != 0' "$out/$t.runs" | wc -l)
  echo "$t: $total inputs in $elapsed s ($(( total / (elapsed > 0 ? elapsed : 1) )) a second), $restarts runs stopped on a finding, kept: $(ls "$out" | grep -cE "^$t-(crash|timeout|oom|leak)-")"
done
