#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, arguments as tests/gpu/run_h200.sh ([AGENT] [DEPS]): the headline transpose (8192, 16384:
# copy, tile64_pad, tile64_swizzle) and aos_soa (t = 1, 8: aos_vec, soa_vec) in-process, three times each (REPEATS), to show
# how much the fractions of the copy move between runs. JSON in $OUT/rep-*.json (and all of them in
# $OUT/repeats.tar.gz, so that they travel as one file), one line per state on stdout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export OUT="${OUT:-$PWD/build-gpu-out}"; mkdir -p "$OUT"
b="${1:-build/bin/layoutscope-agent}"
[[ -n "${2:-}" ]] && export LD_LIBRARY_PATH="$(cd "$2" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# REPEATS (default 3), DIMS (default 8192,16384) and AOS=0 (skip the aos_soa repeats) narrow it down.
for i in $(seq "${REPEATS:-3}"); do
  $b --backend cuda --run '{"benchmark":"transpose","params":{"dim":['"${DIMS:-8192,16384}"'],"variants":["copy","tile64_pad","tile64_swizzle"]}}' > $OUT/rep-transpose-$i.json 2>>$OUT/rep.log
  [[ "${AOS:-1}" == 0 ]] || $b --backend cuda --run '{"benchmark":"aos_soa","params":{"touch_fields":[1,8],"layouts":["aos_vec","soa_vec"]}}' > $OUT/rep-aos-$i.json 2>>$OUT/rep.log
done
python3 - <<'PY'
import json, os, glob
out = os.environ["OUT"]
for f in sorted(glob.glob(out + "/rep-*.json")):
    r = json.load(open(f))
    b = r["benchmarks"][0]
    for s in b["states"]:
        fr = {x["tag"].split("/")[-1]: x["value"] for x in s["summaries"] if "fraction" in x["tag"] or "speedup" in x["tag"] or "bytes_per_second" in x["tag"]}
        print(os.path.basename(f), r["meta"]["started_at"], s["name"], {k: round(v / 1e12, 3) if v > 1e6 else round(v, 4) for k, v in fr.items()})
PY
(cd "$OUT" && tar czf repeats.tar.gz rep-*.json)
