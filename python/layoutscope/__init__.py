"""layoutscope: GPU data layouts in the chapter's notation, from Python.

    >>> import layoutscope
    >>> L = layoutscope.Layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", shape=(8, 8))
    >>> L[5, 3]
    [{'laneid': 21, 'reg': 1}]

One C++ engine does the math (the extension module ``layoutscope._engine``); the CLI, the page and the agent
ask the same engine. Modules: :mod:`layoutscope.memory` (banks, sectors, swizzle), :mod:`layoutscope.live`
(layouts from JAX, PyTorch DTensor, Triton, CuTe DSL objects), :mod:`layoutscope.agent` (the benchmark
agent's HTTP API), :mod:`layoutscope.figures` (notebook figures).
"""

from . import _engine, figures, live, tmem
from ._layout import ElementMapping, Finding, Hit, Layout, detect_format, formats
from .agent import Agent, AgentError, to_dataframe
from .errors import FeatureUnavailable, LayoutError, LayoutIndexError
from .memory import BankAccess, SectorAccess, SwizzleAtom, SwizzledOffset, banks, sectors, swizzle

__version__ = "0.1.0"

#: True when this build binds the engine's format importers/exporters (Layout.from_format, Layout.to).
HAS_FORMATS: bool = bool(_engine.HAS_FORMATS)


def algebra(op: str, *args, syntax: str = "cute") -> dict:
    """CuTe's layout algebra on layouts written in CuTe's syntax (``syntax="cute"``) or the chapter's
    (``"axe"``); the answer in both, with size and cosize.

        >>> algebra("composition", "(20):(2)", "(5,4):(4,1)")["result"]
        '(5,4):(8,2)'
        >>> algebra("complement", "(4):(2)", 24)["result"]
        '(2,3):(1,8)'

    Arguments are layouts, shapes ``"(6,20)"``, integers, or tilers ``"[3:4, 8:2]"``. Errors are
    :class:`LayoutError` naming the argument ("argument 2") and the column in it."""
    if not HAS_FORMATS:
        raise FeatureUnavailable("this build of the engine has no layout algebra")
    return _engine.algebra(op, [str(a) for a in args], syntax)


def algebra_operations() -> list:
    """The operations :func:`algebra` accepts."""
    return list(_engine.algebra_operations()) if HAS_FORMATS else []


def hardware_axes() -> dict:
    """The axes whose range :meth:`Layout.check` enforces: ``{name: (limit, meaning)}``; limit 0 means
    non-negative without an upper bound."""
    return {a["name"]: (a["limit"], a["meaning"]) for a in _engine.hardware_axes()}


__all__ = [
    "Layout",
    "ElementMapping",
    "Hit",
    "Finding",
    "LayoutError",
    "LayoutIndexError",
    "FeatureUnavailable",
    "banks",
    "sectors",
    "swizzle",
    "BankAccess",
    "SectorAccess",
    "SwizzleAtom",
    "SwizzledOffset",
    "detect_format",
    "formats",
    "hardware_axes",
    "algebra",
    "algebra_operations",
    "Agent",
    "AgentError",
    "to_dataframe",
    "HAS_FORMATS",
]
