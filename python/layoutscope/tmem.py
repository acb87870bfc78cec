"""Blackwell tensor memory (TMEM) as layouts, and the tcgen05 descriptors.

    >>> from layoutscope import tmem
    >>> a = tmem.access("16x128b", lane=32, column=8)
    >>> a["threads"], a["warp"]
    ('S[(2,8,1,4):(1@reg,4@laneid,2@reg,1@laneid)] + O[1@warpid]', 1)
    >>> tmem.scale_factors("mxf8f6f4", m=128, k=128, at=(64, 2))["trace"]["tlanes"]
    [0, 32, 64, 96]
    >>> hex(tmem.smem_descriptor(start_address=1024, leading_byte_offset=16, stride_byte_offset=1024,
    ...                          swizzle="128B")["word"])
    '0x4000404000010040'

The engine computes every value (the same as ``layoutscope tcgen05`` / ``layoutscope desc`` and the page);
errors are :class:`layoutscope.LayoutError` whose ``field`` names the argument at fault and whose message names
the rule (slab, alignment, allocation granularity, descriptor field range). docs/tcgen05.md has the rules and
their PTX ISA sections.
"""

from __future__ import annotations

from typing import Optional, Sequence

from . import _engine


def access(shape: str, num: int = 1, *, store: bool = False, lane: int = 0, column: int = 0,
           half_split: int = -1, warp: int = -1, allocated_columns: int = 0) -> dict:
    """tcgen05.ld (or .st with ``store=True``) ``.<shape>.x<num>`` at TMEM (lane, column): the thread layout
    (logical -> laneid, reg, warpid), the TMEM layout (logical -> TLane, TCol) and every cell as
    (row, col, laneid, reg, TLane, TCol)."""
    return _engine.tmem_access(shape, num, store, lane, column, half_split, warp, allocated_columns)


def copy(shape: str, *, lane: int = 0, column: int = 0, allocated_columns: int = 0) -> dict:
    """tcgen05.cp ``.<shape>`` (128x256b, 4x256b, 128x128b, 64x128b.warpx2::02_13, 64x128b.warpx2::01_23,
    32x128b.warpx4): where each (row, 32-bit word) of the shared matrix lands in TMEM."""
    return _engine.tmem_copy(shape, lane, column, allocated_columns)


def scale_factors(kind: str = "mxf8f6f4", *, vec: int = 32, m: int = 128, k: int = 128, column: int = 0,
                  at: Optional[Sequence[int]] = None) -> dict:
    """The block-scaled MMA scale factors of an (m, k) operand: the shared-memory and TMEM layouts of the
    (m, k / vec) scale matrix; with ``at=(m, k)`` the path of that one scale factor."""
    return _engine.scale_factors(kind, vec, m, k, column, tuple(at) if at is not None else None)


def smem_descriptor(word: Optional[int] = None, *, start_address: int = 0, leading_byte_offset: int = 0,
                    stride_byte_offset: int = 0, base_offset: int = 0, lbo_mode: str = "relative",
                    swizzle: str = "none") -> dict:
    """Decode a 64-bit shared memory descriptor (``word``) or encode one from its fields."""
    if word is not None:
        return _engine.smem_descriptor_decode(word)
    if lbo_mode not in ("relative", "absolute"):
        from .errors import LayoutError

        raise LayoutError("lbo_mode is relative or absolute", 0, "lbo_mode", lbo_mode)
    return _engine.smem_descriptor_encode(start_address, leading_byte_offset, stride_byte_offset, base_offset,
                                          lbo_mode == "absolute", swizzle)


def smem_descriptor_for(layout: str, shape: Optional[Sequence[int]] = None, *, dtype: str = "f16",
                        major: str = "K", start_address: int = 0) -> dict:
    """The shared memory descriptor of a tile layout (logical (MN, K) -> element offsets @m)."""
    return _engine.smem_descriptor_from_layout(layout, list(shape) if shape else None, dtype, major,
                                               start_address)


def check_smem_descriptor(word: int, layout: str, shape: Optional[Sequence[int]] = None, *, dtype: str = "f16",
                          major: str = "K") -> dict:
    """Whether ``word`` describes the tile layout: ``matches`` and the ``differences`` field by field."""
    return _engine.smem_descriptor_check(word, layout, list(shape) if shape else None, dtype, major)


def instr_descriptor(word: Optional[int] = None, *, kind: str = "f16", **fields) -> dict:
    """Decode a 32-bit instruction descriptor of ``kind`` (f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4), or
    encode one from fields (a_type, b_type, d_type, m, n, a_major, b_major, negate_a, negate_b, saturate,
    sparse, sparse_selector, max_shift, scale_type, sfa_id, sfb_id, k_size)."""
    if word is not None:
        return _engine.instr_descriptor_decode(word, kind)
    return _engine.instr_descriptor_encode({"kind": kind, **fields})
