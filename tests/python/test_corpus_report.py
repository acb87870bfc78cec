"""The corpus report's judgement of "behind a peer" (tests/gpu/convert_corpus.py report), on result files written
out here by hand: the lab times our kernel and the copies, the peers' run times the peers and, with --kernels,
our kernel again in its own loop. Where that second time exists, a peer is compared with it; elsewhere with the
lab's. Each loop's times are fractions of the copies that loop timed (the peers' loop: copy_ and its own
float4 copy, where it has one). Each expected fraction below is a copy's time over the kernel's, worked out
by hand."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "gpu" / "convert_corpus.py"


def lab_line(case, kernel_us, copy_us):
    return {"case": case, "dtype": "f32", "bytes": 602112, "kind": "interleave", "vector_bytes": 16, "unit_bytes": 4,
            "verified": True, "kernel_s": kernel_us * 1e-6, "copy16_s": copy_us * 1e-6, "memcpy_s": 1.0,
            "first_use_s": 0.05, "single_use_s": 0.002, "library_verified": True}


def report(tmp_path, lab, peers, **top):
    (tmp_path / "lab.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lab))
    (tmp_path / "peers.json").write_text(json.dumps({"device": "test", **top, "cases": peers}))
    run = subprocess.run([sys.executable, str(SCRIPT), "report", str(tmp_path / "lab.jsonl"),
                          str(tmp_path / "peers.json")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_a_peer_is_judged_against_our_kernel_in_its_own_loop(tmp_path):
    # Lab: ours 4.0 us, its copy 3.6 us -> 0.900. Peers' loop: copy_ 4.4, channels_last 3.9, ours 3.8 us.
    # Fastest copy 3.6 us: channels_last 3.6/3.9 = 0.923 is ahead of the lab's 0.900 (two loops), but behind
    # ours in its own loop, 3.6/3.8 = 0.947: not behind.
    lab = [lab_line("small", 4.0, 3.6)]
    peers = [{"case": "small", "copy_": 4.4e-6, "channels_last": 3.9e-6, "ours": 3.8e-6, "ours_verified": True}]
    out = report(tmp_path, lab, peers)
    assert "behind a peer: 0" in out
    assert "ours in the peers' loop: 1 cases, median 0.947, not verified there: 0" in out
    del peers[0]["ours"], peers[0]["ours_verified"]
    assert "behind: small ours 0.900 < channels_last 0.923 (two loops)" in report(tmp_path, lab, peers)


def test_a_peer_faster_in_the_same_loop_is_behind_even_where_the_lab_was_faster(tmp_path):
    # Lab: ours 4.0 us against its copy 4.2 us -> 1.050 (faster than the copy in its own loop). Peers' loop:
    # copy_ 4.6, channels_last 4.4, ours 4.5 us. Fastest copy 4.2: channels_last 4.2/4.4 = 0.955 beats ours
    # 4.2/4.5 = 0.933 in the same loop, although it is below the lab's 1.050.
    lab = [lab_line("small", 4.0, 4.2)]
    peers = [{"case": "small", "copy_": 4.6e-6, "channels_last": 4.4e-6, "ours": 4.5e-6, "ours_verified": True}]
    out = report(tmp_path, lab, peers)
    assert "behind a peer: 1" in out
    assert "behind: small ours 0.933 < channels_last 0.955 (one loop)" in out


def test_without_our_time_in_the_peers_loop_the_lab_is_compared(tmp_path):
    # No "ours" in the peers' file: lab 5.0 us, copy 4.0 -> 0.800; eager 4.5 us -> 0.889: behind (two loops).
    lab = [lab_line("big", 5.0, 4.0)]
    peers = [{"case": "big", "copy_": 4.1e-6, "eager": 4.5e-6}]
    out = report(tmp_path, lab, peers)
    assert "behind: big ours 0.800 < eager 0.889 (two loops)" in out


def test_a_kernel_that_failed_its_check_in_the_peers_loop_is_named_and_not_used(tmp_path):
    # ours_verified false: its time is not used (the lab's 1.000 is), and the case is listed.
    lab = [lab_line("bad", 4.0, 4.0)]
    peers = [{"case": "bad", "copy_": 4.4e-6, "eager": 8.0e-6, "ours": None, "ours_verified": False}]
    out = report(tmp_path, lab, peers)
    assert "behind a peer: 0" in out
    assert "ours not verified in the peers' loop: bad: its output differs" in out


def test_ours_is_against_its_own_loops_copy_when_the_loops_disagree(tmp_path):
    # Lab: ours 10.34 us, its copy 10.21 us -> 10.21/10.34 = 0.987. The peers' loop runs everything faster:
    # copy_ 8.16, ours 8.00, eager 13.66 us. Ours stays 0.987 (against 8.16 it would read 0.789, a loop's
    # speed and not the kernel's); in the peers' loop 8.16/8.00 = 1.020, eager 8.16/13.66 = 0.597.
    lab = [lab_line("c3", 10.34, 10.21)]
    peers = [{"case": "c3", "copy_": 8.16e-6, "ours": 8.00e-6, "ours_verified": True, "eager": 13.66e-6}]
    out = report(tmp_path, lab, peers)
    assert "ours median 0.987, min 0.987" in out
    assert "ours in the peers' loop: 1 cases, median 1.020" in out
    assert "eager: median 0.597 over 1 cases" in out
    assert "behind a peer: 0" in out


def test_two_loops_compare_times_over_one_copy(tmp_path):
    # No "ours" in the peers' loop. Lab: ours 5.0 us, its copy 4.0 -> 0.800. The peers' copy_ 3.0 us is the
    # fastest copy, so eager's 4.5 us reads 3.0/4.5 = 0.667; it still beat our 5.0 us, and over the same
    # copy ours reads 3.0/5.0 = 0.600: behind (two loops).
    lab = [lab_line("big", 5.0, 4.0)]
    peers = [{"case": "big", "copy_": 3.0e-6, "eager": 4.5e-6}]
    out = report(tmp_path, lab, peers)
    assert "ours median 0.800" in out
    assert "behind: big ours 0.600 < eager 0.667 (two loops)" in out


def test_with_the_loops_own_float4_copy_each_loop_is_against_its_own_copies(tmp_path):
    # Lab: ours 7.10 us, its copy 7.00 us -> 0.986. The peers' loop timed its own float4 copy (copy16
    # 8.16 us, copy_ 8.50 us): ours there 8.00 us -> 8.16/8.00 = 1.020 and eager 13.66 us -> 0.597, not
    # against the lab's 7.00 us (which would read 0.875 and 0.512).
    lab = [lab_line("c3", 7.10, 7.00)]
    peers = [{"case": "c3", "copy_": 8.50e-6, "copy16": 8.16e-6, "ours": 8.00e-6, "ours_verified": True,
              "eager": 13.66e-6}]
    out = report(tmp_path, lab, peers)
    assert "ours median 0.986" in out
    assert "ours in the peers' loop: 1 cases, median 1.020" in out
    assert "eager: median 0.597 over 1 cases" in out


def test_alternated_rounds_are_compared_round_by_round(tmp_path):
    # Five rounds with a noisy host. Ours 4.70, 12.06, 5.50, 9.73, 11.50 us; eager 6.62, 23.30, 7.26, 6.30,
    # 26.82 us. Each one's median alone: ours 9.73, eager 7.26 (eager ahead). Round by round ours/eager is
    # 0.710, 0.518, 0.758, 1.544, 0.429: median 0.710, ours ahead in 4 of 5: not behind.
    lab = [lab_line("r6", 5.60, 4.96)]
    ours_r = [4.70e-6, 12.06e-6, 5.50e-6, 9.73e-6, 11.50e-6]
    eager_r = [6.62e-6, 23.30e-6, 7.26e-6, 6.30e-6, 26.82e-6]
    peers = [{"case": "r6", "copy_": 8.00e-6, "copy16": 11.50e-6, "ours": 9.73e-6, "ours_verified": True,
              "eager": 7.26e-6, "ours_rounds_s": ours_r, "eager_rounds_s": eager_r}]
    assert "behind a peer: 0" in report(tmp_path, lab, peers)
    # Without the rounds the medians decide: copy_ 8.00 us is the loop's fastest copy, ours 8.00/9.73 =
    # 0.822 < eager 8.00/7.26 = 1.102.
    del peers[0]["ours_rounds_s"], peers[0]["eager_rounds_s"]
    assert "behind: r6 ours 0.822 < eager 1.102 (one loop)" in report(tmp_path, lab, peers)


def test_a_peer_ahead_in_most_rounds_is_behind_even_where_the_medians_tie(tmp_path):
    # Ours 5.0, 5.0, 5.0 us; channels_last 4.9, 5.1, 4.8 us. Medians 5.0 and 4.9. Round by round 1.020,
    # 0.980, 1.042: median 1.020 > 1, channels_last ahead in 2 of 3 rounds.
    lab = [lab_line("img", 4.4, 4.2)]
    peers = [{"case": "img", "copy_": 4.6e-6, "copy16": 4.5e-6, "ours": 5.0e-6, "ours_verified": True,
              "channels_last": 4.9e-6, "ours_rounds_s": [5.0e-6] * 3, "channels_last_rounds_s": [4.9e-6, 5.1e-6, 4.8e-6]}]
    out = report(tmp_path, lab, peers)
    assert "behind a peer: 1" in out
    # Fastest copy of the loop 4.5 us: ours 4.5/5.0 = 0.900, channels_last 4.5/4.9 = 0.918.
    assert "behind: img ours 0.900 < channels_last 0.918 (one loop, channels_last ahead in 2 of 3 rounds)" in out


def test_a_held_peers_loop_adds_the_lab_against_the_fastest_copy_of_either_loop(tmp_path):
    # Two cases. "a": lab ours 5.0 us, its copy 4.5 -> 0.900; the held peers' loop timed copy_ 4.0 and copy16
    # 4.4: against the fastest copy of either loop 4.0/5.0 = 0.800. "b": lab ours 2.0, copy 2.0 -> 1.000;
    # peers' copy_ 2.2, copy16 2.1: fastest 2.0, 1.000. Median of (0.800, 1.000) = 0.900, min 0.800 (a),
    # one below 0.90. Four samples the hold did not cover (3 of copy_, 1 of eager).
    lab = [lab_line("a", 5.0, 4.5), lab_line("b", 2.0, 2.0)]
    peers = [{"case": "a", "copy_": 4.0e-6, "copy16": 4.4e-6, "copy__unheld": 3, "eager_unheld": 1},
             {"case": "b", "copy_": 2.2e-6, "copy16": 2.1e-6, "copy__unheld": 0}]
    out = report(tmp_path, lab, peers, hold_s=0.001)
    assert "ours median 0.950, min 0.900" in out
    assert ("ours against the fastest copy of either loop (the peers' loop held 1000 us: GPU time alone), 2 cases: "
            "median 0.900, min 0.800 (a), below 0.75: 0, below 0.90: 1") in out
    assert "samples the hold did not cover (queued for longer than it): 4" in out
    # Without the hold the loops' copies are not comparable (Python's launch time is in one of them): no such line.
    assert "either loop" not in report(tmp_path, lab, peers)
