"""Numbers as the pages write them: every rule of how a figure is printed, in one place.

* A time has three significant digits in the largest unit that keeps it at 1 or more
  (``1.32 ms``, ``672 µs``); a negative one takes a minus sign (``−528 µs``), after which a
  line never breaks.
* A speedup: ``2.3×``, ``0.48×``, ``11×`` (:func:`tfperf.analyse.ratio_text`).
* A share or a difference is a percentage, never a power of ten: ``100%``, ``190%``,
  ``12%``, ``6.7%``, ``0.4%``.
* An estimate of a cost that cannot be below 0 (a call's fixed cost, a step's cost) whose
  95% CI reaches 0 reads ``≈ 0 (within noise)``; its estimate and interval go to the detail.

Presentation only: the values come from the analysis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...analyse import ratio_text

MINUS = "\u2212"          # a minus sign: "−528 µs" stays on one line, "-528" may break after "-"
WITHIN_NOISE = "≈ 0 (within noise)"
BELOW_ZERO = "below 0: the line is off"


def _number(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def seconds(x: float | None) -> str:
    """``1.32 ms``; ``–`` for no value."""
    x = _number(x)
    if x is None:
        return "–"
    if x < 0:
        return MINUS + seconds(-x)
    x = float(f"{x:.3g}")         # rounded first: 0.000999999 is "1 ms", not "1e+03 µs"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def seconds_range(lo: float | None, hi: float | None) -> str:
    """``967 µs – 1.57 ms``."""
    if _number(lo) is None or _number(hi) is None:
        return "–"
    return f"{seconds(lo)} – {seconds(hi)}"


def times(x: float | None) -> str:
    """A speedup factor as every page prints it: 2.3×, 0.48× (``analyse.effects.ratio_text``)."""
    return ratio_text(x)


def times_ci(point: float | None, lo: float | None, hi: float | None) -> str:
    """``1.6× (95% CI 0.593×–1.68×)``."""
    if point is None:
        return "–"
    return f"{times(point)} (95% CI {times(lo)}–{times(hi)})"


def percent(x: float | None) -> str:
    """A fraction as a percentage: 0.995 is ``100%``, 1.9 ``190%``, 0.067 ``6.7%``, 0.004
    ``0.4%``: whole numbers from 10% up, two significant digits below, ``<0.01%`` for less."""
    x = _number(x)
    if x is None:
        return "–"
    p = x * 100
    if p < 0:
        return MINUS + percent(-x)
    if p == 0:
        return "0%"
    if p >= 9.95:
        return f"{p:.0f}%"
    if p < 0.01:
        return "<0.01%"
    return f"{p:.2g}%"


def count(x: float) -> str:
    """A number of steps or calls: ``∞`` when unbounded, two significant digits below 10."""
    if math.isinf(x):
        return "∞"
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


@dataclass(frozen=True)
class Shown:
    """An estimate as a page shows it: ``text`` for the cell, ``detail`` (its interval, and
    the estimate where the text does not give it) in smaller type beside or under it."""

    text: str
    detail: str

    def __str__(self) -> str:
        return f"{self.text} ({self.detail})"


def cost(point: float, low: float, high: float, fmt: Callable[[float], str] = seconds) -> Shown:
    """A cost that cannot be below 0, with its 95% CI. Where the CI reaches 0 the cost cannot
    be told from none: ``≈ 0 (within noise)``; where all of it is below 0 the fit is wrong
    (no call costs less than nothing), and the text says so. Either way the estimate and its
    interval stay in the detail."""
    interval = f"95% CI {fmt(low)} to {fmt(high)}"
    if high < 0:
        return Shown(BELOW_ZERO, f"estimate {fmt(point)}, {interval}")
    if low <= 0:
        return Shown(WITHIN_NOISE, f"estimate {fmt(point)}, {interval}")
    return Shown(fmt(point), interval)


def cost_text(point: float, low: float, high: float, fmt: Callable[[float], str] = seconds) -> str:
    """The cost in running text: its figure, or ``≈ 0 (within noise)`` (:func:`cost`)."""
    return cost(point, low, high, fmt).text


__all__ = ["BELOW_ZERO", "MINUS", "WITHIN_NOISE", "Shown", "cost", "cost_text", "count", "percent", "seconds",
           "seconds_range", "times", "times_ci"]
