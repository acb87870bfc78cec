#!/usr/bin/env bash
# Writes, for every case of the convert benchmark's permutation suite (its CI sizes, as the cpu backend runs
# them), what `layoutscope plan` prints: the plan JSON and the --emit-cuda kernel text, once from the shape +
# permutation and once from the two layouts. Run it before and after a change to the planner or the
# generator and compare the folders (`diff -r before after`): a refactoring must leave every file identical.
#   scripts/plan_dump.sh OUT_DIR [BUILD_DIR]
set -euo pipefail
out="${1:?usage: scripts/plan_dump.sh OUT_DIR [BUILD_DIR]}"
build="${2:-build}"
agent="$build/bin/layoutscope-agent"
cli="$build/bin/layoutscope"
for b in "$agent" "$cli"; do [[ -x "$b" ]] || { echo "plan_dump: $b is not built" >&2; exit 1; }; done
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The suite's cases as the agent lists them in a run's results (each state's input: shape, perm, layouts).
"$agent" --backend cpu --results-dir "$work/results" --token-file "$work/token" \
  --run '{"benchmark": "convert", "params": {"suite": "permutations", "repetitions": 1, "warmup": 0}}' \
  >"$work/suite.json"
python3 - "$work/suite.json" "$cli" "$out" <<'PY'
import json, subprocess, sys
doc = json.load(open(sys.argv[1]))
cli, out = sys.argv[2], sys.argv[3]
states = doc["benchmarks"][0]["states"]
for s in states:
    i = s["input"]
    name = s["axis_values"]["case"]
    common = ["--dtype", i["dtype"]]
    runs = {
        "perm": ["--shape", ",".join(map(str, i["shape"])), "--perm", ",".join(map(str, i["perm"]))],
        "layouts": ["--src", i["src"], "--dst", i["dst"], "--shape", ",".join(map(str, i["shape"]))],
    }
    for how, args in runs.items():
        for kind, extra in (("json", []), ("cu", ["--emit-cuda"])):
            r = subprocess.run([cli, "plan", *args, *common, *extra], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"plan_dump: {name} ({how}): {r.stderr.strip()}")
            open(f"{out}/{name}.{how}.{kind}", "w").write(r.stdout)
print(f"plan_dump: {len(states)} cases, {4 * len(states)} files in {out}")
PY
