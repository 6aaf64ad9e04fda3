"""The stack sampler charges time to the phase that is on the stack."""

from __future__ import annotations

import time

from tfperf.measure.worker.timing import categorise, sample, top_functions


def build_pipeline():
    t = time.perf_counter()
    while time.perf_counter() - t < 0.006:
        pass


def run_step():
    t = time.perf_counter()
    while time.perf_counter() - t < 0.002:
        pass


def predict_like():
    build_pipeline()
    run_step()


RULES = [{"name": "pipeline", "match": ["(build_pipeline)"]}, {"name": "step", "match": ["(run_step)"]}]


def test_shares_follow_the_time_spent_in_each_phase():
    weights, total = sample(predict_like, 40, interval=0.0005)
    cats = categorise(weights, RULES)
    share = cats["pipeline"] / sum(cats.values())
    assert 0.6 < share < 0.9  # 6 ms of 8 ms
    assert total >= 40 * 0.008
    # Every frame under the test (pytest's, and xdist's in a worker) is as inclusive as
    # predict_like: look through all of them, not the top 25.
    names = [f for f, _, _ in top_functions(weights, n=len(weights) * 100)]
    assert any("predict_like" in f for f in names)


def test_frames_outside_the_boundary_do_not_match():
    weights, _ = sample(predict_like, 5)
    rules = [{"name": "outer", "match": ["(test_frames_outside_the_boundary_do_not_match)"]}]
    assert set(categorise(weights, rules)) == {"outer"}  # without a boundary the caller matches
    assert "outer" not in categorise(weights, rules, boundary="(predict_like)")
