"""Per-request arrival patterns without TensorFlow: a fake clock whose calls cost more after
idle (a wake-up cost) gives the expected p50 and p99 under each pattern, and the speedups
stay paired by round; the Poisson schedule is seeded, reproducible and open-loop (a slow
call delays the next start only when the next arrival has already passed); the worker
prepares and samples a pattern's case."""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfperf import stats
from tfperf.arrival import Arrival, Pattern
from tfperf.measure.supervise.rounds import block_seconds, mean_gap, schedule
from tfperf.measure.worker.serve import Worker
from tfperf.measure.worker.timing import SPIN_S, block, idle_block, open_loop_block, wait_until
from tfperf.stats import Budget

TICK = 1e-6           # what one turn of a spin on the clock lasts


class Server:
    """A fake clock and a fake call: a call costs ``warm_s`` right after another one, and
    ``cold_s`` after ``idle_s`` or more with nothing running (TensorFlow's thread pool and
    the CPU's caches gone cold), times the machine's speed of the moment (``drift``)."""

    def __init__(self, warm_s: float = 1e-3, cold_s: float = 2.3e-3, idle_s: float = 0.5e-3) -> None:
        self.now = 0.0
        self.warm_s, self.cold_s, self.idle_s = warm_s, cold_s, idle_s
        self.drift = 1.0
        self.last_done = -1.0
        self.starts: list[float] = []
        self.slept = 0.0
        self.reads = 0             # clock reads since the last call

    def clock(self) -> float:
        """The time. The harness reads it at most twice between two calls (after a call, and
        to see whether the next is due); more reads are a spin, each turn ``TICK`` long."""
        self.reads += 1
        if self.reads > 2:
            self.now += TICK
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.slept += seconds
        self.now += seconds

    def call(self) -> None:
        self.starts.append(self.now)
        cold = self.now - self.last_done >= self.idle_s
        self.now += (self.cold_s if cold else self.warm_s) * self.drift
        self.last_done = self.now
        self.reads = 0

    def idle(self, requests: int, gap_s: float) -> list[float]:
        return idle_block(self.call, requests, gap_s, self.clock, self.sleep)

    def open_loop(self, arrivals: list[float]) -> list[float]:
        return open_loop_block(self.call, arrivals, self.clock, self.sleep)


def _expected_open_loop(server: Server, arrivals: list[float]) -> list[float]:
    """The open-loop queue by hand (Lindley's recursion): a request starts at its arrival or
    when the one before completes, whichever is later; its latency runs from its arrival."""
    done, out = 0.0, []
    for at in arrivals:
        start = max(at, done)
        cold = start - done >= server.idle_s
        done = start + (server.cold_s if cold else server.warm_s)
        out.append(done - at)
    return out


def test_back_to_back_calls_cost_the_warm_time() -> None:
    server = Server()
    assert block(server.call, 64, server.clock) == pytest.approx(1e-3, abs=1e-6)


def test_a_request_after_an_idle_gap_costs_the_wake_up() -> None:
    """The issue's table: after 10 ms idle, 2.3x what back to back reports."""
    server = Server()
    latencies = server.idle(200, 0.010)
    assert len(latencies) == 200
    tail = stats.tail(latencies)
    assert [p.value for p in tail] == pytest.approx([2.3e-3] * 3, abs=1e-5)
    # Each gap was slept, up to the last SPIN_S spent reading the clock.
    assert server.slept == pytest.approx(201 * (0.010 - SPIN_S) - 0.010 + SPIN_S, rel=1e-3)
    gaps = np.diff(server.starts)
    assert np.allclose(gaps[1:], 0.010 + 2.3e-3, atol=1e-5)


def test_a_zero_gap_times_each_request_back_to_back() -> None:
    server = Server()
    assert stats.median(server.idle(50, 0.0)) == pytest.approx(1e-3, abs=1e-5)


def test_open_loop_latency_runs_from_the_scheduled_arrival() -> None:
    """A slow call delays the next start only when the next arrival has already passed."""
    server = Server(warm_s=1e-3, cold_s=5e-3)
    # After the untimed call: one at 1 ms (idle before it: 5 ms), one at 2 ms (arrives while
    # the first runs: waits until 6 ms, then a warm 1 ms), one at 20 ms (on time, cold).
    got = server.open_loop([1e-3, 2e-3, 20e-3])
    t0 = server.starts[0] + 5e-3          # the untimed call took 5 ms (the process was idle)
    assert server.starts[1] == pytest.approx(t0 + 1e-3, abs=1e-5)
    assert server.starts[2] == pytest.approx(t0 + 6e-3, abs=1e-5)     # queued behind the slow one
    assert server.starts[3] == pytest.approx(t0 + 20e-3, abs=1e-5)    # not delayed: its arrival had not passed
    assert got == pytest.approx([5e-3, 5e-3, 5e-3], abs=1e-5)        # 4 ms queued + 1 ms warm for the second


def test_the_poisson_pattern_queues_as_the_schedule_says() -> None:
    server = Server()
    arrivals = schedule("topic/batch=1@poisson-0.7#0", 3, 2000, mean_gap_s=1e-3 / 0.7)
    got = server.open_loop(arrivals)
    want = _expected_open_loop(server, arrivals)
    assert got == pytest.approx(want, abs=2 * TICK)
    p50, _, p99 = stats.tail(got)
    q50, q99 = np.quantile(want, [0.5, 0.99])
    assert p50.value == pytest.approx(q50, abs=2 * TICK) and p99.value == pytest.approx(q99, abs=2 * TICK)
    # At 70% of the back-to-back throughput most gaps are long enough to go cold: the
    # queue builds (the server is busier than 70%) and the tail is several calls long.
    assert p50.value > 2.3e-3 and p99.value > 3 * p50.value
    assert p99.ci_low is not None and p99.ci_high is not None and p99.ci_low <= p99.value <= p99.ci_high


def test_the_schedule_is_seeded_reproducible_and_shared_by_a_round() -> None:
    a = schedule("t/n=1@poisson-0.3#0", 5, 100, 0.002)
    assert a == schedule("t/n=1@poisson-0.3#0", 5, 100, 0.002)            # replayable
    assert a != schedule("t/n=1@poisson-0.3#0", 6, 100, 0.002)            # each round its own
    assert a != schedule("t/n=1@poisson-0.3#1", 5, 100, 0.002)            # each interleave its own
    # Common random numbers: every slot of a round has the same draws at its own rate.
    assert schedule("t/n=1@poisson-0.3#0", 5, 100, 0.004) == pytest.approx([2 * x for x in a])
    assert all(x < y for x, y in itertools.pairwise(a)) and a[0] > 0
    # Exponential gaps of the mean asked for: mean and standard deviation alike.
    gaps = np.diff([0.0, *schedule("s", 0, 20_000, 0.002)])
    assert gaps.mean() == pytest.approx(0.002, rel=0.03) and gaps.std() == pytest.approx(0.002, rel=0.03)


def test_tail_speedups_stay_paired_when_the_machine_drifts() -> None:
    """Two variants, a and b (b twice as fast, warm or cold), in interleaved rounds on a
    machine whose speed drifts by up to 2x between rounds: the per-round p50 ratios are 2
    in every round, and the p99 ratio resampled by rounds is 2 with no width at all,
    while a ratio whose two sides were resampled apart spreads over the drift."""
    a, b = Server(), Server(warm_s=0.5e-3, cold_s=1.15e-3, idle_s=0.25e-3)
    drift = np.random.default_rng(0).uniform(1.0, 2.0, 15)
    rounds_a, rounds_b = [], []
    for i, d in enumerate(drift):
        a.drift = b.drift = d
        arrivals = schedule("t@poisson-0.3#0", i, 40, 1.0)           # one draw per round, scaled per variant
        rounds_a.append(a.idle(20, 0.010) + a.open_loop([x * 1e-3 / 0.3 for x in arrivals]))
        rounds_b.append(b.idle(20, 0.010) + b.open_loop([x * 0.5e-3 / 0.3 for x in arrivals]))
    p50 = stats.paired_ratio([stats.median(r) for r in rounds_a], [stats.median(r) for r in rounds_b])
    assert p50 == pytest.approx((2.0, 2.0, 2.0), rel=1e-2)
    p99 = stats.paired_quantile_ratio(rounds_a, rounds_b, 0.99)
    assert p99 == pytest.approx((2.0, 2.0, 2.0), rel=1e-2)
    # Unpaired, each side's rounds resampled apart, the drift is in the interval.
    _, lo, hi = stats.ratio_ci([stats.median(r) for r in rounds_a], [stats.median(r) for r in rounds_b])
    assert hi - lo > 0.3


def test_wait_until_returns_at_once_when_the_time_has_passed() -> None:
    server = Server()
    server.now = 5.0
    wait_until(4.0, server.clock, server.sleep)
    assert server.slept == 0.0
    wait_until(5.01, server.clock, server.sleep)
    assert server.slept == pytest.approx(0.01 - SPIN_S, abs=1e-9) and 5.01 <= server.now <= 5.01 + TICK


def test_a_block_lasts_about_its_requests_and_gaps() -> None:
    idle = {**Arrival(Pattern.IDLE, gap_s=0.01).record(), "service_s": 0.001}
    assert block_seconds(idle) == pytest.approx(20 * 0.011 + 0.001)
    poisson = {**Arrival(Pattern.POISSON, rate=0.5, requests=10).record(), "service_s": 0.002, "rate_per_s": 250.0}
    assert mean_gap(poisson) == pytest.approx(0.004)
    assert block_seconds(poisson) == pytest.approx(10 * 0.004 + 0.002)


# -- the worker ---------------------------------------------------------------------------------

SNIPPET = "import numpy as np\n\ndef setup(p):\n    return {}\n\ndef f():\n    return np.arange(4.0)\n"
BUDGET = Budget(min_samples=3, max_samples=5, target_rel_ci=0.05, budget_s=0.1, warmup_s=0.0, min_sample_s=0.0005)


def _task(tmp_path: Path, arrival: Arrival) -> dict[str, Any]:
    (tmp_path / "t.py").write_text(SNIPPET)
    return {"id": "t/n=1/default/f" + (f"@{arrival.id}" if arrival.per_request else ""), "kind": "case",
            "case_id": "t/n=1/default/f", "snippet": str(tmp_path / "t.py"), "fn": "f", "setup": "setup",
            "params": {"n": 1}, "budget": BUDGET.__dict__, "tolerance": {"rtol": 1e-4, "atol": 1e-5},
            "is_reference": True, "slot": "t|n=1|default", "reference_fn": "f", "reference_setup": "setup",
            "reference_id": None, **({"arrival": arrival.record()} if arrival.per_request else {})}


def test_the_worker_samples_a_poisson_case(tmp_path: Path) -> None:
    w = Worker(channel=None)
    task = _task(tmp_path, Arrival(Pattern.POISSON, rate=0.5, requests=8))
    res = w.prepare(task)
    assert res["status"] == "ok", res["error"]
    service, none = w.sample(task["id"], back_to_back=True)          # the parent's calibration block
    assert none is None and service > 0
    seconds, latencies = w.sample(task["id"], schedule=schedule("s", 0, 8, service / 0.5))
    assert latencies is not None and len(latencies) == 8 and all(x > 0 for x in latencies)
    assert seconds == statistics.median(latencies)
    with pytest.raises(ValueError, match="no schedule"):
        w.sample(task["id"])


def test_the_worker_samples_an_idle_case_and_a_back_to_back_one(tmp_path: Path) -> None:
    w = Worker(channel=None)
    idle = _task(tmp_path, Arrival(Pattern.IDLE, gap_s=0.001, requests=5))
    assert w.prepare(idle)["status"] == "ok"
    _, latencies = w.sample(idle["id"])
    assert latencies is not None and len(latencies) == 5
    plain = _task(tmp_path, Arrival())
    plain["id"] = "t/n=1/default/f#plain"
    w.prepare(plain)
    seconds, none = w.sample(plain["id"])
    assert none is None and seconds > 0
    w.release(idle["id"])
    assert idle["id"] not in w.arrivals
