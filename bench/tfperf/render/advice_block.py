"""The "Do this" box at the top of a topic page (``<!-- tfperf:dothis TOPIC -->``): the
answer first, computed from the data by :func:`tfperf.analyse.advice.advise` (the call to
use), or for a topic that declares ``baseline_settings`` by
:func:`tfperf.analyse.settings_advice.advise_settings` (the setting to change, if any);
then what changed since the source (``render/then_now_lines.py``)."""

from __future__ import annotations

from ..analyse import Dataset, Scenario, advise, settings_id
from .context import Context, no_results
from .directives import Directive
from .html import Markup, admonition, element, h, join, times
from .settings_advice_block import settings_advice_body
from .then_now_lines import then_now_html

SHOWN = 4     # scenarios named where the advice does not pay; the rest are counted


def _where(sc: Scenario) -> str:
    parts = [", ".join(f"{k}={v}" for k, v in sc.params.items())]
    if sc.settings:
        parts.append(settings_id(sc.settings))
    return f"{' '.join(p for p in parts if p) or 'default'} on {sc.runner}"


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
    if a.use is None or a.typical is None:
        return Markup(f"<p>Keep <strong>{h(default)}</strong>: in no scenario measured does another variant with "
                      f"correct output beat it beyond the noise.</p>")
    body = [Markup(f"<p>Use <strong>{h(ds.label(topic, a.use))}</strong> instead of {h(default)}: typically "
                   f"<strong>{h(times(a.typical))}</strong> as fast (the median over {a.scenarios} scenarios; from "
                   f"{h(times(a.low))} to {h(times(a.high))}). It is faster beyond the noise in {a.wins} of "
                   f"{a.scenarios}.</p>")]
    if a.level_with:
        level = ", ".join(f"{ds.label(topic, v)} (in {n})" for v, n in a.level_with.most_common())
        body.append(Markup(f"<p>Where it is the fastest, these are level with it within the noise: {h(level)}.</p>"))
    if a.not_paying:
        items = [element("li", _where(sc)) for sc in a.not_paying[:SHOWN]]
        more = len(a.not_paying) - SHOWN
        if more > 0:
            items.append(element("li", f"and {more} more (the recommendation table below lists each)"))
        body.append(Markup(f"<p>It does not pay (not faster beyond the noise) in {len(a.not_paying)} "
                           f"scenario{'s' if len(a.not_paying) != 1 else ''}:</p>"))
        body.append(element("ul", join(items)))
    return join(body)
