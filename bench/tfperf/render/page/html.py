"""How a page writes: HTML built safely, and numbers as the pages print them.

HTML: every string that comes from data is escaped. ``Markup`` marks HTML this package
built itself; anything else passed to :func:`h`, :func:`element` or :func:`table` is
escaped, so a CPU name of ``<script>alert(1)</script>`` shows as text.

Numbers: every rule of how a figure is printed, in one place.

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

import html
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...analyse import ratio_text


class Markup(str):
    """A string of trusted HTML."""


def h(value: Any) -> Markup:
    """Escape anything that is not already Markup."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("")
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[Any], sep: str = "") -> Markup:
    return Markup(h(sep).join(h(p) for p in parts))


def element(tag: str, content: Any = "", **attrs: Any) -> Markup:
    """<tag attrs>content</tag>; attribute values are escaped (``class_`` -> ``class``)."""
    a = "".join(f' {k.rstrip("_").replace("_", "-")}="{h(v)}"' for k, v in attrs.items() if v is not None)
    return Markup(f"<{tag}{a}>{h(content)}</{tag}>")


def link(href: str, text: Any, **attrs: Any) -> Markup:
    return element("a", text, href=href, **attrs)


def again(text: Any) -> Markup:
    """A cell's text repeated from the row above: shown where each row stands alone (a table
    laid out as cards on a phone), read by screen readers, not shown in the table itself."""
    return element("span", text, class_="tfperf-again")


def hidden(text: Any) -> Markup:
    """Text for screen readers only (a table header whose column speaks for itself)."""
    return element("span", text, class_="tfperf-sr")


def table(headers: Sequence[Any], rows: Iterable[Sequence[Any]], class_: str = "tfperf-table") -> Markup:
    """A table in its own scroll box. A column with nothing in any row is left out (a stale
    mark where nothing is stale); every column shown has a header with a name, at least one a
    screen reader says (:func:`hidden`)."""
    body_rows = [[h(c) for c in row] for row in rows]
    keep = [i for i in range(len(headers)) if any(i < len(r) and r[i] for r in body_rows)] if body_rows \
        else list(range(len(headers)))
    nameless = [i for i in keep if not h(headers[i]).strip()]
    if nameless:
        raise ValueError(f"table column {nameless[0] + 1} has content but no header")
    head = "".join(element("th", headers[i]) for i in keep)
    body = "".join("<tr>" + "".join(element("td", r[i] if i < len(r) else "") for i in keep) + "</tr>"
                   for r in body_rows)
    # The class goes on the wrapper: Material styles only tables without a class.
    return Markup(f'<div class="tfperf-table-wrap {h(class_)}"><table><thead><tr>{head}</tr></thead>'
                  f"<tbody>{body}</tbody></table></div>")


FOLD_ROWS = 12      # a table of more rows starts folded on a phone


def fold(summary: Any, body: Any, rows: int, class_: str = "tfperf-runner", open_: bool = True) -> Markup:
    """A table and what goes with it under a summary that says what it holds and how many
    rows (the caller's words: "2-core AMD EPYC (AVX2): 30 scenarios"). Open on a wide screen
    unless ``open_`` is false; on a phone, one of more than FOLD_ROWS rows starts folded, one tap away
    (docs/assets/tfperf.js), so that a topic page is not thirty cards long."""
    long = rows > FOLD_ROWS
    return Markup(f'<details class="{h(class_)}"{" open" if open_ else ""}{" data-tfperf-fold" if long else ""}>'
                  f"<summary>{h(summary)}</summary>{h(body)}</details>")


def rows_text(n: int, what: str = "row") -> str:
    """"1 scenario", "30 scenarios"."""
    return f"{n} {what}{'' if n == 1 else 's'}"


def admonition(kind: str, title: Any, body: Any) -> Markup:
    """A Material admonition box (note, warning, failure, info)."""
    return Markup(f'<div class="admonition {h(kind)}"><p class="admonition-title">{h(title)}</p>{h(body)}</div>')


def script_json(obj: Any) -> Markup:
    """JSON safe to put inside <script type="application/json">: no "</script>" breakout."""
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


# -- numbers ------------------------------------------------------------------------------

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


__all__ = ["BELOW_ZERO", "FOLD_ROWS", "MINUS", "WITHIN_NOISE", "Markup", "Shown", "admonition", "again", "cost",
           "cost_text", "count", "element", "fold", "h", "hidden", "join", "link", "percent", "rows_text",
           "script_json", "seconds", "seconds_range", "table", "times", "times_ci"]
