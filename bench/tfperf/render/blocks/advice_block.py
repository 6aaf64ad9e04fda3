"""The "Do this" box at the top of a topic page (``<!-- tfperf:dothis TOPIC -->``): the
answer first, computed from the data by :func:`tfperf.analyse.views.advice.advise` (the call to
use), or for a topic that declares ``baseline_settings`` by
:func:`tfperf.analyse.views.settings_advice.advise_settings` (the setting to change, if any);
then what changed since the source (``render/blocks/then_now_lines.py``)."""

from __future__ import annotations

from ...analyse import Dataset, advise, hardware_name
from ..page.context import Context, Directive, no_results
from ..page.html import Markup, admonition, element, h, join, times
from .settings_advice_block import settings_advice_body
from .then_now_lines import then_now_html


def block_dothis(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    ds = ctx.ds
    info = ds.topics.get(topic)
    body = (settings_advice_body(ds, topic) if info is not None and info.baseline_settings
            else _variant_body(ds, topic))
    if body is None:
        return no_results(ds, f"Advice for {topic}")
    return admonition("tip", "Do this", join([body, then_now_html(ctx, topic)]))


def _variant_body(ds: Dataset, topic: str) -> Markup | None:
    a = advise(ds, topic)
    if a is None:
        return None
    default = ds.label(topic, a.default)
    if a.use is None or not a.runners:
        return Markup(f"<p>Keep <strong>{h(default)}</strong>: in most scenarios measured no other variant with "
                      f"correct output is faster.</p>")
    per = ":" if a.per == "call" else f". Per {a.per}, each call's fixed start-up apart:"
    lines = [element("li", join([element("strong", hardware_name(ds.runners.get(r.runner), r.runner)), ": ",
                                 f"typically {times(r.typical)}, " if r.typical else "", r.text]))
             for r in a.runners]
    body = [Markup(f"<p>Use <strong>{h(ds.label(topic, a.use))}</strong> instead of {h(default)}{h(per)}</p>"),
            element("ul", join(lines))]
    if a.per_call:
        first = a.per_call[0]
        body.append(Markup(f"<p><small>Per call of the fewest {h(a.per)}s measured, its start-up included: "
                           f"{h(first.text)}"
                           f"{' (on the ' + h(hardware_name(ds.runners.get(first.runner), first.runner)) + ')' if len(a.per_call) > 1 else ''}"
                           ".</small></p>"))
    if a.level_with:
        level = ", ".join(f"{ds.label(topic, v)} (in {n})" for v, n in a.level_with.most_common())
        body.append(Markup(f"<p>Where it is the fastest, these are not clearly slower: {h(level)}.</p>"))
    return join(body)
