#!/usr/bin/env bash
# Formatting and lint checks: clang-format (root .clang-format) on every C++/CUDA file, prettier (root
# .prettierrc.json) and eslint (root eslint.config.mjs) on the TypeScript and the Node suites, and the tree's shape
# (tests/structure/folder_cycles.py: at most 20 source files a folder, no include cycle between folders, with its
# own tests first). Prints what differs and exits non-zero on any finding; --fix rewrites the formatting instead. The npm tools live in tools/format/ (npm ci).
set -uo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = "--fix" ] && fix=1
bin=tools/format/node_modules/.bin
status=0

mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
if ((fix)); then
  clang-format -i "${cxx[@]}"
else
  n=$(clang-format --dry-run "${cxx[@]}" 2>&1 | grep -c 'warning:')
  echo "clang-format: $n places differ from .clang-format in ${#cxx[@]} files"
  if [ "$n" -gt 0 ]; then
    clang-format --dry-run "${cxx[@]}" 2>&1 | grep 'warning:' | cut -d: -f1 | sort | uniq -c | head -20
    status=1
  fi
fi

mapfile -t ts < <(git ls-files 'web/*.ts' 'tests/*.js' 'tests/*.mjs' 'web/scripts/*.mjs' 'web/*.config.ts' 'python/*.js' | grep -v '/generated/')
if ((fix)); then
  "$bin/prettier" --log-level warn --write "${ts[@]}"
else
  if "$bin/prettier" --check --log-level warn "${ts[@]}"; then echo "prettier: ${#ts[@]} files formatted"; else status=1; fi
fi
if "$bin/eslint" $( ((fix)) && echo --fix) --max-warnings 0 "${ts[@]}"; then echo "eslint: ${#ts[@]} files clean"; else status=1; fi

if ! python3 tests/structure/test_folder_cycles.py >/dev/null 2>&1; then
  python3 tests/structure/test_folder_cycles.py
  status=1
fi
python3 tests/structure/folder_cycles.py || status=1

if ((status)); then echo "0 passed, 1 failed";  else echo "1 passed, 0 failed"; fi
exit $status
