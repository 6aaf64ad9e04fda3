"""The parent's side of the per-request arrival patterns (:mod:`tfperf.arrival`): the
Poisson schedule of each block, drawn in advance, and how long a block lasts.

Pure Python: the worker receives the schedule with its sample command
(``protocol.SampleCommand``) and runs it (``timing.open_loop_block``).
"""

from __future__ import annotations

import random

from ...arrival import Arrival, ArrivalRecord, Pattern


def schedule(seed: str, index: int, requests: int, mean_gap_s: float) -> list[float]:
    """Arrival times of round ``index``'s Poisson block, in seconds from its start: the sums
    of ``requests`` exponential gaps of mean ``mean_gap_s``, drawn from a generator seeded
    with the scenario and the round, so a run can be replayed. Every slot of a round gets
    the same draws, scaled by its own mean gap (common random numbers): the variants of a
    round meet the same bursts and lulls, at their own rate, and so do the two blocks of
    the A/A pair."""
    rng = random.Random(f"{seed}/{index}/arrivals")
    out, t = [], 0.0
    for _ in range(requests):
        t += rng.expovariate(1.0) * mean_gap_s
        out.append(t)
    return out


def mean_gap(record: ArrivalRecord) -> float:
    """A Poisson pattern's mean time between arrivals: the inverse of its rate per second
    (``rate`` times the back-to-back throughput its worker measured)."""
    return 1.0 / record["rate_per_s"]


def block_seconds(record: ArrivalRecord) -> float:
    """About how long one block of a per-request pattern lasts: its requests, each a call of
    the back-to-back time, after the idle gap or, for Poisson, at its mean gap."""
    arrival = Arrival.of(record)
    service = record.get("service_s", 0.0)
    if arrival.pattern is Pattern.POISSON:
        return arrival.block * mean_gap(record) + service
    return arrival.block * (arrival.gap_s + service) + service
