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
    assert "<pre>S[(2,4):(4,1)] + O[5]  (shape 2x4)</pre>" in html
    figures.use_bundle("layoutscope.js")  # next to an exported page: import() needs it as a relative path
    assert Layout("S[8:1]")._repr_html_().startswith('<script>import("./layoutscope.js");</script>')
    f = figures.Figure("ls-bank-conflicts", layout='S[(32,32):(32,1)]"><x', selection="C:3")
    assert 'layout="S[(32,32):(32,1)]&quot;&gt;&lt;x"' in f._repr_html_()
    with pytest.raises(ValueError):
        figures.figure_html("script", {})


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
