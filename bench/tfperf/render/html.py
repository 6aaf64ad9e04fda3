"""Building HTML safely: every string that comes from data is escaped.

``Markup`` marks HTML this package built itself; anything else passed to :func:`h`,
:func:`element` or :func:`table` is escaped, so a CPU name of
``<script>alert(1)</script>`` shows as text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..analyse import ratio_text


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


def table(headers: Sequence[Any], rows: Iterable[Sequence[Any]], class_: str = "tfperf-table") -> Markup:
    head = "".join(element("th", c) for c in headers)
    body = "".join("<tr>" + "".join(element("td", c) for c in row) + "</tr>" for row in rows)
    # The class goes on the wrapper: Material styles only tables without a class.
    return Markup(f'<div class="tfperf-table-wrap {h(class_)}"><table><thead><tr>{head}</tr></thead>'
                  f"<tbody>{body}</tbody></table></div>")


def admonition(kind: str, title: Any, body: Any) -> Markup:
    """A Material admonition box (note, warning, failure, info)."""
    return Markup(f'<div class="admonition {h(kind)}"><p class="admonition-title">{h(title)}</p>{h(body)}</div>')


def script_json(obj: Any) -> Markup:
    """JSON safe to put inside <script type="application/json">: no "</script>" breakout."""
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


# -- number formats (presentation only; the values come from the analysis) -------------

def seconds(x: float | None) -> str:
    if x is None:
        return "–"
    x = float(f"{x:.3g}")         # rounded first: 0.000999999 is "1 ms", not "1e+03 µs"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def seconds_range(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "–"
    return f"{seconds(lo)} – {seconds(hi)}"


def times(x: float | None) -> str:
    """A speedup factor as every page prints it: 2.3×, 0.48× (``analyse.effects.ratio_text``)."""
    return ratio_text(x)


def times_ci(point: float | None, lo: float | None, hi: float | None) -> str:
    if point is None:
        return "–"
    return f"{times(point)} (95% CI {times(lo)}–{times(hi)})"


def percent(x: float) -> str:
    return f"{x * 100:.2g}%"
