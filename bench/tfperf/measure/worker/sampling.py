"""Where does a call spend its time? A stack sampler for the breakdown runs.

A background thread looks at the main thread's Python stack every ``interval`` seconds
and charges the time since its last look to that stack. Each stack is put in the first
category (in the given order) one of whose ``match`` substrings occurs in any of its
frames, so the categories are inclusive phases ("building the tf.data pipeline"), not
the C function that happened to be on top, and their shares add up to one.
No TensorFlow here; tested with plain Python functions.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...cases import CategoryRule


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
