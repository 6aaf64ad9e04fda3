"""The "what changed since the source" lines of a "Do this" box: each figure a source
reported (quoted in ``docs/sources/<topic>.yaml``, credited with its link and licence) beside
today's finding on the claim that tests it (:func:`tfperf.analyse.views.then_now.then_now`), in the
words every other place uses::

    2019, “Why does keras model predict slower after compile?” (Stack Overflow, CC BY-SA 4.0):
    compile() made predict() 30× slower → today (TensorFlow 2.21, 2-core Intel Xeon (AMX)):
    does not hold: the same in 28 of 30 scenarios (0.96×–1.01×); ...
"""

from __future__ import annotations

import re

from ...analyse import Origin, ThenNow, topic_then_now
from ..page.context import Context, badge, stated
from ..page.html import Markup, element, h, join, link

_CODE = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """Escaped text with `backticks` as <code>."""
    return Markup(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", str(h(text))))


def credit(origin: Origin) -> Markup:
    """The source named and credited: its title (linked when its address is known), its
    publisher and licence. A source without an address is named by its title alone, with
    the date the line starts with."""
    title = f"“{origin.title}”"
    named = link(origin.url, title, rel="noopener") if origin.url else element("em", title)
    extra = [x for x in (origin.publisher, origin.licence) if x]
    return join([named, f" ({', '.join(extra)})" if extra else ""])


def _today(t: ThenNow) -> Markup:
    a = t.answer
    if a is None or not a.runners:
        return join([element("strong", "today"), ": no results yet"])
    parts = [join([element("strong", "today"), f" (TensorFlow {r.releases}, {r.hardware}): ", badge(r.verdict),
                   f", {a.candidate}{' ' + a.scope if a.scope else ''} against {a.baseline}: ",
                   stated(r.text, a.topic, a.claim_id, r.runner, r.releases, r.finding)])
             for r in a.runners]
    return join(parts, "; ")


def figure_line(t: ThenNow) -> Markup:
    """"compile() made predict() 30× slower (context) → today (TensorFlow 2.21, hardware):
    does not hold: the same in ..."; the verbatim quote is its tooltip."""
    fig = t.figure
    then = element("span", code_spans(fig.then), class_="tfperf-then", title=f"“{fig.quote}”")
    context = element("span", f" ({fig.context})", class_="tfperf-then-context") if fig.context else ""
    return join([then, context, " → ", _today(t), "."])


def then_now_html(ctx: Context, topic: str) -> Markup:
    """The lines for ``topic``, one per source (its figures under it), or nothing when its
    sources file names no figure."""
    lines = topic_then_now(ctx.ds, topic, ctx.sources)
    if not lines:
        return Markup("")
    by_origin: dict[Origin, list[ThenNow]] = {}
    for t in lines:
        by_origin.setdefault(t.figure.origin, []).append(t)
    items = []
    for origin, ts in by_origin.items():
        head = join([element("strong", origin.date), ", ", credit(origin), ": "])
        if len(ts) == 1:
            items.append(element("li", join([head, figure_line(ts[0])])))
        else:
            items.append(element("li", join([head, element("ul", join(element("li", figure_line(t)) for t in ts))])))
    return join([Markup('<p class="tfperf-since-title">What changed since the source '
                        '<span class="tfperf-since-note">(its figures are quoted: historical, and measured on other '
                        'machines; today’s are this guide’s)</span>:</p>'),
                 element("ul", join(items), class_="tfperf-since")])
