"""Live objects written as the importers' text. The objects here are stand-ins with the attributes the
libraries document (jax.sharding.NamedSharding: .mesh.axis_names, .mesh.shape, .spec; DTensor: .device_mesh
with .shape and .mesh_dim_names, .placements of Shard(dim)/Replicate(); Gluon BlockedLayout's fields); the
real libraries are checked against on the GPU machine (tests/gpu/python_live.py)."""

from collections import OrderedDict
from dataclasses import dataclass
from typing import List

import pytest

from layoutscope import live


class _Mesh:
    def __init__(self, **axes):
        self.axis_names = tuple(axes)
        self.shape = OrderedDict(axes)


class _NamedSharding:
    def __init__(self, mesh, spec):
        self.mesh, self.spec = mesh, spec


class Shard:
    def __init__(self, dim):
        self.dim = dim


class Replicate:
    pass


class _DeviceMesh:
    def __init__(self, shape, names=None):
        self.shape, self.mesh_dim_names = shape, names


class _DTensor:
    def __init__(self, mesh, placements, shape):
        self.device_mesh, self.placements, self.shape = mesh, placements, shape


@dataclass
class BlockedLayout:
    size_per_thread: List[int]
    threads_per_warp: List[int]
    warps_per_cta: List[int]
    order: List[int]


def test_named_sharding_becomes_a_partition_spec_and_a_mesh():
    s = _NamedSharding(_Mesh(x=2, y=4), ("x",))
    assert live.jax_text(s, (8, 4)) == ("P('x', None)", (8, 4), [("x", 2), ("y", 4)])
    s = _NamedSharding(_Mesh(x=2, y=4), (("x", "y"), None))
    assert live.jax_text(s, [16, 2])[0] == "P(('x', 'y'), None)"
    assert live.partition_spec_text([("y",), None]) == "P(('y',), None)"


def test_partition_spec_longer_than_the_array_is_refused():
    with pytest.raises(ValueError, match="2 entries"):
        live.jax_text(_NamedSharding(_Mesh(x=2), ("x", None)), (8,))
    with pytest.raises(ValueError, match="shape"):
        live.jax_text(_NamedSharding(_Mesh(x=2), ("x",)), None)


def test_dtensor_placements_and_mesh():
    t = _DTensor(_DeviceMesh((2, 4), ("dp", "tp")), [Shard(0), Replicate()], (8, 16))
    assert live.dtensor_text(t) == ("[Shard(0), Replicate()]", (8, 16), [("dp", 2), ("tp", 4)])
    unnamed = live.dtensor_text([Replicate(), Shard(1)], shape=(4, 8), mesh=_DeviceMesh((2, 2)))
    assert unnamed == ("[Replicate(), Shard(1)]", (4, 8), [("dim0", 2), ("dim1", 2)])
    with pytest.raises(ValueError, match="2 placements for a mesh of 1"):
        live.dtensor_text([Shard(0), Shard(1)], shape=(4, 4), mesh={"x": 4})


def test_gluon_blocked_layout_prints_as_ttgir():
    b = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    assert live.triton_text(b) == (
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
    )
    with pytest.raises(ValueError, match="no Triton text"):
        live.triton_text(object())


def test_a_library_mesh_object_is_read_as_named_axes():
    from layoutscope._layout import _mesh

    assert _mesh(_Mesh(x=2, y=4)) == [("x", 2), ("y", 4)]
    assert _mesh(_DeviceMesh((2, 2), ("dp", "tp"))) == [("dp", 2), ("tp", 2)]
    assert _mesh({"x": 2}) == [("x", 2)] and _mesh([("a", 8)]) == [("a", 8)] and _mesh(None) == []


def _gpu_checker():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "gpu" / "python_live.py"
    spec = importlib.util.spec_from_file_location("python_live", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_gpu_scripts_block_check_accepts_the_chapters_mesh_and_catches_a_wrong_block():
    # The chapter's 2x2 mesh: device (x, y) holds slab y of a 2x4x8 array, replicated over x; the local
    # offset of (i, j, k) is j*8 + k. These blocks are what devices_indices_map would report.
    live_check = _gpu_checker()
    from layoutscope import Layout

    L = Layout("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]", shape=(2, 4, 8))
    axes = [("gpuid_x", 2), ("gpuid_y", 2)]
    blocks = {(x, y): ((y, 0, 0), (1, 4, 8)) for x in range(2) for y in range(2)}
    assert live_check.check_blocks(L, (2, 4, 8), axes, blocks, "mesh") == 0
    wrong = dict(blocks)
    wrong[(1, 1)] = ((0, 0, 0), (1, 4, 8))  # device (1, 1) claimed to hold slab 0
    assert live_check.check_blocks(L, (2, 4, 8), axes, wrong, "mesh") == 64
