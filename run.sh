#!/usr/bin/env bash
# One command to set up and run layoutscope: install what is missing, build, start the agent serving
# the page. Extra arguments go to the agent (e.g. ./run.sh --port 9000 --backend cpu).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
scripts/build.sh

if [ -x build/bin/layoutscope-agent ]; then
  exec build/bin/layoutscope-agent --web web/dist "$@"
fi

# No agent in this build: show the engine on the chapter's worked examples.
cli=build/bin/layoutscope
echo "== tile layout, cell (5,6)";     $cli eval 'S[(4,2,2,4):(16,4,8,1)]' --shape 8,8 5,6
echo "== fragment, cell 43";           $cli eval 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]' --shape 8,8 43
echo "== SFA[64,2] with .warpx4";      $cli eval 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]' --shape 128,4 64,2
echo "== mesh (1,2,3), replica";       $cli eval 'S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]' --shape 2,4,8 1,2,3
echo "== SWIZZLE_128B fp16";           $cli swizzle --mode 128B --dtype f16 0 64 128
