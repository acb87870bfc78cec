"""bench/peers/l2_state.py without a GPU: the copy's variants say in PTX what their names say, zero / read is
worked out from hand-written times, and bad options are refused by name before anything touches a GPU."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("l2_state", ROOT / "bench" / "peers" / "l2_state.py")
l2_state = importlib.util.module_from_spec(spec)
spec.loader.exec_module(l2_state)


def test_each_variant_moves_16_bytes_a_lane_with_its_own_hint():
    plain = l2_state.copy_source("plain")
    assert "x[u] = __ldg(src + i);" in plain and "dst[i] = x[u];" in plain
    # The policy torch.compile's Triton loads carry: an evict_last L2 policy for the whole line, and loads that
    # name it, with L1 evict_last as well.
    triton = l2_state.copy_source("l2_evict_last")
    assert "createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" in triton
    assert "ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;" in triton
    assert "dst[i] = x[u];" in triton
    first = l2_state.copy_source("l2_evict_first")
    assert "L2::evict_first" in first and "ld.global.L2::cache_hint.v4.u32" in first
    store = l2_state.copy_source("st_l2_evict_first")
    assert "st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" in store and "__ldg(src + i)" in store
    assert "__stcs(dst + i, x[u]);" in l2_state.copy_source("st_cs")
    for name in l2_state.VARIANTS:
        src = l2_state.copy_source(name)
        assert "LOAD" not in src and "STORE" not in src, name
        assert src.count("{") == src.count("}"), name


def test_zero_over_read_for_each_kernel_timed_after_both_flushes():
    row = {"bytes": 8 << 20, "copy_plain_zero_s": 9.5e-6, "copy_plain_read_s": 7.6e-6,
           "compile_zero_s": 7.42e-6, "compile_read_s": 7.42e-6 / 1.02,
           "copy_l2_evict_last_zero_s": 8.0e-6}  # no read time: no ratio
    r = l2_state.ratios(row)
    assert r["copy_plain_zero_over_read"] == pytest.approx(1.25)  # 9.5 / 7.6
    assert r["compile_zero_over_read"] == pytest.approx(1.02)
    assert "copy_l2_evict_last_zero_over_read" not in r
    assert r["bytes"] == 8 << 20


@pytest.mark.parametrize("argv, message", [
    (["--out", "x", "--sizes-mib", "2,a"], "--sizes-mib: '2,a' is not a comma-separated list"),
    (["--out", "x", "--sizes-mib", "0"], "--sizes-mib: sizes are whole MiB, at least 1"),
    (["--out", "x", "--hold-us", "-1"], "--hold-us must be 0 or more"),
    (["--out", "x", "--cases", "small_8m_f32,no_such_case"], "--cases: no_such_case not in"),
])
def test_bad_options_are_refused_by_name(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        l2_state.main(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err
