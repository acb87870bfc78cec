"""The engine's importers and exporters through Layout.from_format / Layout.to. Expected positions are
worked out here from each library's documented semantics (CuTe: first mode fastest; JAX: a sharded
dimension splits into equal blocks, unnamed mesh axes replicate)."""

import itertools

import pytest

import layoutscope
from layoutscope import FeatureUnavailable, Layout, LayoutError

needs_formats = pytest.mark.skipif(
    not layoutscope.HAS_FORMATS,
    reason="this build has no format importers/exporters (the engine lacks shared/src/formats/format.cpp)",
)


@pytest.mark.skipif(layoutscope.HAS_FORMATS, reason="the formats are built in")
def test_without_formats_the_calls_say_why():
    with pytest.raises(FeatureUnavailable, match="format importers"):
        Layout.from_cute("(2,(2,2)):(4,(2,1))")
    with pytest.raises(FeatureUnavailable):
        Layout("S[8:1]").to("cute")
    assert layoutscope.formats() == []


@needs_formats
def test_cute_import_is_first_mode_fastest():
    # CuTe (2,(2,2)):(4,(2,1)) on a 2x4 logical tile: (i, j) with j = j0 + 2*j1 -> 4i + 2*j0 + j1.
    L = Layout.from_cute("(2,(2,2)):(4,(2,1))")
    assert L.shape == (2, 4)
    for i, j in itertools.product(range(2), range(4)):
        assert L[i, j] == [{"m": 4 * i + 2 * (j % 2) + j // 2}]


@needs_formats
def test_cute_export_of_the_headers_example():
    assert Layout("S[(2,2,2):(4,1,2)]", shape=(2, 4)).to("cute") == (
        "Layout<Shape<Int<2>,Shape<Int<2>,Int<2>>>,Stride<Int<4>,Stride<Int<2>,Int<1>>>>{}")


@needs_formats
@pytest.mark.parametrize("fmt", ["cute", "triton"])
def test_export_then_import_keeps_every_position(fmt):
    L = Layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", shape=(8, 8)) if fmt == "triton" else Layout(
        "S[(2,2,2):(4,1,2)]", shape=(2, 4))
    try:
        text = L.to(fmt)
    except LayoutError as e:  # an exporter may refuse a construct; it must say which
        pytest.fail(f"{fmt} refused {L}: {e}")
    back = Layout.from_format(fmt, text, shape=L.shape)
    t, u = L.table(), back.table()
    common = sorted(set(t) & set(u))
    assert common, (L.axes, back.axes)
    for a in common:
        assert (t[a] == u[a]).all(), a


@needs_formats
def test_jax_partition_spec_splits_rows_over_x_and_replicates_over_y():
    L = Layout.from_jax("P('x', None)", shape=(8, 4), mesh={"x": 2, "y": 4})
    assert L.shape == (8, 4)
    for i, j in itertools.product(range(8), range(4)):
        got = sorted((p["x"], p["y"], p["m"]) for p in L[i, j])
        assert got == [(i // 4, y, (i % 4) * 4 + j) for y in range(4)]


@needs_formats
def test_import_error_points_at_the_column():
    with pytest.raises(LayoutError) as e:
        Layout.from_cute("(2,(2,2):(4,(2,1))")
    assert e.value.column > 0


@needs_formats
def test_format_names():
    assert {"cute", "triton", "jax", "dtensor"} <= set(layoutscope.formats())
    assert layoutscope.detect_format("S[(8,4):(4@laneid,1@laneid)]") == "axe"
