"""docs/embedding.md's recipes for MkDocs and Sphinx, as written there: each code block of the section is put into
a tiny site in a temporary folder and built with the Debian packages scripts/setup.sh installs (mkdocs,
mkdocs-material, python3-sphinx, furo); every page of the output must load layoutscope.js as a module script at a
path that resolves from that page, and keep the <ls-*> element. Skipped, with the reason, where a tool is missing."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EMBEDDING = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
# a stand-in for the built module: only its path matters here
MODULE = "export {};\n"


def _mkdocs_themes() -> set:
    """The themes the mkdocs command finds (Debian's keeps its themes in a folder mkdocs puts on sys.path)."""
    code = "import mkdocs.utils; print(' '.join(mkdocs.utils.get_theme_names()))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return set(run.stdout.split())


def _section(title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", EMBEDDING, re.M | re.S)
    assert m, f"docs/embedding.md has no section '## {title}'"
    return m.group(1)


def _blocks(section: str) -> dict:
    """{language: [code, ...]} of the fenced blocks in a section."""
    out: dict = {}
    for lang, code in re.findall(r"^```(\w*)\n(.*?)^```", section, re.M | re.S):
        out.setdefault(lang, []).append(code)
    return out


def _layoutscope_scripts(html: str) -> list:
    """(src, is a module) of each <script> tag that loads layoutscope.js."""
    tags = [t for t in re.findall(r"<script\b[^>]*>", html) if "layoutscope.js" in t]
    return [(re.search(r'src="([^"]*)"', t).group(1), 'type="module"' in t) for t in tags]


def _check_page(page: Path, site: Path, element: str) -> None:
    html = page.read_text(encoding="utf-8")
    scripts = _layoutscope_scripts(html)
    assert len(scripts) == 1 and scripts[0][1], f"{page}: one module script of layoutscope.js, found {scripts}"
    src = scripts[0][0]
    target = (page.parent / src.split("?")[0]).resolve()
    assert target.is_file() and target.read_text() == MODULE, f"{page}: {src} does not resolve to the module"
    assert element in html, f"{page}: the element is not in the page"


def test_mkdocs_recipe_builds_and_every_page_loads_the_module(tmp_path):
    mkdocs = shutil.which("mkdocs")
    if not mkdocs:
        pytest.skip("mkdocs is not installed (Debian: mkdocs; scripts/setup.sh)")
    blocks = _blocks(_section("MkDocs (Material)"))
    config, = blocks["yaml"]
    override, = blocks["html"]
    page, = blocks["markdown"]
    if "name: material" in config and "material" not in _mkdocs_themes():
        pytest.skip("mkdocs-material is not installed (Debian: mkdocs-material)")
    site = tmp_path / "site-src"
    (site / "docs" / "layoutscope").mkdir(parents=True)
    (site / "docs" / "layoutscope" / "layoutscope.js").write_text(MODULE)
    (site / "docs" / "index.md").write_text("# Layouts\n\n" + page)
    (site / "docs" / "guide").mkdir()
    (site / "docs" / "guide" / "fragments.md").write_text("# Fragments\n\n" + page)
    (site / "mkdocs.yml").write_text("site_name: Layouts\n" + config)
    overrides = re.search(r"custom_dir:\s*(\S+)", config).group(1)
    (site / overrides).mkdir()
    (site / overrides / "main.html").write_text(override)
    run = subprocess.run([mkdocs, "build", "--strict", "-q"], cwd=site, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    element = '<ls-fragment layout="S[(8,4,2):(4@laneid,1@laneid,1@reg)]" shape="8,8" selection="L:43"></ls-fragment>'
    pages = [site / "site" / "index.html", site / "site" / "guide" / "fragments" / "index.html"]
    for p in pages:
        _check_page(p, site / "site", element)


def test_mkdocs_recipe_also_works_with_the_plain_mkdocs_theme(tmp_path):
    mkdocs = shutil.which("mkdocs")
    if not mkdocs:
        pytest.skip("mkdocs is not installed (Debian: mkdocs; scripts/setup.sh)")
    blocks = _blocks(_section("MkDocs (Material)"))
    config = blocks["yaml"][0].replace("name: material", "name: mkdocs")
    site = tmp_path / "plain"
    (site / "docs" / "layoutscope").mkdir(parents=True)
    (site / "docs" / "layoutscope" / "layoutscope.js").write_text(MODULE)
    (site / "docs" / "index.md").write_text("# Layouts\n\n" + blocks["markdown"][0])
    (site / "mkdocs.yml").write_text("site_name: Layouts\n" + config)
    (site / "overrides").mkdir()
    (site / "overrides" / "main.html").write_text(blocks["html"][0])
    run = subprocess.run([mkdocs, "build", "-q"], cwd=site, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    _check_page(site / "site" / "index.html", site / "site", "<ls-fragment ")


def test_sphinx_recipe_builds_and_every_page_loads_the_module(tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (Debian: python3-sphinx)")
    pytest.importorskip("furo", reason="furo is not installed (Debian: furo)")
    blocks = _blocks(_section("Sphinx"))
    conf, = blocks["python"]
    rst = blocks["rst"][0]
    src = tmp_path / "src"
    (src / "_static" / "layoutscope").mkdir(parents=True)
    (src / "_static" / "layoutscope" / "layoutscope.js").write_text(MODULE)
    (src / "conf.py").write_text('project = "Layouts"\nhtml_theme = "furo"\n' + conf)
    (src / "index.rst").write_text("Layouts\n=======\n\n.. toctree::\n\n   guide/banks\n\n" + rst)
    (src / "guide").mkdir()
    (src / "guide" / "banks.rst").write_text("Banks\n=====\n\n" + rst)
    out = tmp_path / "html"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(src), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    for p in (out / "index.html", out / "guide" / "banks.html"):
        _check_page(p, out, '<ls-bank-conflicts selection="C:3"></ls-bank-conflicts>')
