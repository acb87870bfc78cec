"""bench/peers/loops_check.py's arithmetic, without a GPU: the order it takes sizes in, and its summary of the
Python loop's float4 copy over the lab's, on times written out by hand."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("loops_check", ROOT / "bench" / "peers" / "loops_check.py")
loops_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(loops_check)


def test_sizes_are_taken_from_both_ends_inwards():
    assert loops_check.both_ends([30, 10, 50, 20, 40]) == [10, 50, 20, 40, 30]
    assert loops_check.both_ends([2, 1]) == [1, 2]


def test_the_summary_is_python_over_the_lab_split_at_8_mib():
    mib = 1 << 20
    # Small sizes (<= 8 MiB): 1 MiB, lab 4.0 us; 8 MiB, lab 10.0 us. Large: 64 MiB, lab 50.0 us.
    lab = {mib: 4.0e-6, 8 * mib: 10.0e-6, 64 * mib: 50.0e-6}
    rows = [
        # free: 12/4 = 3.0, 11/10 = 1.1; held: 4/4 = 1.0, 10/10 = 1.0; fill 4.2/4 = 1.05, 9/10 = 0.9
        {"bytes": mib, "copy16_free": 12e-6, "copy16_held": 4e-6, "copy16_fill": 4.2e-6},
        {"bytes": 8 * mib, "copy16_free": 11e-6, "copy16_held": 10e-6, "copy16_fill": 9e-6},
        # free 45/50 = 0.9, held 46/50 = 0.92, fill 50/50 = 1.0
        {"bytes": 64 * mib, "copy16_free": 45e-6, "copy16_held": 46e-6, "copy16_fill": 50e-6},
    ]
    s = loops_check.summarize(rows, lab)
    assert s["free_small"] == {"median": pytest.approx(2.05), "min": pytest.approx(1.1), "max": pytest.approx(3.0), "sizes": 2}
    assert s["held_small"]["median"] == pytest.approx(1.0)
    assert s["fill_small"]["median"] == pytest.approx(0.975)
    assert s["free_large"] == {"median": pytest.approx(0.9), "min": pytest.approx(0.9), "max": pytest.approx(0.9), "sizes": 1}
    assert s["fill_large"]["median"] == pytest.approx(1.0)
    # A size the lab did not time is left out, not divided by zero.
    assert loops_check.summarize([{"bytes": 3, "copy16_free": 1e-6}], lab) == {}
