"""layoutscope.tmem: the tcgen05 atoms, copies, scale factors and descriptors from Python. Expected values are the
PTX ISA's (tcgen05 matrix fragments, tcgen05.cp shapes, the descriptor bit tables) and the chapter's SFA[64, 2]."""

import pytest

from layoutscope import LayoutError, tmem


def test_16x128b_thread_six_register_one_is_lane_41_column_10():
    # PTX 16x128b fragment: thread t holds lanes t/4 and t/4 + 8 (registers 0, 1), column t%4; at lane 32, column 8
    a = tmem.access("16x128b", lane=32, column=8)
    assert a["warp"] == 1
    assert a["threads"] == "S[(2,8,1,4):(1@reg,4@laneid,2@reg,1@laneid)] + O[1@warpid]"
    held = {(c[2], c[3]): (c[4], c[5]) for c in a["cells"]}
    assert held[(6, 1)] == (41, 10)
    assert held[(0, 0)] == (32, 8)
    assert len(held) == 64


def test_rules_are_named():
    with pytest.raises(LayoutError) as e:
        tmem.access("32x32b", lane=32, warp=2)
    assert e.value.field == "warp"
    assert "lanes 64..95" in str(e.value)
    with pytest.raises(LayoutError) as e:
        tmem.access("16x256b", 64)
    assert e.value.field == "num"
    with pytest.raises(LayoutError) as e:
        tmem.copy("128x128b", column=2)
    assert e.value.field == "column"


def test_copy_and_the_chapter_scale_factor():
    assert tmem.copy("64x128b.warpx2::02_13")["tmem"] == "S[(64,4):(1@TLane,1@TCol)] + R[2:64@TLane]"
    sf = tmem.scale_factors("mxf8f6f4", m=128, k=128, at=(64, 2))
    assert sf["tmem"] == "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]"
    t = sf["trace"]
    assert t["tlanes"] == [0, 32, 64, 96]
    assert (t["tcol"], t["byte"], t["byte_offset"], t["smem_byte"]) == (2, 2, 10, 10)


def test_descriptors_round_trip_and_check():
    # start 0x400 >> 4, LBO 16 >> 4 at bit 16, SBO 1024 >> 4 at bit 32, fixed 1 at bit 46, 128B = 2 at bit 61
    d = tmem.smem_descriptor(start_address=1024, leading_byte_offset=16, stride_byte_offset=1024, swizzle="128B")
    assert d["word"] == (2 << 61) | (1 << 46) | (64 << 32) | (1 << 16) | 64
    assert tmem.smem_descriptor(d["word"])["stride_byte_offset"] == 1024
    i = tmem.instr_descriptor(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=256)
    assert i["word"] == (1 << 4) | (1 << 7) | (1 << 10) | (32 << 17) | (8 << 24)
    assert tmem.instr_descriptor(i["word"], kind="f16")["n"] == 256
    tile = "Swizzle<3,3,3> o S[(64,64):(64,1)]"
    assert tmem.smem_descriptor_for(tile, (64, 64), start_address=1024)["stride_byte_offset"] == 1024
    bad = tmem.check_smem_descriptor(d["word"] & ~(64 << 32) | (32 << 32), tile, (64, 64))
    assert bad == {"matches": False, "differences": [{"field": "stride_byte_offset", "descriptor": 512, "layout": 1024}]}
    with pytest.raises(LayoutError) as e:
        tmem.smem_descriptor(d["word"] & ~(1 << 46))
    assert e.value.field == "version"
    with pytest.raises(LayoutError) as e:
        tmem.instr_descriptor(kind="f16", m=96)
    assert e.value.field == "m"
