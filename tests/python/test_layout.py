"""Layout from Python: the chapter's worked examples, whole tables against formulas written out here, and
errors as exceptions. Expected values come from the chapter, the PTX ISA's fragment definition or the
notation's definition, never from the engine's own output."""

import doctest
import itertools
import pickle

import pytest

import layoutscope
from layoutscope import Layout, LayoutError

FRAGMENT = "S[(8,4,2):(4@laneid,1@laneid,1@reg)]"
TILES = "S[(4,2,2,4):(16,4,8,1)]"
SFA = "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]"
MESH = "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]"


# -- the chapter's four worked examples -----------------------------------------------------------------
def test_fragment_cell_5_3_is_lane_21_slot_1():
    L = Layout(FRAGMENT, shape=(8, 8))
    assert L[5, 3] == [{"laneid": 21, "reg": 1}]
    assert L[43] == L[5, 3]  # flat index 5*8 + 3
    m = L.map(5, 3)
    assert (m.index, m.coord, m.split) == (43, (5, 3), (5, 1, 1))


def test_fragment_inverse_lane_21_holds_row_5_columns_2_and_3():
    hits = Layout(FRAGMENT, shape=(8, 8)).inverse(laneid=21)
    assert sorted((h.coord, h.position["reg"]) for h in hits) == [((5, 2), 0), ((5, 3), 1)]
    only = Layout(FRAGMENT, shape=(8, 8)).inverse(laneid=21, reg=1)
    assert [h.index for h in only] == [43]


def test_tiles_5_6_is_offset_46():
    assert Layout(TILES, shape=(8, 8))[5, 6] == [{"m": 46}]


def test_scale_factors_64_2_in_four_tmem_lanes():
    positions = Layout(SFA, shape=(128, 4))[64, 2]
    assert positions == [{"TCol": 2, "TLane": t, "byte": 2} for t in (0, 32, 64, 96)]
    hits = Layout(SFA, shape=(128, 4)).inverse(TLane=32, TCol=2, byte=2)
    assert [(h.coord, h.replica) for h in hits] == [((64, 2), 1)]


def test_mesh_1_2_3_on_gpuid_y_1_at_m_19_on_both_x():
    L = Layout(MESH, shape=(2, 4, 8))
    assert L[1, 2, 3] == [{"gpuid_y": 1, "m": 19, "gpuid_x": 0}, {"gpuid_y": 1, "m": 19, "gpuid_x": 1}]
    assert L.replicas == 2 and L.size == 64


def test_index_order_is_the_opposite_of_cute():
    # The notation splits x last-extent-fastest: S[(2,4):(1,2)] gives 0 2 4 6 1 3 5 7.
    L = Layout("S[(2,4):(1,2)]")
    assert [L[x][0]["m"] for x in range(8)] == [0, 2, 4, 6, 1, 3, 5, 7]


# -- whole tables against formulas ----------------------------------------------------------------------
def test_fragment_table_is_the_ptx_m8n8_fragment():
    # PTX ISA (mma.m8n8 / ldmatrix fragments of 16-bit elements): row r, column c sits in lane r*4 + c//2,
    # element c % 2 of that lane's register.
    t = Layout(FRAGMENT, shape=(8, 8)).table()
    for r, c in itertools.product(range(8), range(8)):
        assert t["laneid"][r, c] == r * 4 + c // 2
        assert t["reg"][r, c] == c % 2


def test_tile_table_is_2x4_tiles_stored_tile_after_tile():
    # 8x8 in 2x4 tiles of 8 elements: tile (r//2, c//4) is number (r//2)*2 + c//4, stored one after the
    # other, each tile row-major inside.
    t = Layout(TILES, shape=(8, 8)).table()["m"]
    for r, c in itertools.product(range(8), range(8)):
        tile = (r // 2) * 2 + c // 4
        assert t[r, c] == tile * 8 + (r % 2) * 4 + c % 4


def test_replicated_table_has_a_replica_dimension():
    t = Layout(SFA, shape=(128, 4)).table()
    assert t["TLane"].shape == (128, 4, 4)
    # Row i = 32*w + l of SFA: warp w's copy is in lanes 32*k + l for every k (.warpx4).
    for i, c in itertools.product(range(0, 128, 7), range(4)):
        assert sorted(t["TLane"][i, c]) == [32 * k + i % 32 for k in range(4)]
        assert set(t["TCol"][i, c]) == {i // 32} and set(t["byte"][i, c]) == {c}


def test_table_without_numpy_is_nested_lists_with_the_same_values():
    L = Layout(FRAGMENT, shape=(8, 8))
    lists = L.table(numpy=False)
    arrays = L.table(numpy=True)
    assert isinstance(lists["laneid"], list) and len(lists["laneid"]) == 8
    assert lists["laneid"] == arrays["laneid"].tolist()
    assert lists["reg"] == arrays["reg"].tolist()


def test_swizzled_layout_follows_cutes_definition():
    # Swizzle<B,M,S>(o) = o ^ ((o & (((1<<B)-1) << (M+S))) >> S), on the @m value of a row-major 8x64 tile.
    def cute(o, b=3, m=3, s=3):
        return o ^ ((o & (((1 << b) - 1) << (m + s))) >> s)

    L = Layout("Swizzle<3,3,3> o S[(8,64):(64,1)]")
    assert L.swizzle == "Swizzle<3,3,3>"
    t = L.table()["m"]
    assert [int(v) for v in t] == [cute(o) for o in range(512)]


def test_canon_fuses_contiguous_modes_and_keeps_the_mapping():
    assert Layout("S[(2,3,6):(18,6,1)]").canon().text == "S[36:1]"
    L = Layout("S[(8,4):(4@laneid,1@laneid)]", shape=(8, 4))
    c = L.canon()
    assert c.text == "S[32:1@laneid]" and c.shape == (8, 4)
    assert (c.table()["laneid"] == L.table()["laneid"]).all()


def test_check_reports_a_lane_past_31():
    findings = Layout("S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]", shape=(8, 4)).check()
    errors = [f for f in findings if f.severity == "error"]
    assert [f.code for f in errors] == ["hardware-range"]
    assert "laneid reaches 39" in errors[0].message and errors[0].where == "axis laneid"
    assert Layout(FRAGMENT, shape=(8, 8)).ok
    assert not Layout("S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]", shape=(8, 4)).ok


def test_aliasing_is_a_finding():
    findings = Layout("S[(4,4):(1,1)]").check()
    assert any(f.code == "aliasing" for f in findings)


def test_iteration_walks_the_flat_index():
    positions = list(Layout("S[(2,4):(1,2)]"))
    assert [p[0]["m"] for p in positions] == [0, 2, 4, 6, 1, 3, 5, 7]


def test_value_semantics():
    a = Layout(" S[ (8,4,2) : (4@laneid, 1@laneid, 1@reg) ] ", shape="8x8")
    b = Layout(FRAGMENT, shape=[8, 8])
    assert a == b and hash(a) == hash(b) and a.text == FRAGMENT and a.shape == (8, 8)
    assert a != Layout(FRAGMENT, shape=(64,))
    assert eval(repr(a), {"Layout": Layout}) == a
    assert len(a) == 64 and a.axes == ["laneid", "reg"]


# -- errors ---------------------------------------------------------------------------------------------
def test_parse_error_carries_column_and_caret():
    with pytest.raises(LayoutError) as e:
        Layout("S[(8,4):(4,1]")
    err = e.value
    assert isinstance(err, ValueError)
    assert err.column == 13  # the ']' where ')' should close the strides
    assert "expected ')'" in err.message and err.text == "S[(8,4):(4,1]"
    assert str(err).splitlines()[-1] == " " * (2 + 12) + "^"


def test_shape_mismatch_names_the_shape():
    with pytest.raises(LayoutError) as e:
        Layout(FRAGMENT, shape=(8, 4))
    assert e.value.field == "shape" and "64" in e.value.message


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda L: L[8, 0], "coord"),
        (lambda L: L[5, 3, 1], "coord"),
        (lambda L: L[64], "index"),
    ],
)
def test_out_of_range_queries_raise_index_error(call, field):
    # as a sequence does: IndexError (also a LayoutError naming what is out of range)
    with pytest.raises(IndexError) as e:
        call(Layout(FRAGMENT, shape=(8, 8)))
    assert isinstance(e.value, LayoutError) and e.value.field == field


def test_negative_indices_count_from_the_end():
    L = Layout(FRAGMENT, shape=(8, 8))
    # (7, 7): x = 63 = unflatten (7, 3, 1): lane 7*4 + 3 = 31, slot 1
    assert L[-1, -1] == L[7, 7] == L[63] == L[-1] == [{"laneid": 31, "reg": 1}]
    with pytest.raises(IndexError):
        L[-9, 0]
    # iteration ends at the last element
    assert len(list(L)) == 64


def test_inverse_of_an_axis_the_layout_lacks_is_an_error_naming_it():
    # as `layoutscope inverse ... nosuch=1` says, not an empty answer
    with pytest.raises(LayoutError) as e:
        Layout(FRAGMENT, shape=(8, 8)).inverse(nosuch=1)
    assert e.value.field == "nosuch"
    assert "no axis 'nosuch'" in e.value.message and "laneid, reg" in e.value.message
    with pytest.raises(LayoutError):
        Layout(FRAGMENT, shape=(8, 8)).inverse(laneid=21, m=0)


def test_a_mesh_given_as_text():
    pytest.importorskip("layoutscope._engine")
    if not layoutscope.formats():
        pytest.skip("this build has no format importers")
    # JAX P('dp', None) over dp=2, tp=4: rows split over dp (4 rows each), tp replicates: row 5 is on dp 1
    text = Layout.from_jax("P('dp', None)", shape=(8, 4), mesh="dp=2,tp=4")
    same = Layout.from_jax("P('dp', None)", shape=(8, 4), mesh={"dp": 2, "tp": 4})
    assert text == same
    assert {p["dp"] for p in text[5, 3]} == {1} and sorted(p["tp"] for p in text[5, 3]) == [0, 1, 2, 3]
    with pytest.raises(LayoutError) as e:
        Layout.from_jax("P('dp', None)", shape=(8, 4), mesh="dp=2,tp")
    assert e.value.column == 6 and "mesh" in str(e.value)
    with pytest.raises(LayoutError) as e:
        Layout.from_jax("P('dp', None)", shape=(8, 4), mesh=[("dp", 2), "tp"])
    assert e.value.field == "mesh" and "entry 1" in e.value.message


def test_layouts_pickle_and_copy():
    import copy

    for L in (
        Layout(FRAGMENT, shape=(8, 8)),
        Layout("Swizzle<3,0,3> o S[(8,8):(8,1)]", shape=(8, 8)),
        Layout("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]", shape=(2, 4, 8)),
    ):
        back = pickle.loads(pickle.dumps(L))
        assert back == L and back.text == L.text and back.shape == L.shape
        assert list(back) == list(L)
        assert copy.deepcopy(L) == L
    assert pickle.loads(pickle.dumps(Layout(FRAGMENT, shape=(8, 8))))[5, 3] == [{"laneid": 21, "reg": 1}]


def test_bad_shape_text_and_bad_type():
    with pytest.raises(LayoutError):
        Layout(FRAGMENT, shape="8,,8")
    with pytest.raises(TypeError):
        Layout(42)


def test_table_refused_above_its_cell_limit():
    with pytest.raises(LayoutError) as e:
        Layout("S[(1024,1024):(1024,1)]").table(cell_limit=1000)
    assert "table" in e.value.message


def test_layout_error_pickles_with_its_fields():
    err = LayoutError("expected ')'", 13, "strides", "S[(8,4):(4,1]")
    back = pickle.loads(pickle.dumps(err))
    assert (back.message, back.column, back.field, back.text) == ("expected ')'", 13, "strides", "S[(8,4):(4,1]")


def test_hardware_axes_name_the_chapter_ranges():
    axes = layoutscope.hardware_axes()
    assert axes["laneid"][0] == 32 and axes["TLane"][0] == 128 and axes["TCol"][0] == 512


# -- docstrings: the worked examples in the API's own documentation run as written -----------------------
@pytest.mark.parametrize("module", ["layoutscope", "layoutscope._layout", "layoutscope.memory", "layoutscope.errors"])
def test_docstring_examples(module):
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
