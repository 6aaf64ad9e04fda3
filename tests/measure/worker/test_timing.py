"""The timing loop and the output check, driven by a fake clock and fake device tensors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tfperf.measure.worker.outputs import compare, to_host
from tfperf.measure.worker.timing import calibrate, measure
from tfperf.stats import Budget, summarize


class FakeClock:
    """Time advances only when the fake function runs: ``cost(i)`` seconds for call i."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_call(clock: FakeClock, costs):
    it = iter(costs)

    def call():
        clock.now += next(it)
        return np.ones(3)

    return call


BUDGET = Budget(min_samples=10, max_samples=50, target_rel_ci=0.02, budget_s=5.0, warmup_s=0.01,
                min_sample_s=0.01)


def test_first_call_is_timed_apart_from_the_steady_state():
    clock = FakeClock()
    call = make_call(clock, itertools.chain([2.0], itertools.repeat(1e-4)))
    t = measure(call, BUDGET, clock)
    assert t.first_call_s == pytest.approx(2.0)
    med = sorted(t.samples)[len(t.samples) // 2]
    assert med == pytest.approx(1e-4)
    assert t.warmup_calls >= 2


def test_calibration_makes_one_sample_last_at_least_min_sample_s():
    clock = FakeClock()
    call = make_call(clock, itertools.repeat(3e-6))
    loops = calibrate(call, 0.01, clock)
    assert loops * 3e-6 >= 0.01
    assert loops * 3e-6 < 0.05  # but not wildly more


def test_constant_times_stop_on_a_tight_ci_after_min_samples():
    clock = FakeClock()
    t = measure(make_call(clock, itertools.repeat(1e-3)), BUDGET, clock)
    assert t.stopped_by == "ci"
    assert len(t.samples) == BUDGET.min_samples


def test_noisy_times_stop_at_the_budget_or_max_samples():
    rng = np.random.default_rng(1)
    clock = FakeClock()
    costs = (1e-3 * (1 + 5 * rng.random()) for _ in itertools.count())
    t = measure(make_call(clock, costs), BUDGET, clock)
    assert t.stopped_by in ("budget", "max_samples")
    assert len(t.samples) >= BUDGET.min_samples


def test_a_steady_call_times_at_its_cost():
    clock = FakeClock()
    t = measure(make_call(clock, itertools.repeat(2e-3)), BUDGET, clock)
    assert summarize(t.samples).median == pytest.approx(2e-3)
    assert t.inner_loops >= 1


class FakeDeviceTensor:
    """A tensor whose value is only ready after .numpy() (the synchronisation point)."""

    synced = 0

    def __init__(self, value):
        self._value = np.asarray(value)

    def numpy(self):
        FakeDeviceTensor.synced += 1
        return self._value


def test_to_host_synchronises_every_tensor_in_a_nested_output():
    FakeDeviceTensor.synced = 0
    out = to_host({"a": FakeDeviceTensor([1.0]), "b": [FakeDeviceTensor([2.0]), (FakeDeviceTensor([3.0]),)]})
    assert FakeDeviceTensor.synced == 3
    assert isinstance(out["b"][1][0], np.ndarray)


def test_timed_call_includes_the_device_sync():
    """The clock must stop after the result is on the host: with a fake device whose
    work is paid in .numpy(), the measured time includes that work."""
    clock = FakeClock()

    class Lazy:
        def numpy(self):
            clock.now += 5e-3  # device work finishes here
            return np.zeros(2)

    t = measure(lambda: to_host(Lazy()), BUDGET, clock)
    assert sorted(t.samples)[len(t.samples) // 2] == pytest.approx(5e-3)


def test_compare_within_and_outside_tolerance():
    ref = np.array([1.0, 2.0, 3.0])
    ok = compare(ref + 1e-7, ref, rtol=1e-5, atol=1e-6)
    assert ok["within_tolerance"] and ok["max_abs_diff"] == pytest.approx(1e-7)
    bad = compare(ref * 1.01, ref, rtol=1e-5, atol=1e-6)
    assert not bad["within_tolerance"] and bad["max_rel_diff"] == pytest.approx(0.01)


def test_compare_shape_mismatch_and_non_numeric_are_flagged():
    assert compare(np.ones(3), np.ones(4), 1e-5, 1e-6)["within_tolerance"] is False
    assert "shape" in compare(np.ones(3), np.ones(4), 1e-5, 1e-6)["note"]
    assert compare(None, np.ones(2), 1e-5, 1e-6)["within_tolerance"] is False


def test_compare_nan_where_reference_is_finite_is_wrong():
    assert compare(np.array([np.nan, 1.0]), np.array([0.0, 1.0]), 1e-5, 1e-6)["within_tolerance"] is False


def _counting_call(clock: FakeClock, cost: float):
    calls = []

    def call():
        calls.append(clock.now)
        clock.now += cost

    return call, calls


def test_a_short_block_after_another_process_starts_with_an_untimed_call():
    from tfperf.measure.worker.timing import WARM_LIMIT_S, block
    clock = FakeClock()
    call, calls = _counting_call(clock, 0.02)
    assert block(call, 1, clock) == pytest.approx(0.02) and len(calls) == 1       # same process
    calls.clear()
    assert block(call, 1, clock, warm=True, call_s=0.02) == pytest.approx(0.02)
    assert len(calls) == 2                                                        # one untimed
    calls.clear()
    block(call, 1, clock, warm=True, call_s=WARM_LIMIT_S * 2)                     # a long call: no
    assert len(calls) == 1
    calls.clear()
    block(call, 4, clock)                                                         # 4+ calls: always
    assert len(calls) == 5
