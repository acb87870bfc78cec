"""banks, sectors and swizzle from Python, against the chapter's cases and the hardware rules written out
here (32 banks of 4 B, 128 B per wavefront, 32 B sectors, the PTX 128B swizzle's 16 B chunks)."""

import pytest

import layoutscope
from layoutscope import LayoutError, banks, sectors, swizzle


def test_toy_8_banks_column_read_conflicts_8_ways_and_the_xor_swizzle_removes_it():
    # The chapter's toy model: 8x8 fp32, row-major, lanes 0..7 read column 3 -> bank 3 eight times.
    column = [(r * 8 + 3) * 4 for r in range(8)]
    plain = banks(column, width=4, banks=8)
    assert plain.lane_bank == [3] * 8 and plain.wavefronts == 8 and plain.conflict_ways == 8
    swizzled = [(r * 8 + (3 ^ r)) * 4 for r in range(8)]  # mapped_col = col ^ row
    fixed = banks(swizzled, width=4, banks=8)
    assert sorted(fixed.lane_bank) == list(range(8)) and fixed.wavefronts == 1


def test_column_read_of_a_32x32_tile_and_its_padded_form():
    assert banks(layout="S[(32,32):(32,1)]", shape=(32, 32), step=32).conflict_ways == 32
    padded = banks(layout="S[(32,32):(33,1)]", shape=(32, 32), step=32)
    assert padded.wavefronts == 1 and padded.lane_bank == [(33 * i) % 32 for i in range(32)]


def test_16_byte_accesses_take_8_lanes_per_wavefront():
    r = banks([16 * i for i in range(32)], width=16)
    assert (r.lanes_per_wavefront, r.ideal_wavefronts, r.wavefronts) == (8, 4, 4)


def test_sectors_soa_aos_and_vectors():
    assert sectors([4 * i for i in range(32)]).sectors == 4  # 128 contiguous bytes
    assert sectors(layout="S[(64,8):(8,1)]", shape=(64, 8), step=8).sectors == 32  # p[i].f[0], 32 B apart
    vec = sectors([16 * i for i in range(32)], width=16)
    assert vec.sectors == 16 and vec.bytes == 512 and vec.efficiency == 1.0


def test_layout_object_and_address_list_agree():
    L = layoutscope.Layout("S[(32,32):(33,1)]", shape=(32, 32))
    addrs = [4 * (33 * i) for i in range(32)]  # lane i reads row i, column 0 of a 33-word-pitch tile
    assert L.addresses([32 * i for i in range(32)], elem_bytes=4) == addrs
    assert banks(layout=L, step=32) == banks(addrs)


def test_swizzle_128b_f16_moves_16_byte_chunks_by_the_row():
    # SWIZZLE_128B: within each 128 B row, 16 B chunk k goes to chunk k ^ (row % 8); fp16 has 8 per chunk.
    offsets = list(range(0, 8 * 64))
    s = swizzle(offsets, mode="128B", dtype="f16")
    assert (s.bytes, s.elements, s.elements_per_row, s.rows) == ("Swizzle<3,4,3>", "Swizzle<3,3,3>", 64, 8)
    for r in s.results:
        row, col = divmod(r.offset, 64)
        expect_col = ((col // 8) ^ (row % 8)) * 8 + col % 8
        assert (r.row, r.col, r.swizzled_col) == (row, col, expect_col)
        assert r.swizzled == row * 64 + expect_col and r.swizzled_byte == 2 * r.swizzled


def test_bad_arguments_name_their_field():
    with pytest.raises(LayoutError) as e:
        banks([0, 4, 8], width=3)
    assert e.value.field == "width"
    with pytest.raises(LayoutError) as e:
        swizzle(0, mode="96B")
    assert e.value.field == "mode"
    with pytest.raises(LayoutError) as e:
        swizzle(0, dtype="f17")
    assert e.value.field == "dtype"
    with pytest.raises(LayoutError) as e:
        banks(layout="S[(8,4):(4@laneid,1@laneid)]")
    assert e.value.field == "layout"  # no @m axis, so no address
    with pytest.raises(TypeError):
        banks()
