"""Notebook figures: a layout displays as the page's matching ``<ls-*>`` custom element.

The elements come from the page's module script ``layoutscope.js`` (``npm run build`` in ``web/`` writes
``web/dist/``; it loads its engine, ``assets/layoutscope-*.wasm``, from next to itself). A notebook needs the
script at a URL its browser can load:

    >>> import layoutscope.figures as fig
    >>> fig.serve_bundle()            # web/dist of the checkout on a loopback port   # doctest: +SKIP
    >>> fig.use_bundle("layoutscope.js")     # or: a URL relative to an exported HTML page, or a docs site's

Then ``Layout(...)`` as the last expression of a cell draws the figure (``_repr_html_``); exported with
``jupyter nbconvert --to html`` the figure is in the page too. The element's own text is a fallback shown
where the script cannot run.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import threading
from pathlib import Path
from typing import Dict, Optional, Tuple

_bundle_url: Optional[str] = os.environ.get("LAYOUTSCOPE_BUNDLE_URL")
_server: Optional[http.server.ThreadingHTTPServer] = None


def use_bundle(url: Optional[str]) -> None:
    """The URL of ``layoutscope.js`` that figures load (None: figures carry only their fallback text)."""
    global _bundle_url
    _bundle_url = url


def bundle_url() -> Optional[str]:
    return _bundle_url


def find_dist(start: Optional[Path] = None) -> Optional[Path]:
    """``web/dist`` of a layoutscope checkout: ``$LAYOUTSCOPE_WEB_DIST``, else the first ``web/dist`` with a
    ``layoutscope.js`` found from ``start`` (the working directory) upwards."""
    env = os.environ.get("LAYOUTSCOPE_WEB_DIST")
    if env:
        return Path(env) if (Path(env) / "layoutscope.js").is_file() else None
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "web" / "dist" / "layoutscope.js").is_file():
            return d / "web" / "dist"
    return None


class _Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        # The notebook's page (another origin) imports the module and fetches the .wasm: both need CORS.
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # a notebook's output is not a server log
        pass


_Handler.extensions_map = {**_Handler.extensions_map, ".js": "text/javascript", ".wasm": "application/wasm"}


def serve_bundle(dist: Optional[str] = None, port: int = 0) -> str:
    """Serve ``web/dist`` on 127.0.0.1 (a free port unless given) from a background thread and make figures
    load the bundle from it; returns the bundle's URL. A second call returns the running server's URL."""
    global _server
    if _server is None:
        root = Path(dist) if dist else find_dist()
        if root is None or not (root / "layoutscope.js").is_file():
            raise FileNotFoundError("no web/dist/layoutscope.js: build the page (scripts/build.sh web) or pass dist=")
        handler = functools.partial(_Handler, directory=str(root))
        _server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        threading.Thread(target=_server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{_server.server_address[1]}/layoutscope.js"
    use_bundle(url)
    return url


def stop_server() -> None:
    global _server
    if _server is not None:
        _server.shutdown()
        _server.server_close()
        _server = None


def element_for(layout) -> Tuple[str, Dict[str, str]]:
    """The ``<ls-*>`` element that draws a layout, by the axes it names: lanes and register slots ->
    ``ls-fragment``; TMEM lanes/columns -> ``ls-scale-factors``; memory only, two dimensions ->
    ``ls-tile-layout``; anything else -> ``ls-playground``."""
    axes = set(layout.axes)
    attrs = {"layout": layout.text, "shape": ",".join(str(s) for s in layout.shape)}
    if axes and axes <= {"laneid", "reg"} and "laneid" in axes and len(layout.shape) == 2:
        return "ls-fragment", attrs
    if {"TLane", "TCol"} <= axes and len(layout.shape) == 2:
        return "ls-scale-factors", attrs
    if axes <= {"m"} and len(layout.shape) == 2:
        return "ls-tile-layout", attrs
    return "ls-playground", attrs


def figure_html(tag: str, attrs: Dict[str, str], fallback: str = "") -> str:
    """One element with its attributes and the script that defines it (when a bundle URL is set)."""
    if not tag.startswith("ls-") or not tag.replace("-", "").isalnum():
        raise ValueError(f"not a layoutscope element: {tag!r}")
    attr_text = "".join(f' {k}="{html.escape(str(v), quote=True)}"' for k, v in attrs.items() if v is not None)
    body = f"<{tag}{attr_text}><pre>{html.escape(fallback)}</pre></{tag}>"
    if _bundle_url is None:
        return body
    # A classic script with a dynamic import: runs in JupyterLab/Notebook outputs and in exported HTML alike.
    # import() reads "layoutscope.js" as a package name; a path relative to the page needs "./".
    url = _bundle_url
    if "://" not in url and not url.startswith(("/", "./", "../")):
        url = "./" + url
    loader = f"<script>import({json.dumps(url)});</script>"
    return loader + body


def layout_html(layout, selection: Optional[str] = None) -> str:
    tag, attrs = element_for(layout)
    if selection:
        attrs["selection"] = selection
    return figure_html(tag, attrs, fallback=f"{layout.text}  (shape {'x'.join(map(str, layout.shape))})")


class Figure:
    """Any ``<ls-*>`` element for a notebook cell: ``Figure("ls-bank-conflicts", selection="C:3")``,
    ``Figure("ls-swizzle-atom", swizzle="128B", dtype="f16")`` (attributes: docs/embedding.md)."""

    def __init__(self, tag: str, **attrs: str) -> None:
        self.tag = tag
        self.attrs = {k.replace("_", "-"): str(v) for k, v in attrs.items()}

    def _repr_html_(self) -> str:
        return figure_html(self.tag, self.attrs, fallback=self.tag)

    def __repr__(self) -> str:
        return f"Figure({self.tag!r}, {self.attrs!r})"
