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


# Number formats live in .numbers; the modules that print a figure beside their markup import
# them from here too.
__all__ = ["Markup", "admonition", "element", "h", "join", "link", "percent", "script_json", "seconds",
           "seconds_range", "table", "times", "times_ci"]
