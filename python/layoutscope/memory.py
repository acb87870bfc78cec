"""What one warp access costs: shared-memory bank wavefronts, global-memory sectors, and the PTX swizzle
modes. The engine counts; these functions take Python arguments and return dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Union

from . import _engine
from ._layout import Layout, ShapeLike


@dataclass(frozen=True)
class BankAccess:
    """Shared-memory cost of one warp access (32 banks of 4 B; a wavefront serves at most 128 B)."""

    width: int  # bytes per lane
    banks: int
    lanes: int
    lanes_per_wavefront: int  # 32 at 4 B, 16 at 8 B, 8 at 16 B
    ideal_wavefronts: int  # without conflicts
    wavefronts: int  # with conflicts (Nsight Compute's shared-memory wavefronts; the chapter's cycles)
    conflict_ways: int  # worst bank (1 = conflict-free)
    group_wavefronts: List[int]
    lane_bank: List[int]
    lane_cycle: List[int]
    addrs: List[int]


@dataclass(frozen=True)
class SectorAccess:
    """Global-memory cost of one warp access: distinct 32 B sectors."""

    width: int
    lanes: int
    sectors: int
    bytes: int
    efficiency: float  # bytes / (sectors * 32)
    lane_sector: List[int]
    addrs: List[int]


@dataclass(frozen=True)
class SwizzledOffset:
    offset: int
    swizzled: int
    byte: int
    swizzled_byte: int
    row: int
    col: int
    swizzled_col: int


@dataclass(frozen=True)
class SwizzleAtom:
    """A PTX swizzle mode on a dtype: its atom and the offsets asked for."""

    mode: str  # "SWIZZLE_128B"
    dtype: str
    rows: int
    row_bytes: int
    elements_per_row: int
    bytes: str  # CuTe's spelling on byte addresses: "Swizzle<3,4,3>"
    elements: str  # on element offsets of the dtype: "Swizzle<3,3,3>" for f16
    results: List[SwizzledOffset]


def _lane_addresses(
    addrs: Optional[Sequence[int]],
    layout: Union[Layout, str, None],
    shape: ShapeLike,
    elem_bytes: int,
    start: int,
    step: int,
    lanes: int,
) -> List[int]:
    if layout is None:
        if addrs is None:
            raise TypeError("give the lanes' byte addresses or a layout")
        return [int(a) for a in addrs]
    if addrs is not None:
        raise TypeError("give either the lanes' byte addresses or a layout, not both")
    if not isinstance(layout, Layout):
        layout = Layout(layout, shape)
    # Lane i reads logical element start + i*step; the engine maps each one to its byte address.
    return layout.addresses([start + i * step for i in range(lanes)], elem_bytes)


def banks(
    addrs: Optional[Sequence[int]] = None,
    *,
    width: int = 4,
    banks: int = 32,
    layout: Union[Layout, str, None] = None,
    shape: ShapeLike = None,
    elem_bytes: int = 4,
    start: int = 0,
    step: int = 1,
    lanes: int = 32,
) -> BankAccess:
    """Shared-memory wavefronts of one warp access: the lanes' byte addresses, or a layout that lane i reads
    logical element ``start + i*step`` of.

    A 32x32 fp32 tile read down a column conflicts 32 ways; padded to 33 words a row it does not:

    >>> banks(layout="S[(32,32):(32,1)]", shape=(32, 32), step=32).wavefronts
    32
    >>> banks(layout="S[(32,32):(33,1)]", shape=(32, 32), step=32).wavefronts
    1
    """
    a = _lane_addresses(addrs, layout, shape, elem_bytes, start, step, lanes)
    return BankAccess(**_engine.banks(a, int(width), int(banks)))


def sectors(
    addrs: Optional[Sequence[int]] = None,
    *,
    width: int = 4,
    layout: Union[Layout, str, None] = None,
    shape: ShapeLike = None,
    elem_bytes: int = 4,
    start: int = 0,
    step: int = 1,
    lanes: int = 32,
) -> SectorAccess:
    """Distinct 32 B global-memory sectors of one warp access (addresses, or a layout as in :func:`banks`).

    AoS ``struct { float f[8]; }``, lane i reads ``p[i].f[0]``: 32 sectors; the SoA read of 32 floats: 4.

    >>> sectors(layout="S[(64,8):(8,1)]", shape=(64, 8), step=8).sectors
    32
    >>> sectors([4 * i for i in range(32)]).sectors
    4
    """
    a = _lane_addresses(addrs, layout, shape, elem_bytes, start, step, lanes)
    d = _engine.sectors(a, int(width))
    return SectorAccess(**d)


def swizzle(offsets: Union[int, Sequence[int]] = (), mode: str = "128B", dtype: str = "f16") -> SwizzleAtom:
    """Element offsets through a PTX swizzle mode (``"none"``, ``"32B"``, ``"64B"``, ``"128B"``,
    ``"128B_ATOM_32B"``) on a dtype (``f8``, ``f16``, ``bf16``, ``f32``, ``tf32``, ``f64``).

    fp16 under SWIZZLE_128B: the element atom is Swizzle<3,3,3>; offset 64 (row 1, col 0) goes to 72.

    >>> s = swizzle(64, mode="128B", dtype="f16")
    >>> s.elements, s.results[0].swizzled, s.results[0].swizzled_byte
    ('Swizzle<3,3,3>', 72, 144)
    """
    if isinstance(offsets, int):
        offsets = [offsets]
    d = _engine.swizzle(mode, dtype, [int(o) for o in offsets])
    d["results"] = [SwizzledOffset(**r) for r in d["results"]]
    return SwizzleAtom(**d)
