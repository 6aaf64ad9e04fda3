"""The "Do this" box of a topic that compares process settings (cpu_threads), laid out from
:func:`tfperf.analyse.settings_advice.advise_settings`: the setting to change (or to keep
TensorFlow's defaults), its typical speedup with the range over scenarios, where it does
not pay, the settings that pay somewhere, and those that cost speed."""

from __future__ import annotations

from ..analyse import SLOWER, Choice, Dataset, Point, SettingsAdvice, advise_settings
from .html import Markup, element, h, join, times

SHOWN = 3     # choices listed under "where a setting pays", and scenarios named one by one


def _label(ds: Dataset, topic: str, c: Choice) -> str:
    return ds.setting_label(topic, c.setting, c.value)


def _baseline(ds: Dataset, a: SettingsAdvice) -> str:
    return ", ".join(ds.setting_label(a.topic, k, v) for k, v in a.baseline.items())


def _scenario(p: Point, runners: int) -> str:
    m = p.measurement
    text = ", ".join(f"{k}={v}" for k, v in m.params.items()) or "every parameter"
    return f"{text} on {m.runner}" if runners > 1 else text


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def not_paying_text(ds: Dataset, a: SettingsAdvice, c: Choice) -> str:
    """"where batch = 64 (0.616× to 1×; slower beyond the noise in 2 of 3), nor for batch=1,
    model=rnn"; empty when it pays everywhere."""
    if not c.not_paying:
        return ""
    cond, rest = c.never_pays(ds.topics[a.topic].param_values)
    runners = len({p.measurement.runner for p in c.points})
    parts = []
    if cond is not None:
        slower = f"; slower beyond the noise in {cond.slower} of {len(cond.points)}" if cond.slower else ""
        parts.append(f"where {cond.param} = {' or '.join(cond.values)} ({times(cond.low)} to {times(cond.high)}{slower})")
    named = [_scenario(p, runners) + (" (slower)" if p.outcome == SLOWER else "") for p in rest[:SHOWN]]
    if len(rest) > SHOWN:
        named.append(f"{len(rest) - SHOWN} more (the settings tables below list each)")
    if named:
        parts.append(("nor for " if parts else "for ") + "; ".join(named))
    return ", ".join(parts)


def _use(ds: Dataset, a: SettingsAdvice, c: Choice) -> list[Markup]:
    knob = ds.setting_label(a.topic, c.setting, a.baseline[c.setting])
    out = [Markup(f"<p>Set <strong>{h(_label(ds, a.topic, c))}</strong> instead of {h(knob)}, the rest as installed: "
                  f"typically <strong>{h(times(c.typical))}</strong> as fast (the median over "
                  f"{_n(c.scenarios, 'scenario')}; from {h(times(c.low))} to {h(times(c.high))}). It is faster "
                  f"beyond the noise in {c.wins} of {c.scenarios}.</p>")]
    rest = not_paying_text(ds, a, c)
    if rest:
        out.append(Markup(f"<p>It does not pay {h(rest)}.</p>"))
    return out


def _keep(ds: Dataset, a: SettingsAdvice) -> Markup:
    return Markup(f"<p>Keep <strong>{h(_baseline(ds, a))}</strong>: no setting measured is faster beyond the noise "
                  f"in most of its scenarios without being slower in others ({_n(a.scenarios, 'scenario')}, one "
                  f"setting changed at a time).</p>")


def _pays(ds: Dataset, a: SettingsAdvice, c: Choice) -> Markup:
    text = (f"faster beyond the noise in {c.wins} of {c.scenarios} scenarios, by up to {times(c.best)}; "
            f"typically {times(c.typical)} ({times(c.low)} to {times(c.high)})")
    rest = not_paying_text(ds, a, c)
    if rest:
        text += f". It does not pay {rest}"
    return element("li", join([element("strong", _label(ds, a.topic, c)), ": ", text, "."]))


def settings_advice_body(ds: Dataset, topic: str) -> Markup | None:
    """The box's body, or None when the topic has no settings results."""
    a = advise_settings(ds, topic)
    if a is None:
        return None
    body = _use(ds, a, a.use) if a.use is not None else [_keep(ds, a)]
    pays = a.pays_somewhere
    if pays:
        title = "Where another setting pays:" if a.use is not None else "Where a setting pays:"
        items = [_pays(ds, a, c) for c in pays[:SHOWN]]
        if len(pays) > SHOWN:
            items.append(element("li", f"and {len(pays) - SHOWN} more (the settings tables below list each)"))
        body += [Markup(f"<p>{h(title)}</p>"), element("ul", join(items))]
    costly = a.costly
    if costly:
        said = "; ".join(f"{_label(ds, topic, c)} (slower in {c.losses} of {c.scenarios}; "
                         f"{times(c.low)} to {times(c.high)})" for c in costly)
        body.append(Markup(f"<p>Costs speed (slower beyond the noise in most scenarios, faster in none): "
                           f"{h(said)}.</p>"))
    return join(body)
