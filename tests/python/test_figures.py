"""Notebook figures: the element a layout chooses, its HTML, and the figure in a real nbconvert HTML export
opened in headless Chromium (skipped with the reason when the page bundle, nbconvert, a Jupyter kernel,
Chromium or playwright-core is missing)."""

import functools
import http.server
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from layoutscope import Layout, figures

FRAGMENT = "S[(8,4,2):(4@laneid,1@laneid,1@reg)]"


@pytest.fixture(autouse=True)
def no_bundle():
    before = figures.bundle_url()
    figures.use_bundle(None)
    yield
    figures.use_bundle(before)


@pytest.mark.parametrize(
    "text, shape, tag",
    [
        (FRAGMENT, (8, 8), "ls-fragment"),
        ("S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]", (128, 4), "ls-scale-factors"),
        ("S[(4,2,2,4):(16,4,8,1)]", (8, 8), "ls-tile-layout"),
        ("Swizzle<3,0,3> o S[(8,8):(8,1)]", (8, 8), "ls-tile-layout"),
        ("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]", (2, 4, 8), "ls-playground"),
    ],
)
def test_each_layout_picks_its_figure(text, shape, tag):
    L = Layout(text, shape=shape)
    html = L._repr_html_()
    assert html.startswith(f"<{tag} ") and html.endswith(f"</{tag}>")
    assert f'shape="{",".join(map(str, shape))}"' in html


def test_attributes_are_escaped_and_the_script_loads_the_bundle():
    figures.use_bundle("https://docs.example/static/layoutscope.js")
    html = Layout("S[(2,4):(4,1)] + O[5@m]", shape=(2, 4))._repr_html_()
    assert html.startswith('<script>import("https://docs.example/static/layoutscope.js");</script>')
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="layoutscope-figure"' in html  # the static picture inside
    figures.use_bundle("layoutscope.js")  # next to an exported page: import() needs it as a relative path
    assert Layout("S[8:1]")._repr_html_().startswith('<script>import("./layoutscope.js");</script>')
    f = figures.Figure("ls-bank-conflicts", layout='S[(32,32):(32,1)]"><x', selection="C:3")
    assert 'layout="S[(32,32):(32,1)]&quot;&gt;&lt;x"' in f._repr_html_()
    with pytest.raises(ValueError):
        figures.figure_html("script", {})


def _cells(svg: str) -> dict:
    """{logical coordinate: label} of the static SVG, read from each cell's tooltip and text."""
    import re

    found = re.findall(r"<title>element (\d+) \(([\d, ]+)\): [^<]*</title><rect [^>]*/><text [^>]*>([^<]*)</text>", svg)
    return {tuple(int(c) for c in coord.split(",")): label for _, coord, label in found}


def test_the_static_svg_labels_each_cell_with_its_position():
    # fragment: (5, 3) -> lane 21, slot 1 (the chapter); (0, 0) -> lane 0, slot 0; (7, 7) -> lane 31, slot 1
    L = Layout(FRAGMENT, shape=(8, 8))
    svg = L._repr_svg_()
    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    cells = _cells(svg)
    assert len(cells) == 64
    assert cells[(5, 3)] == "21,1" and cells[(0, 0)] == "0,0" and cells[(7, 7)] == "31,1"
    assert "each cell: (laneid, reg)" in svg
    # the 8x8 in 2x4 tiles: (5, 6) -> offset 46, row 1 -> 4 5 6 7 12 13 14 15
    tiles = _cells(Layout("S[(4,2,2,4):(16,4,8,1)]", shape=(8, 8))._repr_svg_())
    assert tiles[(5, 6)] == "46"
    assert [tiles[(1, c)] for c in range(8)] == ["4", "5", "6", "7", "12", "13", "14", "15"]
    # a large layout: its top-left 32 x 32 block, said so
    big = Layout("S[(1024,1024):(1024,1)]")._repr_svg_()
    assert len(_cells(big)) == 32 * 32 and "rows 0-31 of 32768, columns 0-31 of 32" in big
    big2 = Layout("S[(1024,1024):(1024,1)]", shape=(1024, 1024))._repr_svg_()
    assert _cells(big2)[(31, 31)] == str(31 * 1024 + 31) and "rows 0-31 of 1024, columns 0-31 of 1024" in big2
    # replicated: replica 0, said so
    mesh = Layout("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]", shape=(2, 4, 8))._repr_svg_()
    assert "replica 0 of 2" in mesh and _cells(mesh)[(1, 2, 3)] == "1,19,0"  # gpuid_y 1, m 19, gpuid_x 0


def test_an_exported_notebook_shows_the_figure_without_a_server_or_script(tmp_path, root, monkeypatch):
    """nbconvert's HTML of a notebook that loads no bundle, opened from disk (file://, no server): the static SVG
    is on the page and visible, cell (5, 3) reading lane 21, slot 1."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat missing (Debian: python3-nbconvert)")
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert missing (Debian: python3-nbconvert)")
    pytest.importorskip("ipykernel", reason="no Jupyter kernel to execute the notebook (Debian: python3-ipykernel)")
    node = _browser(root)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"import layoutscope\nlayoutscope.Layout({FRAGMENT!r}, shape=(8, 8))")]
    from nbconvert.preprocessors import ExecutePreprocessor

    _kernel_sees_this_package(monkeypatch)
    ExecutePreprocessor(timeout=120, kernel_name="python3").preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    data = nb.cells[0].outputs[0]["data"]
    assert "image/svg+xml" in data and "text/html" in data
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    page = tmp_path / "notebook.html"
    page.write_text(body)
    script = """
const { createRequire } = require('node:module');
const req = createRequire(process.argv[1]);
const { chromium } = req('playwright-core');
(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  const page = await browser.newPage();
  await page.goto(process.argv[2]);
  const svg = page.locator('svg.layoutscope-figure').first();
  const box = await svg.boundingBox();
  const cell = await svg.locator('g', { hasText: '21,1' }).first().locator('title').textContent();
  console.log(JSON.stringify({ width: box && box.width, visible: await svg.isVisible(), cell }));
  await browser.close();
})();
"""
    run = subprocess.run([node, "-e", script, str(root / "web" / "package.json"), page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["visible"] and result["width"] > 300
    assert result["cell"] == "element 43 (5, 3): laneid=21, reg=1"


def _dist(root: Path) -> Path:
    d = Path(os.environ.get("LAYOUTSCOPE_WEB_DIST", root / "web" / "dist"))
    if not (d / "layoutscope.js").is_file():
        pytest.skip(f"the page bundle is not built ({d}/layoutscope.js; scripts/build.sh wasm web)")
    return d


def _browser(root: Path) -> str:
    node, chromium = shutil.which("node"), os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not node or not os.access(chromium, os.X_OK):
        pytest.skip("node or Chromium missing")
    if not (root / "web" / "node_modules" / "playwright-core").is_dir() and not os.environ.get("NODE_PATH"):
        pytest.skip("playwright-core is not installed in web/node_modules (scripts/setup.sh)")
    return node


def _kernel_sees_this_package(monkeypatch) -> None:
    """The kernel imports the same package this test does, wherever it was installed."""
    package_parent = str(Path(figures.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def _read_figure(node: str, root: Path, url: str, *mode: str) -> dict:
    run = subprocess.run([node, str(root / "tests" / "python" / "notebook_figure.mjs"), url, *mode],
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def _assert_fragment_drawn(result: dict) -> None:
    assert result.get("defined"), result
    assert result["layout"] == FRAGMENT
    assert result["cells"] >= 64  # one per logical element of the 8x8 tile
    # The figure's own reading of the selected cell: the chapter's lane 21, slot 1.
    assert "cell 43 (5, 3): lane 21, slot 1" in result["live"], result
    assert not result["errors"], result["errors"]


def test_figure_in_an_nbconvert_html_export_draws_in_chromium(tmp_path, root, monkeypatch):
    dist = _dist(root)
    nbformat = pytest.importorskip("nbformat", reason="nbformat missing (Debian: python3-nbconvert)")
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert missing (Debian: python3-nbconvert)")
    pytest.importorskip("ipykernel", reason="no Jupyter kernel to execute the notebook (Debian: python3-ipykernel)")
    node = _browser(root)

    # The notebook a reader writes: the bundle next to the exported page, a layout as a cell's value.
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import layoutscope\nlayoutscope.figures.use_bundle('layoutscope.js')"),
        nbformat.v4.new_code_cell(f"layoutscope.Layout({FRAGMENT!r}, shape=(8, 8))"),
    ]
    from nbconvert.preprocessors import ExecutePreprocessor

    _kernel_sees_this_package(monkeypatch)
    ExecutePreprocessor(timeout=120, kernel_name="python3").preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    outputs = nb.cells[1].outputs
    assert outputs and "text/html" in outputs[0]["data"], outputs
    assert "<ls-fragment" in outputs[0]["data"]["text/html"]
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    (tmp_path / "notebook.html").write_text(body)
    shutil.copy(dist / "layoutscope.js", tmp_path / "layoutscope.js")
    if (dist / "engine-worker.js").is_file():
        shutil.copy(dist / "engine-worker.js", tmp_path / "engine-worker.js")
    shutil.copytree(dist / "assets", tmp_path / "assets")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = _read_figure(node, root, f"http://127.0.0.1:{server.server_address[1]}/notebook.html")
    finally:
        server.shutdown()
        server.server_close()
    _assert_fragment_drawn(result)


def test_figure_in_a_running_jupyter_notebook(tmp_path, root, monkeypatch):
    """Jupyter Notebook itself: the server on a free loopback port, the notebook opened in Chromium, every
    cell run; the kernel serves web/dist (figures.serve_bundle) and the output cell draws the figure."""
    dist = _dist(root)
    nbformat = pytest.importorskip("nbformat", reason="nbformat missing (Debian: python3-nbconvert)")
    pytest.importorskip("notebook", reason="Jupyter Notebook is not installed (Debian: jupyter-notebook)")
    pytest.importorskip("ipykernel", reason="no Jupyter kernel (Debian: python3-ipykernel)")
    node = _browser(root)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(f"import layoutscope\nlayoutscope.figures.serve_bundle({str(dist)!r})"),
        nbformat.v4.new_code_cell(f"layoutscope.Layout({FRAGMENT!r}, shape=(8, 8))"),
    ]
    nbformat.write(nb, str(tmp_path / "figure.ipynb"))
    _kernel_sees_this_package(monkeypatch)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(16)
    server = subprocess.Popen(
        [sys.executable, "-m", "notebook", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         "--port-retries=0", f"--NotebookApp.token={token}", f"--notebook-dir={tmp_path}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(f"jupyter notebook exited: {server.stderr.read()}")
                time.sleep(0.3)
        result = _read_figure(node, root, f"http://127.0.0.1:{port}/notebooks/figure.ipynb?token={token}", "run")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    _assert_fragment_drawn(result)



def test_serve_bundle_serves_the_script_and_wasm_with_cors(tmp_path):
    import urllib.request

    (tmp_path / "assets").mkdir()
    (tmp_path / "layoutscope.js").write_text("export {};\n")
    (tmp_path / "assets" / "engine.wasm").write_bytes(b"\0asm\1\0\0\0")
    try:
        url = figures.serve_bundle(str(tmp_path))
        assert url.startswith("http://127.0.0.1:") and url.endswith("/layoutscope.js")
        assert figures.bundle_url() == url and figures.serve_bundle() == url  # one server per process
        with urllib.request.urlopen(url) as r:
            assert r.headers["Access-Control-Allow-Origin"] == "*"
            assert r.headers["Content-Type"].startswith("text/javascript") and r.read() == b"export {};\n"
        with urllib.request.urlopen(url.replace("layoutscope.js", "assets/engine.wasm")) as r:
            assert r.headers["Content-Type"] == "application/wasm"
    finally:
        figures.stop_server()
    with pytest.raises(FileNotFoundError, match="layoutscope.js"):
        figures.serve_bundle(str(tmp_path / "assets"))
