#!/usr/bin/env python3
"""Checks the shape of the source tree: no folder holds more than 20 source files, and no two folders include
each other (directly or through others: a folder-level include cycle).

    python3 tests/structure/folder_cycles.py [--root DIR] [--max-files N]

The file count covers every folder of the tree but tests/ and docs/ (each folder on its own, its subfolders
apart), where a source file is C, C++ or CUDA (.c .cc .cpp .h .hpp .cu .cuh, and templates such as .hpp.in),
TypeScript / JavaScript (.ts .tsx .js .mjs), Python (.py) or shell (.sh). The include cycles are looked for
between the folders under shared/, codegen/, agent/, cli/, wasm/ and web/src/, in their C++ and TypeScript files.
Folders named node_modules, dist, build, build-* or generated, and hidden ones, are skipped (installed or
generated, not written).

An include is `#include "..."`, resolved first beside the including file and then in the include folders of the
build (shared/include, agent, codegen), a header generated from a template (x.hpp from x.hpp.in) standing for its
template; in TypeScript an `import ... from '...'`, `export ... from '...'` or
`import('...')` of a relative path (a `.js` name stands for the `.ts` file beside it). An include that resolves
to no file of the tree (a system header, a generated file, an npm package) is no edge. Folder A depends on
folder B when a file of A includes a file of B; a cycle is a set of folders each reachable from the others.

Prints every finding (the folder with its count; each cycle with one include per edge) and exits 1 when there
is any, 0 otherwise. Python standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOTS = ("shared", "codegen", "agent", "cli", "wasm", "web/src")
INCLUDE_DIRS = ("shared/include", "agent", "codegen")
SKIP_DIRS = {"node_modules", "dist", "build", "generated", "__pycache__"}
CXX_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".cuh")
TS_SUFFIXES = (".ts", ".tsx", ".js", ".mjs")
OTHER_SUFFIXES = (".py", ".sh")
NOT_COUNTED = ("tests", "docs")
MAX_FILES = 20

CXX_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
TS_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}/[^'"]+)\1""", re.M)


def is_cxx(name: str) -> bool:
    base = name[:-3] if name.endswith(".in") else name
    return base.endswith(CXX_SUFFIXES)


def is_source(name: str) -> bool:
    return is_cxx(name) or name.endswith(TS_SUFFIXES)


def source_files(root: Path) -> list[Path]:
    """Every source file under the checked folders, relative to root."""
    out = []
    for top in ROOTS:
        base = root / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not skipped(d))
            for f in sorted(filenames):
                if is_source(f):
                    out.append((Path(dirpath) / f).relative_to(root))
    return out


def skipped(d: str) -> bool:
    return d in SKIP_DIRS or d.startswith(".") or d.startswith("build-")


def counted_files(root: Path) -> list[Path]:
    """Every source file the file count covers (the whole tree but tests/ and docs/), relative to root."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames if not skipped(d) and not (rel == Path(".") and d in NOT_COUNTED))
        for f in sorted(filenames):
            if is_source(f) or f.endswith(OTHER_SUFFIXES):
                out.append(rel / f)
    return out


def resolve_cxx(root: Path, src: Path, target: str, known: set[Path]) -> Path | None:
    for base in (src.parent, *map(Path, INCLUDE_DIRS)):
        p = Path(os.path.normpath(base / target))
        for c in (p, Path(str(p) + ".in")):  # a header the build generates from a template counts as it
            if c in known:
                return c
    return None


def resolve_ts(src: Path, target: str, known: set[Path]) -> Path | None:
    p = Path(os.path.normpath(src.parent / target))
    candidates = [p]
    if p.suffix in (".js", ".mjs"):
        candidates += [p.with_suffix(".ts"), p.with_suffix(".tsx")]
    candidates += [Path(str(p) + s) for s in (".ts", ".tsx", ".js")]
    candidates += [p / "index.ts"]
    for c in candidates:
        if c in known:
            return c
    return None


def folder_edges(root: Path, files: list[Path]) -> dict[Path, dict[Path, tuple[Path, Path]]]:
    """edges[A][B] = (a file of A, the file of B it includes): one example include per folder edge."""
    known = set(files)
    edges: dict[Path, dict[Path, tuple[Path, Path]]] = {}
    for f in files:
        text = (root / f).read_text(encoding="utf-8", errors="replace")
        if is_cxx(f.name):
            targets = [resolve_cxx(root, f, t, known) for t in CXX_INCLUDE.findall(text)]
        else:
            targets = [resolve_ts(f, m[1], known) for m in TS_IMPORT.findall(text)]
        for t in targets:
            if t is not None and t.parent != f.parent:
                edges.setdefault(f.parent, {}).setdefault(t.parent, (f, t))
    return edges


def cycles(edges: dict[Path, dict[Path, tuple[Path, Path]]]) -> list[list[Path]]:
    """The strongly connected components of more than one folder (Tarjan's algorithm), each sorted."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    out: list[list[Path]] = []
    counter = [0]

    def visit(v: Path) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    nodes = set(edges) | {w for ws in edges.values() for w in ws}
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def check(root: Path, max_files: int = MAX_FILES) -> list[str]:
    """Every finding as a line of text; empty when the tree is in shape."""
    files = source_files(root)
    findings = []
    counts: dict[Path, int] = {}
    for f in counted_files(root):
        counts[f.parent] = counts.get(f.parent, 0) + 1
    for folder, n in sorted(counts.items()):
        if n > max_files:
            findings.append(f"{folder.as_posix()}/: {n} source files (at most {max_files}); move some into a subfolder")
    edges = folder_edges(root, files)
    for comp in cycles(edges):
        members = set(comp)
        lines = [f"include cycle between folders {', '.join(c.as_posix() + '/' for c in comp)}:"]
        for a in comp:
            for b, (fa, fb) in sorted(edges.get(a, {}).items()):
                if b in members:
                    lines.append(f"  {a.as_posix()}/ -> {b.as_posix()}/  ({fa.as_posix()} includes {fb.as_posix()})")
        findings.append("\n".join(lines))
    return findings


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2], help="the repository's root")
    ap.add_argument("--max-files", type=int, default=MAX_FILES, help="most source files a folder may hold")
    args = ap.parse_args(argv)
    if not all((args.root / r).is_dir() for r in ROOTS[:1]):
        print(f"folder_cycles: {args.root} has no shared/ folder (give the repository's root with --root)")
        return 2
    findings = check(args.root, args.max_files)
    for f in findings:
        print(f"folder_cycles: {f}")
    n, m = len(counted_files(args.root)), len(source_files(args.root))
    print(
        f"folder_cycles: {len(findings)} finding{'' if len(findings) == 1 else 's'}: {n} source files counted "
        f"outside tests/ and docs/, {m} C++/TypeScript files checked for include cycles"
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
