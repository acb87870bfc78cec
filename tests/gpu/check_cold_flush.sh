#!/usr/bin/env bash
# GPU check (a machine with an NVIDIA GPU): the agent's cold-L2 samples start cold. It profiles ten timed samples of
# the float4 copy ceiling at 1024^2 (4 MiB, far below the L2) under ncu --cache-control none, so that ncu leaves the
# L2 alone and the agent's own flush is all that clears it, and prints the share of their L2 reads that hit.
# The copy loads with an L2 evict-last policy; before the flush reset persisting lines (commit 5c0e11c) such lines
# survived the memset (docs/results/h200-summary.md, Method). Exit status 1 if any sample hits more than 1 %.
#   usage: bash tests/gpu/check_cold_flush.sh [AGENT] [DEPS]   (as tests/gpu/run_h200.sh; default build/bin/layoutscope-agent)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin="${1:-build/bin/layoutscope-agent}"
[[ -n "${2:-}" ]] && export LD_LIBRARY_PATH="$(cd "$2" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
csv="$(mktemp)"
# Launches of the copy kernel: the ceiling's first launch (verified), 3 warm-up launches, then one per sample;
# skipping 5 leaves samples 2-11, each right after a flush.
# Application replay: with kernel replay ncu saves and restores the buffers around a kernel that needs more than one
# pass, which reads them through L2 just before it.
ncu --cache-control none --clock-control none --replay-mode application --kernel-name regex:copy_vec4_unrolled \
  --launch-skip 5 --launch-count 10 --csv --log-file "$csv" \
  --metrics lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum \
  "$bin" --backend cuda --run '{"benchmark":"transpose","params":{"dim":[1024],"variants":["copy"],"max_time_s":0.05,"min_samples":20}}' \
  >/dev/null
"$bin" --version
python3 - "$csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10 and r[0].isdigit()]
by = {}
for r in rows:
    by.setdefault(int(r[0]), {})[r[-3]] = float(r[-1].replace(",", ""))
if len(by) != 10:
    sys.exit("expected 10 profiled launches, got %d:\n%s" % (len(by), open(sys.argv[1]).read()[-3000:]))
worst = 0.0
for k in sorted(by):
    d = by[k]
    hit = 100.0 * d["lts__t_sectors_op_read_lookup_hit.sum"] / d["lts__t_sectors_op_read.sum"]
    worst = max(worst, hit)
    print("launch %2d: %9.0f sectors read, %5.2f %% hit in L2" % (k, d["lts__t_sectors_op_read.sum"], hit))
print("cold flush %s: worst sample %.2f %% hits (limit 1 %%)" % ("ok" if worst <= 1.0 else "LEAKS", worst))
sys.exit(0 if worst <= 1.0 else 1)
PY
