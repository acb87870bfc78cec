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

from . import _engine, figures, live
from ._layout import ElementMapping, Finding, Hit, Layout, detect_format, formats
from .agent import Agent, AgentError, to_dataframe
from .errors import FeatureUnavailable, LayoutError
from .memory import BankAccess, SectorAccess, SwizzleAtom, SwizzledOffset, banks, sectors, swizzle

__version__ = "0.1.0"

#: True when this build binds the engine's format importers/exporters (Layout.from_format, Layout.to).
HAS_FORMATS: bool = bool(_engine.HAS_FORMATS)


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
    "Agent",
    "AgentError",
    "to_dataframe",
    "HAS_FORMATS",
]
