"""CuTe's layout algebra from Python, against the values CuTe's documentation works out
(media/docs/cpp/cute/02_layout_algebra.md)."""

import pytest

import layoutscope
from layoutscope import LayoutError

pytestmark = pytest.mark.skipif(not layoutscope.HAS_FORMATS, reason="this build has no layout algebra")


def test_composition_of_the_documented_example():
    # (20):(2) o (5,4):(4,1): element (i,j) of B is 4i + j, A doubles it: (5,4):(8,2)
    r = layoutscope.algebra("composition", "(20):(2)", "(5,4):(4,1)")
    assert r["result"] == "(5,4):(8,2)"
    assert r["size"] == 20
    assert r["cosize"] == 2 * 19 + 1


def test_complement_fills_the_codomain():
    # complement of (4):(2) in 24: the holes of 0 2 4 6 are the odd offsets, then repeats of 8: (2,3):(1,8)
    assert layoutscope.algebra("complement", "(4):(2)", 24)["result"] == "(2,3):(1,8)"


def test_max_common_vector_of_a_transpose_is_one():
    r = layoutscope.algebra("max_common_vector", "(64,64):(64,1)", "(64,64):(1,64)")
    assert r["vector"] == 1
    same = layoutscope.algebra("max_common_vector", "(64,64):(64,1)", "(64,64):(64,1)")
    assert same["vector"] == 64 * 64


def test_errors_name_the_argument():
    with pytest.raises(LayoutError) as e:
        layoutscope.algebra("composition", "(20):(2)", "(5,4):(4,1")
    assert e.value.field == "argument 2"
    assert e.value.column > 0
    assert "composition" in layoutscope.algebra_operations()
