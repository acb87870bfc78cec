"""The Layout value: a layout in the chapter's notation bound to a logical shape.

Every number comes from the C++ engine (``layoutscope._engine``); this module only shapes the answers into
Python values.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _engine
from .errors import FeatureUnavailable, LayoutError, LayoutIndexError

Position = Dict[str, int]
ShapeLike = Union[Sequence[int], str, int, None]
MeshLike = Union[Mapping[str, int], Sequence[Tuple[str, int]], None]


@dataclass(frozen=True)
class ElementMapping:
    """Where one logical element lives: the engine's forward map with its derivation."""

    index: int  # flat logical index x, row-major over the shape
    coord: Tuple[int, ...]  # x as a coordinate of the logical shape
    split: Tuple[int, ...]  # x split over the shard extents, last extent fastest
    positions: List[Position]  # one per distinct replica, sorted
    derivation: str  # the steps as one line of text


@dataclass(frozen=True)
class Hit:
    """One (element, replica) found by :meth:`Layout.inverse`."""

    index: int
    coord: Tuple[int, ...]
    replica: int
    position: Position


@dataclass(frozen=True)
class Finding:
    """One result of :meth:`Layout.check`: ``severity`` is ``"error"``, ``"warning"`` or ``"info"``."""

    severity: str
    code: str  # size-mismatch, aliasing, hardware-range, negative-position, swizzle-* ...
    message: str
    where: str  # "mode 2", "axis TLane", "swizzle"


def _shape(shape: ShapeLike) -> Optional[List[int]]:
    if shape is None:
        return None
    if isinstance(shape, str):
        return list(_engine.parse_shape(shape))
    if isinstance(shape, int):
        return [shape]
    return [int(s) for s in shape]


def _mesh(mesh: Any) -> List[Tuple[str, int]]:
    if mesh is None:
        return []
    if hasattr(mesh, "axis_names") or hasattr(mesh, "mesh_dim_names"):  # a jax Mesh or a torch DeviceMesh
        from . import live

        return live.jax_mesh(mesh) if hasattr(mesh, "axis_names") else live.device_mesh(mesh)
    if isinstance(mesh, str):  # "dp=2,tp=4", as the page and the CLI write a mesh
        return [(str(name), int(size)) for name, size in _engine.parse_mesh(mesh)]
    items = mesh.items() if isinstance(mesh, Mapping) else mesh
    out = []
    for i, item in enumerate(items):
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise LayoutError(
                f"mesh entry {i} is {item!r}; give the mesh as {{'x': 2, 'y': 4}}, [('x', 2), ('y', 4)] or \"x=2,y=4\"",
                field="mesh",
            )
        name, size = item
        out.append((str(name), int(size)))
    return out


def _require_formats() -> None:
    if not _engine.HAS_FORMATS:
        raise FeatureUnavailable(
            "this build of layoutscope has no format importers/exporters "
            "(the engine it was built from has no shared/src/formats/format.cpp)"
        )


class Layout:
    """A layout ``S[(shape):(strides@axis)] + R[...] + O[...]`` (optionally swizzled) over a logical shape.

    Without ``shape`` the logical shape is one dimension of the layout's size. A layout the engine cannot
    read, or a shape whose size differs from the layout's, raises :class:`LayoutError` with the column of
    the bad token.

    The chapter's register fragment (m8n8, 8x8 logical): cell (5, 3) sits in lane 21, register slot 1.

    >>> L = Layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", shape=(8, 8))
    >>> L[5, 3]
    [{'laneid': 21, 'reg': 1}]
    >>> [(h.coord, h.position["reg"]) for h in L.inverse(laneid=21)]
    [((5, 2), 0), ((5, 3), 1)]

    The 8x8 matrix in 2x4 tiles: (5, 6) is at offset 46.

    >>> Layout("S[(4,2,2,4):(16,4,8,1)]", shape=(8, 8))[5, 6]
    [{'m': 46}]

    Scale factors (SFA, 128x4 in TMEM with .warpx4): element (64, 2) is in TMEM lanes 0, 32, 64 and 96.

    >>> sfa = Layout("S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]", shape=(128, 4))
    >>> [(p["TLane"], p["TCol"], p["byte"]) for p in sfa[64, 2]]
    [(0, 2, 2), (32, 2, 2), (64, 2, 2), (96, 2, 2)]

    A 2x4 GPU mesh with replication over gpuid_x: element (1, 2, 3) is on gpuid_y 1 at m 19, on both x.

    >>> mesh = Layout("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]", shape=(2, 4, 8))
    >>> mesh[1, 2, 3]
    [{'gpuid_y': 1, 'm': 19, 'gpuid_x': 0}, {'gpuid_y': 1, 'm': 19, 'gpuid_x': 1}]
    """

    __slots__ = ("_bound", "notes")

    def __init__(self, text: str, shape: ShapeLike = None) -> None:
        if not isinstance(text, str):
            raise TypeError(f"Layout() takes the layout's text, got {type(text).__name__}")
        self._bound = _engine.Bound(text, _shape(shape))
        self.notes: List[str] = []  # what an importer assumed (from_format); empty otherwise

    @classmethod
    def _wrap(cls, bound: Any, notes: Sequence[str] = ()) -> "Layout":
        layout = cls.__new__(cls)
        layout._bound = bound
        layout.notes = list(notes)
        return layout

    # -- what the layout is -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The layout in canonical notation (parsing it gives back the same layout)."""
        return self._bound.text

    @property
    def shape(self) -> Tuple[int, ...]:
        """The logical shape."""
        return self._bound.shape

    @property
    def axes(self) -> List[str]:
        """Axis names in order of first appearance (``m`` is the memory axis)."""
        return list(self._bound.axes)

    @property
    def size(self) -> int:
        """Number of logical elements."""
        return self._bound.size

    @property
    def replicas(self) -> int:
        """Number of replicas (the product of every R extent)."""
        return self._bound.replicas

    @property
    def swizzle(self) -> Optional[str]:
        """The swizzle in CuTe's spelling (``"Swizzle<3,4,3>"``), or None."""
        return self._bound.swizzle

    def __len__(self) -> int:
        return self.size

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Layout({self.text!r}, shape={self.shape!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return (self.text, self.shape) == (other.text, other.shape)

    def __hash__(self) -> int:
        return hash((self.text, self.shape))

    def __reduce__(self):
        # pickled as its text and shape (the text is canonical: parsing it gives back the same layout), so a
        # layout crosses multiprocessing and joblib; what an importer noted comes along
        return (_restore, (self.text, self.shape, tuple(self.notes)))

    # -- forward and inverse ------------------------------------------------------------------------------
    def __getitem__(self, key: Union[int, Tuple[int, ...]]) -> List[Position]:
        """Positions of one element, one dict per replica: ``L[5, 3]`` (a coordinate) or ``L[43]`` (a
        flat index; for a one-dimensional shape the two are the same). As for a sequence, a negative index
        counts from the end and one outside the shape raises IndexError.

        >>> L = Layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", shape=(8, 8))
        >>> L[-1, -1] == L[7, 7] == L[63]
        True
        >>> L[8, 0]
        Traceback (most recent call last):
        ...
        layoutscope.errors.LayoutIndexError: coord: index 8 is out of range for dimension 0 of size 8
        """
        coord = key if isinstance(key, tuple) else (key,)
        if len(coord) == 1 and len(self.shape) != 1:
            bounds: Tuple[int, ...] = (self.size,)
            what, field = "the flat index of {} elements", "index"
        elif len(coord) == len(self.shape):
            bounds = self.shape
            what, field = "dimension {i} of size {}", "coord"
        else:
            raise LayoutIndexError(
                f"{len(coord)} indices for a layout of {len(self.shape)} dimensions {self.shape}", field="coord"
            )
        fixed = []
        for i, (c, n) in enumerate(zip(coord, bounds)):
            c = operator.index(c)
            if not -n <= c < n:
                raise LayoutIndexError(f"index {c} is out of range for " + what.format(n, i=i), field=field)
            fixed.append(c + n if c < 0 else c)
        return self.map(*fixed).positions

    def __iter__(self) -> Iterator[List[Position]]:
        """Positions of every element in flat (row-major) order."""
        for x in range(self.size):
            yield self._bound.forward_flat(x)["positions"]

    def map(self, *coord: int) -> ElementMapping:
        """The forward map of one element with its derivation; one argument is a flat index unless the shape
        is one-dimensional (then it is the coordinate, the same thing).

        >>> Layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", shape=(8, 8)).map(5, 3).split
        (5, 1, 1)
        """
        if len(coord) == 1 and len(self.shape) != 1:
            d = self._bound.forward_flat(int(coord[0]))
        else:
            d = self._bound.forward([int(c) for c in coord])
        return ElementMapping(**d)

    def inverse(self, cell_limit: Optional[int] = None, **axes: int) -> List[Hit]:
        """Every (element, replica) whose position has the given axis values; axes not named match any
        value. ``L.inverse(laneid=21)`` lists the elements lane 21 holds."""
        for name in axes:
            if name not in self.axes:
                # as the CLI's inverse says it: an axis the layout does not have matches nothing, which is a mistake
                raise LayoutError(f"the layout has no axis '{name}' (its axes: {', '.join(self.axes)})", field=name)
        query = [(name, int(value)) for name, value in axes.items()]
        hits = self._bound.inverse(query, cell_limit or _engine.DEFAULT_CELL_LIMIT)
        return [Hit(**h) for h in hits]

    def table(self, numpy: Optional[bool] = None, cell_limit: Optional[int] = None) -> Dict[str, Any]:
        """Every element's position on every axis: ``{axis: array}``, each array of the logical shape (plus a
        last dimension of ``replicas`` when the layout replicates).

        NumPy arrays (int64) when NumPy is installed (``numpy=None``) or asked for (``numpy=True``); nested
        lists otherwise.

        >>> t = Layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", shape=(8, 8)).table()
        >>> int(t["laneid"][5, 3]), int(t["reg"][5, 3])
        (21, 1)
        """
        t = self._bound.table(cell_limit or _engine.DEFAULT_CELL_LIMIT)
        axes, replicas = t["axes"], t["replicas"]
        dims = tuple(t["shape"]) + ((replicas,) if replicas > 1 else ())
        np = _numpy(numpy)
        if np is not None:
            flat = np.frombuffer(t["values"], dtype="<i8").reshape(t["elements"] * replicas, len(axes))
            return {a: np.ascontiguousarray(flat[:, i]).reshape(dims) for i, a in enumerate(axes)}
        import array
        import sys

        values = array.array("q", t["values"])
        if sys.byteorder != "little":
            values.byteswap()
        n = len(axes)
        return {a: _nest(values[i::n].tolist(), dims) for i, a in enumerate(axes)}

    # -- checks and forms ---------------------------------------------------------------------------------
    def check(self, cell_limit: Optional[int] = None) -> List[Finding]:
        """Findings about the layout on its shape (errors, warnings, notes), each naming where.

        >>> L = Layout("S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]", shape=(8, 4))
        >>> [f.code for f in L.check() if f.severity == "error"]
        ['hardware-range']
        """
        return [Finding(**f) for f in self._bound.check(cell_limit or _engine.DEFAULT_CELL_LIMIT)]

    @property
    def ok(self) -> bool:
        """True when :meth:`check` finds no error."""
        return not any(f.severity == "error" for f in self.check())

    def canon(self) -> "Layout":
        """The canonical form: contiguous modes fused, extent-1 modes and zero offsets dropped; the same
        mapping on the same shape.

        >>> Layout("S[(2,3,6):(18,6,1)]").canon().text
        'S[36:1]'
        """
        return Layout(self._bound.canonical(), self.shape)

    def addresses(self, indices: Sequence[int], elem_bytes: int = 4) -> List[int]:
        """Byte addresses of the given logical elements through the ``@m`` axis (replica 0, swizzle applied)."""
        return list(self._bound.lane_addresses([int(i) for i in indices], int(elem_bytes)))

    # -- other notations ----------------------------------------------------------------------------------
    @classmethod
    def from_format(cls, format: str, text: Any, shape: ShapeLike = None, mesh: MeshLike = None) -> "Layout":
        """A layout written in another project's syntax (``"cute"``, ``"cute-dsl"``, ``"triton"``, ``"tirx"``,
        ``"jax"``, ``"shardy"``, ``"hlo"``, ``"dtensor"``, ``"axe"``), read by the engine's importer.

        ``text`` may also be a live object of that library (a JAX ``NamedSharding``, a DTensor, a Triton or
        CuTe DSL layout): it is first written as the text the importer reads (:mod:`layoutscope.live`).
        ``mesh`` names the device mesh's axes and sizes, major first. The importer's notes are in ``.notes``.
        """
        _require_formats()
        if not isinstance(text, str):
            from . import live

            text, shape, mesh = live.describe(format, text, shape, mesh)
        d = _engine.import_layout(format, text, _shape(shape) or [], _mesh(mesh))
        return cls._wrap(d["layout"], d["notes"])

    @classmethod
    def from_cute(cls, text: Any, shape: ShapeLike = None) -> "Layout":
        """A CuTe layout ``(2,(2,2)):(4,(2,1))`` (first mode fastest, as CuTe writes it)."""
        return cls.from_format("cute", text, shape)

    @classmethod
    def from_cute_dsl(cls, layout: Any, shape: ShapeLike = None) -> "Layout":
        """A CuTe DSL layout object or its printed form."""
        return cls.from_format("cute-dsl", layout, shape)

    @classmethod
    def from_triton(cls, layout: Any, shape: ShapeLike = None) -> "Layout":
        """A Triton/Gluon layout (``#ttg.blocked<...>`` text or a Gluon layout object) over ``shape``."""
        return cls.from_format("triton", layout, shape)

    @classmethod
    def from_tirx(cls, text: str, shape: ShapeLike = None) -> "Layout":
        """A TVM TIRx layout expression."""
        return cls.from_format("tirx", text, shape)

    @classmethod
    def from_jax(cls, sharding: Any, shape: ShapeLike = None, mesh: MeshLike = None) -> "Layout":
        """A JAX sharding: a ``NamedSharding`` (its mesh is read from it) or a ``PartitionSpec`` text
        ``P('x', None)`` with ``mesh={'x': 2, 'y': 4}``, over the global ``shape``."""
        return cls.from_format("jax", sharding, shape, mesh)

    @classmethod
    def from_dtensor(cls, placements: Any, shape: ShapeLike = None, mesh: MeshLike = None) -> "Layout":
        """A PyTorch DTensor (its mesh, placements and shape are read from it), or the placements
        ``[Shard(0), Replicate()]`` as text with ``mesh`` and ``shape``."""
        return cls.from_format("dtensor", placements, shape, mesh)

    @classmethod
    def from_shardy(cls, text: str, shape: ShapeLike = None, mesh: MeshLike = None) -> "Layout":
        """A Shardy sharding attribute."""
        return cls.from_format("shardy", text, shape, mesh)

    @classmethod
    def from_hlo(cls, text: str, shape: ShapeLike = None, mesh: MeshLike = None) -> "Layout":
        """An XLA HLO sharding ``{devices=[2,1]<=[2]}``."""
        return cls.from_format("hlo", text, shape, mesh)

    def to(self, format: str, mesh: MeshLike = None) -> str:
        """This layout in another project's syntax, or :class:`LayoutError` naming what that syntax cannot
        express (nothing is converted with a loss)."""
        _require_formats()
        return _engine.export_layout(format, self._bound, list(self.shape), _mesh(mesh))

    # -- notebooks ----------------------------------------------------------------------------------------
    def _repr_html_(self) -> str:
        from .figures import layout_html

        return layout_html(self)

    def _repr_svg_(self) -> str:
        from .figures import layout_svg

        return layout_svg(self)


def detect_format(text: str) -> str:
    """The notation a pasted text is most likely written in (``"axe"`` when nothing else matches)."""
    _require_formats()
    return _engine.detect_format(text)


def formats() -> List[str]:
    """The format names :meth:`Layout.from_format` and :meth:`Layout.to` accept (empty without them)."""
    return list(_engine.formats()) if _engine.HAS_FORMATS else []


def _restore(text: str, shape: Tuple[int, ...], notes: Sequence[str]) -> Layout:
    layout = Layout(text, shape)
    layout.notes = list(notes)
    return layout


def _numpy(want: Optional[bool]):
    if want is False:
        return None
    try:
        import numpy
    except ImportError:
        if want:
            raise
        return None
    return numpy


def _nest(values: List[int], dims: Tuple[int, ...]) -> Any:
    if len(dims) <= 1:
        return values
    step = len(values) // dims[0]
    return [_nest(values[i * step : (i + 1) * step], dims[1:]) for i in range(dims[0])]


__all__ = ["Layout", "ElementMapping", "Hit", "Finding", "LayoutError", "detect_format", "formats"]
