#!/usr/bin/env python3
"""Tests of folder_cycles.py on small trees made here: each finding appears exactly when the tree has it.

    python3 tests/structure/test_folder_cycles.py
"""

from __future__ import annotations

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import folder_cycles  # noqa: E402


def make_tree(files: dict[str, str]) -> tempfile.TemporaryDirectory:
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    (root / "shared").mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return tmp


class FolderCycles(unittest.TestCase):
    def findings(self, files: dict[str, str], **kw) -> list[str]:
        with make_tree(files) as d:
            return folder_cycles.check(Path(d), **kw)

    def test_clean_tree(self):
        # one-way includes: agent/bench/kinds -> agent/bench -> shared/include
        self.assertEqual(
            self.findings({
                "shared/include/layoutscope/layout.hpp": "",
                "agent/bench/benchmark.hpp": '#include "layoutscope/layout.hpp"\n',
                "agent/bench/kinds/run.cpp": '#include "bench/benchmark.hpp"\n',
                "web/src/core/engine.ts": "export const x = 1;\n",
                "web/src/figures/a.ts": "import { x } from '../core/engine.js';\n",
            }),
            [],
        )

    def test_twenty_files_pass_twenty_one_fail(self):
        twenty = {f"cli/c{i}.cpp": "" for i in range(20)}
        self.assertEqual(self.findings(twenty), [])
        found = self.findings({**twenty, "cli/c20.hpp.in": ""})
        self.assertEqual(len(found), 1)
        self.assertIn("cli/: 21 source files", found[0])

    def test_files_that_are_not_sources_do_not_count(self):
        self.assertEqual(self.findings({**{f"cli/c{i}.cpp": "" for i in range(20)}, "cli/README.md": "",
                                        "cli/x.json": ""}), [])

    def test_every_folder_but_tests_and_docs_counts(self):
        # Python and shell count too, in any folder (python/, scripts/, bench/); tests/ and docs/ never do
        found = self.findings({f"python/layoutscope/m{i}.py": "" for i in range(21)})
        self.assertEqual(len(found), 1)
        self.assertIn("python/layoutscope/: 21 source files", found[0])
        self.assertIn("scripts/: 21 source files", self.findings({f"scripts/s{i}.sh": "" for i in range(21)})[0])
        self.assertEqual(self.findings({**{f"tests/agent/t{i}.js": "" for i in range(25)},
                                        **{f"docs/d{i}.py": "" for i in range(25)},
                                        **{f"web/node_modules/x/m{i}.js": "" for i in range(25)},
                                        **{f"build-wasm/g{i}.cpp": "" for i in range(25)}}), [])

    def test_subfolders_count_apart(self):
        files = {f"agent/bench/f{i}.cpp": "" for i in range(15)}
        files.update({f"agent/bench/request/r{i}.cpp": "" for i in range(15)})
        self.assertEqual(self.findings(files), [])

    def test_cxx_cycle_between_two_folders(self):
        found = self.findings({
            "agent/bench/params.cpp": '#include "bench/kinds/convert_run.hpp"\n',
            "agent/bench/engine_calls.hpp": "",
            "agent/bench/kinds/convert_run.hpp": '#include "bench/engine_calls.hpp"\n',
        })
        self.assertEqual(len(found), 1)
        self.assertIn("agent/bench/, agent/bench/kinds/", found[0])
        self.assertIn("agent/bench/params.cpp includes agent/bench/kinds/convert_run.hpp", found[0])
        self.assertIn("agent/bench/kinds/convert_run.hpp includes agent/bench/engine_calls.hpp", found[0])

    def test_cycle_through_three_folders(self):
        found = self.findings({
            "agent/http/a.hpp": '#include "jobs/b.hpp"\n',
            "agent/jobs/b.hpp": '#include "bench/c.hpp"\n',
            "agent/bench/c.hpp": '#include "http/a.hpp"\n',
        })
        self.assertEqual(len(found), 1)
        self.assertIn("agent/bench/, agent/http/, agent/jobs/", found[0])

    def test_include_beside_the_file_resolves_there(self):
        # "detail.hpp" beside the includer is the same folder: no edge, no cycle
        self.assertEqual(self.findings({
            "shared/src/formats/detail.hpp": "",
            "shared/src/formats/cute.cpp": '#include "detail.hpp"\n',
        }), [])

    def test_generated_header_stands_for_its_template(self):
        found = self.findings({
            "agent/bench/request/limits.hpp.in": "",
            "agent/bench/request/params.cpp": '#include "bench/kinds/run.hpp"\n',
            "agent/bench/kinds/run.hpp": '#include "bench/request/limits.hpp"\n',
        })
        self.assertEqual(len(found), 1)
        self.assertIn("agent/bench/kinds/, agent/bench/request/", found[0])

    def test_ts_cycle(self):
        found = self.findings({
            "web/src/bench/panel.ts": "import { f } from '../figures/plot.js';\nexport const p = 1;\n",
            "web/src/figures/plot.ts": "import type { P } from '../bench/panel';\nexport const f = 2;\n",
        })
        self.assertEqual(len(found), 1)
        self.assertIn("web/src/bench/, web/src/figures/", found[0])

    def test_ts_dynamic_and_reexport(self):
        found = self.findings({
            "web/src/a/x.ts": "export * from '../b/y.js';\n",
            "web/src/b/y.ts": "const m = await import('../a/x.js');\n",
        })
        self.assertEqual(len(found), 1)

    def test_packages_and_system_headers_are_no_edges(self):
        self.assertEqual(self.findings({
            "web/src/a/x.ts": "import { html } from 'lit';\n",
            "agent/http/api.cpp": "#include <httplib.h>\n#include \"nlohmann/json.hpp\"\n",
        }), [])


if __name__ == "__main__":
    unittest.main()
