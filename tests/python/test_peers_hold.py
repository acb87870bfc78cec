"""The peers' sampling loop (bench/peers/peers.py `measure`) against a model of one CUDA stream, with no GPU: the
host spends time queuing each call, the stream runs queued work in order, and an event's time is when the stream
reaches it. A kernel of K us launched from a host that takes L > K us to launch it is timed at about L without a
hold; with a hold longer than the queuing (torch.cuda._sleep after the flush) every sample is K exactly, and a
hold shorter than the queuing counts the samples it did not cover. The expected times follow from the model's
costs, worked out by hand below."""

import importlib.util
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RATE = 2.0e9  # the model GPU's clock: cycles per second


class Stream:
    """One host thread and one in-order GPU stream; times in seconds."""

    def __init__(self):
        self.host = 0.0  # when the host is
        self.free = 0.0  # when the stream has finished everything queued so far

    def queue(self, host_cost, gpu_time):
        self.host += host_cost
        self.free = max(self.host, self.free) + gpu_time


def fake_torch(stream):
    class Event:
        def __init__(self, enable_timing=False):
            self.t = None

        def record(self):
            stream.queue(0.5e-6, 0.0)  # half a microsecond of host time to queue an event
            self.t = stream.free

        def synchronize(self):
            stream.host = max(stream.host, self.t)

        def elapsed_time(self, end):
            return (end.t - self.t) * 1e3  # milliseconds, as CUDA events

    cuda = types.SimpleNamespace(
        Event=Event,
        synchronize=lambda: setattr(stream, "host", max(stream.host, stream.free)),
        _sleep=lambda cycles: stream.queue(1e-6, cycles / RATE),
    )
    return types.SimpleNamespace(cuda=cuda)


@pytest.fixture
def model(monkeypatch):
    stream = Stream()
    monkeypatch.setitem(sys.modules, "torch", fake_torch(stream))
    spec = importlib.util.spec_from_file_location("peers_under_test", ROOT / "bench" / "peers" / "peers.py")
    peers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers)
    # The loop's deadline and its queuing check read the model's host clock.
    monkeypatch.setattr(peers, "time", types.SimpleNamespace(monotonic=lambda: stream.host,
                                                             perf_counter=lambda: stream.host))
    return stream, peers


class Flush:
    """The cold-L2 flush: 2 us of host time to queue, 40 us on the GPU."""

    def __init__(self, stream):
        self.stream = stream

    def zero_(self):
        self.stream.queue(2e-6, 40e-6)


def kernel(stream, launch_s, run_s):
    return lambda: stream.queue(launch_s, run_s)


def test_hold_cycles_is_the_clock_rate_times_the_hold(model):
    stream, peers = model
    # The model's clock is 2 GHz: 1 ms is 2,000,000 cycles.
    assert peers.hold_cycles(1e-3) == 2_000_000


def test_without_a_hold_a_slow_launch_is_timed_with_the_kernel(model):
    stream, peers = model
    # Per sample: flush queued at +2 us, the stream busy with it until +42 us; start event queued at +2.5 us,
    # reached at +42; the kernel's launch takes the host 60 us (until +62.5), it runs 3 us (+62.5 to +65.5);
    # the end event is reached at +65.5. Sample: 65.5 - 42 = 23.5 us, not the kernel's 3 us.
    stats = peers.measure(kernel(stream, 60e-6, 3e-6), Flush(stream), seconds=0.01)
    assert stats["median_s"] == pytest.approx(23.5e-6, abs=1e-9)
    assert "unheld" not in stats


def test_a_hold_longer_than_the_queuing_times_the_kernel_alone(model):
    stream, peers = model
    # A 1 ms hold: the start event, the 60 us launch and the end event are all queued while the stream spins,
    # so the start event is reached when the spin ends and the end event 3 us later.
    hold = (1e-3, peers.hold_cycles(1e-3))
    stats = peers.measure(kernel(stream, 60e-6, 3e-6), Flush(stream), seconds=0.05, hold=hold)
    assert stats["median_s"] == pytest.approx(3e-6, abs=1e-9)
    assert stats["unheld"] == 0


def test_a_hold_shorter_than_the_queuing_counts_every_sample_it_missed(model):
    stream, peers = model
    # A 20 us hold against 61 us of queuing (0.5 + 60 + 0.5): the spin (queued 1 us after the flush) ends at
    # +62 us; start reached at +62, the launch ends on the host at +63.5, the kernel runs to +66.5: 4.5 us.
    # Every sample's queuing outlasted the hold: all are counted.
    hold = (20e-6, peers.hold_cycles(20e-6))
    stats = peers.measure(kernel(stream, 60e-6, 3e-6), Flush(stream), seconds=0.01, hold=hold)
    assert stats["median_s"] == pytest.approx(4.5e-6, abs=1e-9)
    assert stats["unheld"] == stats["samples"] > 0
