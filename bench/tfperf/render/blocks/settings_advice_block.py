"""The "Do this" box of a topic that compares process settings (cpu_threads), laid out from
:func:`tfperf.analyse.views.settings_advice.advise_settings`: the setting to change, or to keep
TensorFlow's defaults, then each one-knob choice against the defaults on each runner, in
the vocabulary's words (count, range, exceptions named)."""

from __future__ import annotations

from ...analyse import Choice, Dataset, SettingsAdvice, advise_settings, hardware_name, summary_text
from ..page.html import Markup, element, h, join


def _label(ds: Dataset, topic: str, c: Choice) -> str:
    return ds.setting_label(topic, c.setting, c.value)


def _baseline(ds: Dataset, a: SettingsAdvice) -> str:
    return ", ".join(ds.setting_label(a.topic, k, v) for k, v in a.baseline.items())


def _choice(ds: Dataset, a: SettingsAdvice, c: Choice) -> Markup:
    info = ds.topics[a.topic]
    everywhere = len(ds.runners) == 1          # one machine published: naming it on every line says nothing
    parts = []
    for r in c.runners():
        text = summary_text(c.summary(r, info.value_label), info.param_values, label=info.value_label)
        who = "" if everywhere else f"on the {hardware_name(ds.runners.get(r), r)}, "
        parts.append(f"{who}{text}")
    return element("li", join([element("strong", _label(ds, a.topic, c)), ": ", "; ".join(parts), "."]))


def settings_advice_body(ds: Dataset, topic: str) -> Markup | None:
    """The box's body, or None when the topic has no settings results."""
    a = advise_settings(ds, topic)
    if a is None:
        return None
    use = a.use
    if use is not None:
        knob = ds.setting_label(a.topic, use.setting, a.baseline[use.setting])
        lead = (f"<p>Set <strong>{h(_label(ds, topic, use))}</strong> instead of {h(knob)}, the rest as "
                "installed. Each setting against the defaults, one changed at a time:</p>")
    else:
        lead = (f"<p>Keep <strong>{h(_baseline(ds, a))}</strong>: no single setting is faster in most scenarios "
                "without being slower in others. Each setting against the defaults, one changed at a time:</p>")
    return join([Markup(lead), element("ul", join(_choice(ds, a, c) for c in a.choices))])
