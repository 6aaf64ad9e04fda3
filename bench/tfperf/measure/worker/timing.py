"""How the worker measures a call: the timing loop (first call, warm-up, calibration of
the inner loop, samples until the CI of the median is tight or the budget is spent); the
blocks of requests of the per-request arrival patterns (:mod:`tfperf.arrival`), each
request timed alone; and the stack sampler of the breakdown runs, which says where a call
spends its time.

The clock (and the sleep of the patterns) is injected, so the loops are tested with a fake
clock; nothing here knows TensorFlow. ``call`` must already include bringing the result to
the host (see ``tfperf.measure.worker.outputs.to_host``), so device work is finished before the
clock stops.

The stack sampler: a background thread looks at the main thread's Python stack every
``interval`` seconds and charges the time since its last look to that stack. Each stack is
put in the first category (in the given order) one of whose ``match`` substrings occurs in
any of its frames, so the categories are inclusive phases ("building the tf.data
pipeline"), not the C function that happened to be on top, and their shares add up to
one. Tested with plain Python functions.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...stats import Budget

if TYPE_CHECKING:
    # Types only: the worker runs in TensorFlow venvs without the store's dependencies
    # (jsonschema), and importing tfperf.store would load them (tests/measure/worker/test_worker_imports.py).
    from ...cases import CategoryRule
    from ...store.record_types import StoppedBy

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclass
class Timing:
    first_call_s: float
    first_output: Any
    warmup_calls: int
    warmup_s: float
    inner_loops: int
    samples: list[float] = field(default_factory=list)   # seconds per call
    stopped_by: StoppedBy = "ci"


def _loop(call: Callable[[], Any], n: int, clock: Clock) -> float:
    """Seconds for n calls. The loop body is kept minimal: its own cost is what the
    harness self-check measures (scripts/selfcheck.py)."""
    t0 = clock()
    for _ in range(n):
        call()
    return clock() - t0


def first_call(call: Callable[[], Any], clock: Clock = time.perf_counter) -> tuple[float, Any]:
    """Time the very first call on its own: tracing, compiling and building are a result."""
    t0 = clock()
    out = call()
    return clock() - t0, out


def calibrate(call: Callable[[], Any], min_sample_s: float, clock: Clock, max_loops: int = 1 << 22) -> int:
    """Smallest power of two of calls whose total lasts at least ``min_sample_s``."""
    n = 1
    while n < max_loops:
        dt = _loop(call, n, clock)
        if dt >= min_sample_s:
            break
        # Jump close to the target when far from it, doubling near it.
        n = max(n * 2, min(max_loops, int(n * min_sample_s / max(dt, 1e-9) * 0.8)))
    return min(n, max_loops)


def prepare(call: Callable[[], Any], budget: Budget, clock: Clock = time.perf_counter) -> Timing:
    """Everything before the steady state: the first call (timed on its own), the warm-up
    (>= 2 calls and ``warmup_s``) and the calibration of the inner loop. The returned
    ``Timing`` has no samples yet: interleaved rounds take them one block at a time
    (:func:`block`), or :func:`measure` takes them all at once."""
    first_s, first_out = first_call(call, clock)
    calls, t_start = 0, clock()
    while calls < 2 or clock() - t_start < budget.warmup_s:
        call()
        calls += 1
        if calls >= 10_000:
            break
    warm_s = clock() - t_start
    loops = calibrate(call, budget.min_sample_s, clock)
    return Timing(first_s, first_out, calls, warm_s, loops)


# A call longer than this gets no untimed call before its block: a worker's wake-up costs
# about a millisecond, under 1% of such a call, and the extra call would double its cost.
WARM_LIMIT_S = 0.1


def block(call: Callable[[], Any], loops: int, clock: Clock = time.perf_counter,
          warm: bool = False, call_s: float = 0.0) -> float:
    """One sample of an interleaved round: seconds per call over ``loops`` calls.

    The process was idle while other variants measured (its caches cold, its thread
    pool asleep), so a block of four or more calls starts with one untimed call; so does
    a shorter block when ``warm`` (the previous block ran in another process) and one call
    takes under ``WARM_LIMIT_S`` (``call_s``, the warm-up's time per call). Measured
    before this rule: blocks of one 12-35 ms call right after another process were 2-8%
    slower than the same block after its own process."""
    if loops >= 4 or (warm and call_s < WARM_LIMIT_S):
        call()
    return _loop(call, loops, clock) / loops


# The last stretch of a wait is spent reading the clock instead of sleeping: a sleep ends
# up to ~0.1 ms late (the kernel's timer slack and the scheduler), and that would count in
# the latency of a request that arrived on time. Short beside an idle gap of milliseconds.
SPIN_S = 0.0002


def wait_until(due: float, clock: Clock = time.perf_counter, sleep: Sleep = time.sleep) -> None:
    """Return at ``due`` (a time of ``clock``), at once when it has passed: sleep until
    ``SPIN_S`` before it, then read the clock until it comes."""
    while (left := due - clock()) > 0:
        if left > SPIN_S:
            sleep(left - SPIN_S)


def idle_block(call: Callable[[], Any], requests: int, gap_s: float, clock: Clock = time.perf_counter,
               sleep: Sleep = time.sleep) -> list[float]:
    """One block of the idle pattern: ``requests`` requests, each ``gap_s`` after the last
    one completed, with nothing running in between; the latency of each, in seconds.

    The block starts with one untimed call, so that its first request follows the gap, as
    every other does, and not the time the process sat idle while other slots measured."""
    call()
    done = clock()
    out = []
    for _ in range(requests):
        due = done + gap_s
        wait_until(due, clock, sleep)
        call()
        done = clock()
        out.append(done - due)
    return out


def open_loop_block(call: Callable[[], Any], arrivals: Sequence[float], clock: Clock = time.perf_counter,
                    sleep: Sleep = time.sleep) -> list[float]:
    """One block of an open-loop pattern (Poisson): a request arrives at each of ``arrivals``
    (seconds from the block's start, drawn in advance); the latency of each, from its
    arrival to its completion, in seconds.

    A request that arrives while the one before still runs starts when that one completes
    and its wait counts in its latency; a slow call delays the next start only when the
    next arrival has already passed. The block starts after one untimed call, as a busy
    server is warm (its first request would otherwise carry the idle time of the process
    while other slots measured: at 50 requests a block, that is the 98th percentile)."""
    call()
    t0 = clock()
    out = []
    for at in arrivals:
        due = t0 + at
        wait_until(due, clock, sleep)
        call()
        out.append(clock() - due)
    return out


def measure(call: Callable[[], Any], budget: Budget, clock: Clock = time.perf_counter) -> Timing:
    """Time ``call`` alone (no interleaving; the self-check and standalone runs): prepare,
    then samples of ``inner_loops`` calls each until ``budget.stop_rule`` says done."""
    timing = prepare(call, budget, clock)
    loops, rule = timing.inner_loops, budget.stop_rule
    t0 = clock()
    while True:
        timing.samples.append(_loop(call, loops, clock) / loops)
        elapsed = clock() - t0
        if rule.done(timing.samples, elapsed):
            n = len(timing.samples)
            timing.stopped_by = ("max_samples" if n >= rule.max_samples
                                 else "budget" if elapsed >= rule.budget_s or n < rule.min_samples
                                 else "ci")
            return timing


# -- the stack sampler of the breakdown runs -------------------------------------------------


def _stack(frame: Any) -> tuple[str, ...]:
    out = []
    while frame is not None:
        code = frame.f_code
        out.append(f"{code.co_filename}:{code.co_firstlineno}({code.co_name})")
        frame = frame.f_back
    return tuple(out)  # innermost first


def sample(call: Callable[[], Any], calls: int, interval: float = 0.0005) -> tuple[Counter[tuple[str, ...]], float]:
    """Run ``call`` ``calls`` times while sampling; return seconds per distinct stack and
    the total wall time."""
    target = threading.get_ident()
    weights: Counter[tuple[str, ...]] = Counter()
    stop = threading.Event()

    def sampler() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(interval)
            frame = sys._current_frames().get(target)
            now = time.perf_counter()
            if frame is not None:
                weights[_stack(frame)] += now - last  # type: ignore[assignment]  # seconds: typeshed counts ints
            last = now

    thread = threading.Thread(target=sampler, daemon=True)
    t0 = time.perf_counter()
    thread.start()
    try:
        for _ in range(calls):
            call()
    finally:
        stop.set()
        thread.join()
    return weights, time.perf_counter() - t0


def categorise(weights: Counter[tuple[str, ...]], rules: Sequence[CategoryRule],
               boundary: str | None = None) -> dict[str, float]:
    """Seconds per category. Frames outside the measured call (below ``boundary``, a
    substring of the outermost frame of interest) are ignored when matching."""
    out: dict[str, float] = {}
    for stack, secs in weights.items():
        frames = stack
        if boundary:
            idx = next((i for i, f in enumerate(stack) if boundary in f), None)
            frames = stack[:idx] if idx is not None else ()
        name = next((r["name"] for r in rules if any(m in f for f in frames for m in r["match"])), "other")
        out[name] = out.get(name, 0.0) + secs
    return out


def top_functions(weights: Counter[tuple[str, ...]], n: int = 25) -> list[tuple[str, float, float]]:
    """(function, inclusive seconds, own seconds) of the functions seen most often."""
    incl: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for stack, secs in weights.items():
        for f in set(stack):
            incl[f] += secs
        if stack:
            own[stack[0]] += secs
    return [(f, s, own[f]) for f, s in incl.most_common(n)]
