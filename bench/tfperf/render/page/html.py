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

from .numbers import percent, seconds, seconds_range, times, times_ci


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


# Number formats live in .numbers; the modules that print a figure beside their markup import
# them from here too.
__all__ = ["FOLD_ROWS", "Markup", "admonition", "again", "element", "fold", "h", "hidden", "join", "link",
           "percent", "rows_text", "script_json", "seconds", "seconds_range", "table", "times", "times_ci"]
