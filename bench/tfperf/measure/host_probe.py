"""The host probe: the same small piece of CPU work, timed before and after every scenario.

Two runs of one scenario on the same CPU model, with the same code and TensorFlow, can
differ by more than either run's interval: these runners are virtual machines on shared
hosts, and a host can be slower one day than the next for reasons no counter inside the
machine shows (the load and the other processes' share stay low). The speedups then move
with it, because the cases do not all slow down by the same factor. The probe lets the data
say so: it times a fixed piece of work (a Python loop, a numpy sort and a vectorised
``exp``) in the supervising process, so that two runs can be compared by their probes
("the second run's host took 1.6x as long on the probe").

It runs single-threaded, without TensorFlow, for a few milliseconds: the median of
``REPEATS`` runs after one warm-up, in milliseconds. It is a sign of the host's speed, not a
correction: nothing divides a result by it. Change the work and the probes of earlier runs
no longer compare, so the work is fixed, and ``VERSION`` names it in the schema's
description.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

VERSION = 1            # the work below; a different work needs another field name
REPEATS = 7
LOOP = 10_000          # iterations of the Python loop
SORTED = 20_000        # float32 values sorted
EXP = 100_000          # float32 values through exp


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261207)
    return rng.standard_normal(SORTED).astype(np.float32), rng.standard_normal(EXP).astype(np.float32)


def work(to_sort: np.ndarray, to_exp: np.ndarray) -> float:
    """The probe's work; returns a number so that none of it can be skipped."""
    total = 0
    for i in range(LOOP):
        total += (i * i) % 7
    return total + float(np.sort(to_sort)[0]) + float(np.exp(to_exp).sum())


def probe_ms(clock: Callable[[], float] = time.perf_counter, repeats: int = REPEATS,
             job: Callable[[np.ndarray, np.ndarray], object] = work) -> float:
    """Milliseconds the work took: the median of ``repeats`` runs, after one not counted."""
    to_sort, to_exp = _data()
    job(to_sort, to_exp)
    times = []
    for _ in range(repeats):
        t0 = clock()
        job(to_sort, to_exp)
        times.append(clock() - t0)
    return round(statistics.median(times) * 1000, 4)
