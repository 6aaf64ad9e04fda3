"""The "what changed since the source" lines of a "Do this" box: each figure a source
reported (quoted in ``docs/sources/<topic>.yaml``, credited with its link and licence) beside
today's verdict on the claim that tests it (:func:`tfperf.analyse.then_now.then_now`)::

    2019, “Why does keras model predict slower after compile?” (Stack Overflow, CC BY-SA 4.0):
    compile() made predict() 30× slower → today (TensorFlow 2.21), “model.predict(x) is
    slower after compile().”: refuted where clear, speedup 0.97× to 1.04× over 30 scenarios.
"""

from __future__ import annotations

import re

from ..analyse import Origin, ThenNow, listing, topic_then_now
from .context import Context
from .html import Markup, element, h, join, link, times

_CODE = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """Escaped text with `backticks` as <code>."""
    return Markup(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", str(h(text))))


def credit(origin: Origin) -> Markup:
    """The source named and credited: its title (linked when its address is known), its
    publisher and licence."""
    title = f"“{origin.title}”"
    named = link(origin.url, title, rel="noopener") if origin.url else element("em", title)
    extra = [x for x in (origin.publisher, origin.licence) if x]
    if not origin.url:
        extra.append("address not recorded")
    return join([named, f" ({', '.join(extra)})" if extra else ""])


def _today(t: ThenNow) -> Markup:
    releases = f" (TensorFlow {listing(list(t.releases))})" if t.releases else ""
    head = join([element("strong", "today"), releases, f", “{t.claim_text}”: "])
    if not t.measured:
        return join([head, t.today])
    span = times(t.low) if t.low == t.high else f"{times(t.low)} to {times(t.high)}"
    n = f"{t.scenarios} scenario{'s' if t.scenarios != 1 else ''}"
    return join([head, element("strong", t.today), f", speedup {span} over {n}"])


def figure_line(t: ThenNow) -> Markup:
    """"compile() made predict() 30× slower (context) → today (TensorFlow 2.21), “claim”:
    refuted, speedup 0.97× to 1.04× over 30 scenarios"; the verbatim quote is its tooltip."""
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
