"""Notebook figures: a layout displays as the page's matching ``<ls-*>`` custom element, over a static SVG.

Every layout has a static picture that needs nothing running: ``_repr_svg_`` (and the content of the element in
``_repr_html_``) is an SVG grid of the logical shape, each cell labelled with its position on the layout's axes
(the engine's forward map; replica 0), so a notebook exported with ``jupyter nbconvert --to html`` shows the
figure with no server and no script. Where the page's module script ``layoutscope.js`` can be loaded, the
interactive element replaces it:

    >>> import layoutscope.figures as fig
    >>> fig.serve_bundle()            # web/dist of the checkout on a loopback port   # doctest: +SKIP
    >>> fig.use_bundle("layoutscope.js")     # or: a URL relative to an exported HTML page, or a docs site's

(``npm run build`` in ``web/`` writes ``web/dist/``; the script loads its engine, ``assets/layoutscope-*.wasm``,
from next to itself.) An exported page whose script is not there keeps the SVG.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import threading
from pathlib import Path
from typing import Dict, List, Optional, Tuple

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


def figure_html(tag: str, attrs: Dict[str, str], fallback: str = "", fallback_html: Optional[str] = None) -> str:
    """One element with its attributes and the script that defines it (when a bundle URL is set). The element's
    content (``fallback_html``, else ``fallback`` as text) is what shows where the element is not defined (no
    bundle, or an exported page without the script); a defined element draws in its shadow root instead."""
    if not tag.startswith("ls-") or not tag.replace("-", "").isalnum():
        raise ValueError(f"not a layoutscope element: {tag!r}")
    content = fallback_html if fallback_html is not None else f"<pre>{html.escape(fallback)}</pre>"
    attr_text = "".join(f' {k}="{html.escape(str(v), quote=True)}"' for k, v in attrs.items() if v is not None)
    body = f"<{tag}{attr_text}>{content}</{tag}>"
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
    return figure_html(tag, attrs, fallback_html=layout_svg(layout))


# The static picture: at most this many rows and columns of cells (a larger layout shows its top-left block).
SVG_MAX_ROWS = 32
SVG_MAX_COLS = 32
_CELL_W, _CELL_H, _TOP = 44, 26, 46


def _grid(shape: Tuple[int, ...]) -> Tuple[int, int]:
    """Rows and columns of the picture: the last dimension across, the others down (1-D: rows of 32)."""
    if len(shape) == 1:
        cols = min(shape[0], SVG_MAX_COLS)
        return -(-shape[0] // cols), cols
    rows = 1
    for d in shape[:-1]:
        rows *= d
    return rows, shape[-1]


def _fill(value: int) -> str:
    # a light colour per value of the first axis (dark text stays readable on it)
    return f"hsl({(value * 47) % 360}, 70%, 86%)"


def layout_svg(layout) -> str:
    """The layout as a static SVG: the logical shape as a grid (the last dimension across), each cell labelled
    with its position (the values of ``layout.axes`` in order, replica 0) and filled by the first axis's value.
    Only the drawn cells are mapped (at most ``SVG_MAX_ROWS`` x ``SVG_MAX_COLS``), each by the engine."""
    rows, cols = _grid(tuple(layout.shape))
    shown_rows, shown_cols = min(rows, SVG_MAX_ROWS), min(cols, SVG_MAX_COLS)
    axes: List[str] = layout.axes
    esc = functools.partial(html.escape, quote=True)
    caption = f"{layout.text}  ·  shape {' x '.join(map(str, layout.shape))}"
    legend = f"each cell: ({', '.join(axes)})" + (f", replica 0 of {layout.replicas}" if layout.replicas > 1 else "")
    if (shown_rows, shown_cols) != (rows, cols):
        legend += f"  ·  rows 0-{shown_rows - 1} of {rows}, columns 0-{shown_cols - 1} of {cols}"
    # monospace glyphs are about 0.6 em wide: the caption (13 px) and the legend (11 px) fit
    width = int(max(shown_cols * _CELL_W, 8 * len(caption), 6.7 * len(legend))) + 2
    height = _TOP + shown_rows * _CELL_H + 2
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="layoutscope-figure" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, monospace" role="img" '
        f'aria-label="{esc(caption)}">',
        f"<title>{esc(caption)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="1" y="16" font-size="13" fill="#111111">{esc(caption)}</text>',
        f'<text x="1" y="34" font-size="11" fill="#333333">{esc(legend)}</text>',
    ]
    for r in range(shown_rows):
        for c in range(shown_cols):
            x = r * cols + c
            if x >= layout.size:
                continue
            m = layout.map(x)
            p = m.positions[0]
            values = [p[a] for a in axes]
            px, py = 1 + c * _CELL_W, _TOP + r * _CELL_H
            label = ",".join(map(str, values))
            size = 11 if len(label) <= 6 else max(6, int(11 * 6 / len(label)))
            where = ", ".join(f"{a}={v}" for a, v in zip(axes, values))
            coord = ", ".join(map(str, m.coord))
            out.append(
                f'<g><title>{esc(f"element {x} ({coord}): {where}")}</title>'
                f'<rect x="{px}" y="{py}" width="{_CELL_W}" height="{_CELL_H}" fill="{_fill(values[0]) if values else "#eeeeee"}" '
                f'stroke="#777777" stroke-width="0.5"/>'
                f'<text x="{px + _CELL_W / 2}" y="{py + _CELL_H / 2 + 4}" font-size="{size}" text-anchor="middle" '
                f'fill="#111111">{esc(label)}</text></g>'
            )
    out.append("</svg>")
    return "".join(out)


class Figure:
    """Any ``<ls-*>`` element for a notebook cell: ``Figure("ls-bank-conflicts", selection="C:3")``,
    ``Figure("ls-swizzle-atom", swizzle="128B", dtype="f16")`` (attributes: docs/embedding.md)."""

    def __init__(self, tag: str, **attrs: str) -> None:
        self.tag = tag
        self.attrs = {k.replace("_", "-"): str(v) for k, v in attrs.items()}

    def _repr_html_(self) -> str:
        # no static picture of the chapter's own figures: without the script the element names itself
        return figure_html(self.tag, self.attrs, fallback=self.tag)

    def __repr__(self) -> str:
        return f"Figure({self.tag!r}, {self.attrs!r})"
