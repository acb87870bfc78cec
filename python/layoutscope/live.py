"""Layouts from live objects of other libraries, written as the text the engine's importers read.

Nothing here computes a position: each function only spells the object in its library's own notation
(a JAX PartitionSpec and mesh, DTensor placements and mesh, a Triton layout attribute, a CuTe layout), and
:meth:`layoutscope.Layout.from_format` hands that text to the engine. The libraries are imported by
nobody here: the objects are read by their attributes, so none of them is a dependency.

    >>> from jax.sharding import Mesh, NamedSharding, PartitionSpec as P      # doctest: +SKIP
    >>> s = NamedSharding(Mesh(devices.reshape(2, 4), ("x", "y")), P("x", None))   # doctest: +SKIP
    >>> jax_text(s, (8, 4))                                                    # doctest: +SKIP
    ("P('x', None)", (8, 4), [('x', 2), ('y', 4)])
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

Mesh = List[Tuple[str, int]]


def _spec_entry(entry: Any) -> str:
    if entry is None:
        return "None"
    if isinstance(entry, str):
        return repr(entry)
    names = [repr(str(n)) for n in entry]
    if not names:
        return "None"
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def partition_spec_text(spec: Sequence[Any], rank: Optional[int] = None) -> str:
    """``P('x', None)``: a PartitionSpec (a tuple of None, a mesh axis name, or a tuple of names), padded
    with None to ``rank`` dimensions as JAX reads a short spec."""
    entries = [_spec_entry(e) for e in spec]
    if rank is not None:
        if len(entries) > rank:
            raise ValueError(f"the PartitionSpec has {len(entries)} entries, the array only {rank} dimensions")
        entries += ["None"] * (rank - len(entries))
    return "P(" + ", ".join(entries) + ")"


def jax_mesh(mesh: Any) -> Mesh:
    """A ``jax.sharding.Mesh`` (or AbstractMesh) as named axes and sizes, major first."""
    shape = mesh.shape  # an ordered mapping axis name -> size
    return [(str(name), int(shape[name])) for name in mesh.axis_names]


def jax_text(sharding: Any, shape: Sequence[int], mesh: Any = None) -> Tuple[str, Tuple[int, ...], Mesh]:
    """A ``NamedSharding`` (or a ``PartitionSpec`` with ``mesh``) over a global ``shape``."""
    if shape is None:
        raise ValueError("a JAX sharding needs the global array shape (shape=...)")
    shape = tuple(int(s) for s in shape)
    if hasattr(sharding, "spec") and hasattr(sharding, "mesh"):
        return partition_spec_text(sharding.spec, len(shape)), shape, jax_mesh(sharding.mesh)
    if mesh is None:
        raise ValueError("a bare PartitionSpec needs mesh= (a jax Mesh or {'x': 2, ...})")
    m = jax_mesh(mesh) if hasattr(mesh, "axis_names") else _plain_mesh(mesh)
    return partition_spec_text(tuple(sharding), len(shape)), shape, m


def placement_text(p: Any) -> str:
    """One DTensor placement as PyTorch writes it: ``Shard(0)``, ``Replicate()``, ``Partial()``."""
    kind = type(p).__name__.lstrip("_")
    if hasattr(p, "dim") and "Shard" in kind:
        if kind != "Shard":
            raise ValueError(f"placement {p!r} ({kind}) has no counterpart in the layout notation")
        return f"Shard({int(p.dim)})"
    if kind == "Replicate":
        return "Replicate()"
    if kind == "Partial":
        return f"Partial({getattr(p, 'reduce_op', 'sum')!r})"
    raise ValueError(f"unknown DTensor placement {p!r}")


def device_mesh(mesh: Any) -> Mesh:
    """A ``DeviceMesh`` as named axes and sizes (``dim0``, ``dim1``... where the mesh has no names)."""
    sizes = [int(s) for s in mesh.shape]
    names = getattr(mesh, "mesh_dim_names", None) or [f"dim{i}" for i in range(len(sizes))]
    return list(zip([str(n) for n in names], sizes))


def dtensor_text(obj: Any, shape: Any = None, mesh: Any = None) -> Tuple[str, Tuple[int, ...], Mesh]:
    """A DTensor (mesh, placements and global shape read from it), or placements with ``mesh`` (a
    DeviceMesh or ``{'dp': 2, 'tp': 4}``) and ``shape``."""
    if hasattr(obj, "placements") and hasattr(obj, "device_mesh"):
        placements, mesh, shape = obj.placements, obj.device_mesh, shape or tuple(obj.shape)
    else:
        placements = obj
    if shape is None or mesh is None:
        raise ValueError("DTensor placements need shape= and mesh=")
    m = device_mesh(mesh) if hasattr(mesh, "mesh_dim_names") else _plain_mesh(mesh)
    if len(placements) != len(m):
        raise ValueError(f"{len(placements)} placements for a mesh of {len(m)} dimensions")
    text = "[" + ", ".join(placement_text(p) for p in placements) + "]"
    return text, tuple(int(s) for s in shape), m


def _ints(v: Any) -> str:
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def triton_text(layout: Any) -> str:
    """A Triton/Gluon distributed layout as TTGIR prints it: ``#ttg.blocked<{sizePerThread = [1, 4],
    threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>``; a text is returned as it is."""
    if isinstance(layout, str):
        return layout
    kind = type(layout).__name__
    if kind == "BlockedLayout":
        return (
            "#ttg.blocked<{sizePerThread = " + _ints(layout.size_per_thread)
            + ", threadsPerWarp = " + _ints(layout.threads_per_warp)
            + ", warpsPerCTA = " + _ints(layout.warps_per_cta)
            + ", order = " + _ints(layout.order) + "}>"
        )
    if kind == "SliceLayout":
        return f"#ttg.slice<{{dim = {int(layout.dim)}, parent = {triton_text(layout.parent)}}}>"
    if kind == "DistributedLinearLayout":
        bases = ", ".join(
            f"{name} = [" + ", ".join(_ints(b) for b in getattr(layout, attr)) + "]"
            for name, attr in (("register", "reg_bases"), ("lane", "lane_bases"), ("warp", "warp_bases"),
                               ("block", "block_bases"))
        )
        return f"#ttg.linear<{{{bases}}}>"
    raise ValueError(f"no Triton text for a {kind}; pass its TTGIR attribute text instead")


def cute_text(layout: Any) -> str:
    """A CuTe DSL layout prints in CuTe's own notation, ``(2,(2,2)):(4,(2,1))``."""
    return layout if isinstance(layout, str) else str(layout)


def _plain_mesh(mesh: Any) -> Mesh:
    items = mesh.items() if hasattr(mesh, "items") else mesh
    return [(str(n), int(s)) for n, s in items]


def describe(format: str, obj: Any, shape: Any, mesh: Any) -> Tuple[str, Any, Any]:
    """The importer's text for a live object of ``format``'s library, with the shape and mesh it implies."""
    if format == "jax":
        return jax_text(obj, shape, mesh)
    if format == "dtensor":
        return dtensor_text(obj, shape, mesh)
    if format == "triton":
        return triton_text(obj), shape, mesh
    if format in ("cute", "cute-dsl"):
        return cute_text(obj), shape, mesh
    raise TypeError(f"format {format!r} takes text, got a {type(obj).__name__}")
