"""Layouts read from live JAX and PyTorch DTensor objects, checked element by element against each library's
own answer:

  JAX      NamedSharding(mesh, spec).devices_indices_map(shape): the block of the global array each device
           holds. For every element and every device: the element is in the device's block exactly when the
           imported layout has a position on that device's mesh coordinate, and its @m there is the row-major
           offset inside the block.
  DTensor  compute_local_shape_and_global_offset for every rank of the mesh (a fake process group per rank,
           no GPU needed): the same check with the local shape and global offset.

Run by tests/gpu/python_live.sh (which builds the extension from source first). Prints a summary and writes
it to $OUT/python-live.txt when OUT is set. Exit status 1 when any check fails; a library that is missing
is reported as skipped.
"""

from __future__ import annotations

import itertools
import os
import sys
import traceback

import layoutscope
from layoutscope import Layout

lines: list[str] = []
failures = 0


def report(line: str) -> None:
    print(line, flush=True)
    lines.append(line)


def elements(shape):
    return itertools.product(*(range(s) for s in shape))


def check_blocks(layout: Layout, shape, mesh_axes, blocks, what: str) -> int:
    """blocks: {mesh coordinate tuple: (start tuple, extent tuple)} from the library. Returns mismatches."""
    bad = 0
    for coord in elements(shape):
        got = set()
        for p in layout[coord]:
            device = tuple(p.get(name, 0) for name, _ in mesh_axes)
            got.add((device, p.get("m", 0)))
        want = set()
        for device, (start, extent) in blocks.items():
            local = [c - s for c, s in zip(coord, start)]
            if all(0 <= l < e for l, e in zip(local, extent)):
                offset = 0
                for l, e in zip(local, extent):
                    offset = offset * e + l
                want.add((device, offset))
        if got != want:
            bad += 1
            if bad <= 3:
                report(f"  MISMATCH {what} element {coord}: layout {sorted(got)} library {sorted(want)}")
    return bad


# -- JAX --------------------------------------------------------------------------------------------------
def jax_cases():
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = np.array(jax.devices())
    if devices.size < 8:
        raise RuntimeError(f"JAX sees {devices.size} devices; set XLA_FLAGS=--xla_force_host_platform_device_count=8")
    mesh24 = Mesh(devices[:8].reshape(2, 4), ("x", "y"))
    mesh222 = Mesh(devices[:8].reshape(2, 2, 2), ("a", "b", "c"))
    return [
        (NamedSharding(mesh24, P("x", None)), (8, 4)),
        (NamedSharding(mesh24, P(None, "y")), (6, 8)),
        (NamedSharding(mesh24, P("y", "x")), (8, 6)),
        (NamedSharding(mesh24, P(("x", "y"), None)), (16, 3)),
        (NamedSharding(mesh24, P(("y", "x"))), (16, 2)),
        (NamedSharding(mesh24, P()), (4, 4)),
        (NamedSharding(mesh222, P("c", ("a", "b"))), (4, 8)),
        (NamedSharding(mesh222, P(None, "b", "a")), (3, 4, 2)),
    ]


def run_jax() -> None:
    global failures
    try:
        cases = jax_cases()
    except ImportError as e:
        report(f"jax: skipped ({e})")
        return
    for sharding, shape in cases:
        mesh = sharding.mesh
        axes = [(str(n), int(mesh.shape[n])) for n in mesh.axis_names]
        where = {d: tuple(int(i) for i in idx) for idx, d in zip(itertools.product(*(range(s) for _, s in axes)),
                                                                 mesh.devices.flat)}
        blocks = {}
        for device, index in sharding.devices_indices_map(shape).items():
            start = tuple(s.start or 0 for s in index)
            stop = tuple(dim if s.stop is None else s.stop for s, dim in zip(index, shape))
            blocks[where[device]] = (start, tuple(b - a for a, b in zip(start, stop)))
        name = f"jax {sharding.spec} on mesh {dict(axes)} shape {shape}"
        try:
            L = Layout.from_jax(sharding, shape=shape)
        except Exception as e:  # noqa: BLE001 - a refusal is a failure of this check, with its reason
            failures += 1
            report(f"FAIL {name}: import raised {type(e).__name__}: {e}")
            continue
        bad = check_blocks(L, shape, axes, blocks, name)
        failures += bad > 0
        n = L.size
        report(f"{'ok  ' if not bad else 'FAIL'} {name} -> {L.text}: {n} elements x {len(blocks)} devices, {bad} mismatches")


# -- DTensor ----------------------------------------------------------------------------------------------
def dtensor_blocks(mesh_shape, names, placements, shape):
    """Local shape and global offset of every rank, from torch itself (a fake process group per rank)."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore

    try:
        from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    except ImportError:
        from torch.distributed._tensor._utils import compute_local_shape_and_global_offset

    world = 1
    for s in mesh_shape:
        world *= s
    blocks = {}
    for rank in range(world):
        dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
        try:
            mesh = init_device_mesh("cpu", tuple(mesh_shape), mesh_dim_names=tuple(names))
            local, offset = compute_local_shape_and_global_offset(shape, mesh, placements)
            blocks[tuple(mesh.get_coordinate())] = (tuple(offset), tuple(local))
        finally:
            dist.destroy_process_group()
    return blocks


def run_dtensor() -> None:
    global failures
    try:
        from torch.distributed.tensor import Replicate, Shard
    except ImportError:
        try:
            from torch.distributed._tensor import Replicate, Shard
        except ImportError as e:
            report(f"dtensor: skipped ({e})")
            return
    cases = [
        ((2, 4), ("dp", "tp"), [Shard(0), Replicate()], (8, 16)),
        ((2, 4), ("dp", "tp"), [Replicate(), Shard(1)], (6, 8)),
        ((2, 4), ("dp", "tp"), [Shard(1), Shard(0)], (8, 4)),
        ((2, 4), ("dp", "tp"), [Shard(0), Shard(0)], (16, 2)),
        ((8,), ("w",), [Shard(1)], (3, 16)),
    ]
    for mesh_shape, names, placements, shape in cases:
        name = f"dtensor {placements} on mesh {dict(zip(names, mesh_shape))} shape {shape}"
        try:
            blocks = dtensor_blocks(mesh_shape, names, placements, shape)
        except Exception as e:  # noqa: BLE001 - the fake process group may be missing from this torch
            report(f"skip {name}: torch could not give local shapes ({type(e).__name__}: {e})")
            continue
        try:
            L = Layout.from_dtensor(placements, shape=shape, mesh=dict(zip(names, mesh_shape)))
        except Exception as e:  # noqa: BLE001
            failures += 1
            report(f"FAIL {name}: import raised {type(e).__name__}: {e}")
            continue
        bad = check_blocks(L, shape, list(zip(names, mesh_shape)), blocks, name)
        failures += bad > 0
        report(f"{'ok  ' if not bad else 'FAIL'} {name} -> {L.text}: {L.size} elements x {len(blocks)} ranks, {bad} mismatches")


# -- Triton / Gluon and CuTe DSL: the objects convert and import --------------------------------------------
def run_triton() -> None:
    global failures
    try:
        from triton.experimental.gluon import language as gl
    except ImportError as e:
        report(f"triton gluon: skipped ({e})")
        return
    blocked = gl.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0])
    try:
        L = Layout.from_triton(blocked, shape=(32, 16))
    except Exception as e:  # noqa: BLE001
        failures += 1
        report(f"FAIL triton {blocked}: {type(e).__name__}: {e}")
        return
    # BlockedLayout semantics (Triton's documentation of #blocked): with order [1, 0], element (r, c) of a
    # 32x16 tile lies in warp r // 8, lane (r % 8) * 4 + c // 4, register c % 4.
    names = {"lane": ("lane", "laneid"), "warp": ("warp", "warpid"), "register": ("register", "reg")}
    found = {k: next((a for a in v if a in L.axes), None) for k, v in names.items()}
    if found["lane"] is None or found["register"] is None:
        failures += 1
        report(f"FAIL triton: the imported layout {L.text} names no lane/register axis ({L.axes})")
        return
    bad = 0
    for r, c in elements((32, 16)):
        p = L[r, c][0]
        want = {"warp": r // 8, "lane": (r % 8) * 4 + c // 4, "register": c % 4}
        if any(axis and p.get(axis, 0) != want[k] for k, axis in found.items()):
            bad += 1
    failures += bad > 0
    report(f"{'ok  ' if not bad else 'FAIL'} triton {layoutscope.live.triton_text(blocked)} -> {L.text} ({L.axes}), {bad} mismatches")


def main() -> int:
    report(f"layoutscope {layoutscope.__version__}, formats built in: {layoutscope.HAS_FORMATS}, python {sys.version.split()[0]}")
    if not layoutscope.HAS_FORMATS:
        report("FAIL: the extension was built without the format importers (shared/src/formats/format.cpp)")
        return finish(1)
    for part in (run_jax, run_dtensor, run_triton):
        try:
            part()
        except Exception:  # noqa: BLE001 - one library's trouble must not hide the others' results
            global failures
            failures += 1
            report(f"FAIL {part.__name__}: {traceback.format_exc()}")
    return finish(1 if failures else 0)


def finish(status: int) -> int:
    report(f"python-live: {'all checks passed' if status == 0 else f'{failures or 1} check(s) failed'}")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "python-live.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
