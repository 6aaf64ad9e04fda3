"""Inline figures for prose: ``{{ tfperf.speedup(...) }}`` and friends (``share``: 1 - 1/speedup,
the share of the baseline's time the candidate does without), as short HTML."""

from __future__ import annotations

from collections.abc import Mapping

from ...analyse import WORDS, ClaimCheck, Dataset, Finding, hardware_name, scenario_labels, summarise
from ..page.context import Directive, DirectiveError
from ..page.html import Markup, element, h, percent, seconds, times


def _nodata(what: str) -> Markup:
    return element("span", "(not measured yet)", class_="tfperf-figure-inline tfperf-nodata", title=what)


def _fig(text: str, title: str) -> Markup:
    return element("span", text, class_="tfperf-figure-inline", title=title)


def _where(obj_params: Mapping[str, object], obj_settings: dict[str, str], where: Mapping[str, object]) -> bool:
    for k, want in where.items():
        have = obj_params.get(k, obj_settings.get(k))
        if have is None or str(have).lower() != str(want).lower():
            return False
    return True


def _div(x: float | None, by: float) -> float | None:
    return None if x is None else x / by


def render_inline(d: Directive, ds: Dataset) -> Markup:
    if d.kind == "runners":
        return _fig(str(len({m.runner for m in ds.current if m.ok})), "runners with results")
    if d.kind == "when":
        return _when(d, ds)
    if len(d.args) < 2:
        raise DirectiveError(f"{d.text}: needs a topic and a {'claim id' if d.kind != 'median' else 'variant'}")
    topic, name = str(d.args[0]), str(d.args[1])
    opts = dict(d.options)
    runner = opts.pop("runner", None)
    if d.kind in ("speedup", "verdict", "share"):
        if ds.claim(topic, name) is None and topic in ds.topics:
            raise DirectiveError(f"{d.text}: topic {topic} has no claim {name!r}")
        cr = ds.claim_result(topic, name)
        if cr is None:
            return _nodata(f"{topic}/{name}")
        if d.kind == "verdict":
            found = "; ".join(f"{hardware_name(ds.runners.get(r), r)}: {cr.summary_text(r)}"
                              for r in cr.runners_with_data)
            return _fig(cr.verdict_text(), f"{cr.claim.get('text', name)} {found}".strip())
        checks = [c for c in cr.checks if c.ratio is not None and (runner is None or c.scenario.runner == runner)
                  and _where(c.scenario.params, c.scenario.settings, opts)]
        if not checks:
            return _nodata(f"{topic}/{name}")
        if d.kind == "share":
            return _share(checks)
        if len(checks) == 1:
            r = checks[0].ratio
            assert r is not None
            return _fig(f"{times(r.point)} (95% CI {times(r.low)}–{times(r.high)})",
                        f"runner {checks[0].scenario.runner}, {checks[0].scenario.key[1]}, {checks[0].scenario.key[2]}")
        pts = sorted(c.ratio.point for c in checks if c.ratio)
        runners = {c.scenario.runner for c in checks}
        return _fig(f"{times(pts[0])} to {times(pts[-1])}",
                    f"{len(checks)} scenarios on {len(runners)} runner(s)")
    if d.kind == "median":
        ms = [m for m in ds.current if m.topic == topic and m.variant == name and m.ok
              and (runner is None or m.runner == runner) and _where(m.params, m.settings, opts)]
        if not ms:
            return _nodata(f"{topic}/{name}")
        unit = ds.unit(topic)
        per = "" if unit == "call" else f" per {unit}"     # the YAML's per_call: time per step
        if len(ms) == 1:
            m = ms[0]
            div = ds.per_call_divisor(topic, m.params)
            lo, hi = seconds(_div(m.ci_low, div)), seconds(_div(m.ci_high, div))
            return _fig(f"{seconds(_div(m.median, div))}{per} (95% CI {lo}–{hi})",
                        ", ".join(filter(None, (f"runner {m.runner}", m.settings_id, m.params_id))))
        meds = sorted(m.median / ds.per_call_divisor(topic, m.params) for m in ms if m.median is not None)
        return _fig(f"{seconds(meds[0])} to {seconds(meds[-1])}{per}", f"{len(ms)} cases")
    raise DirectiveError(f"{d.text}: unknown inline figure {d.kind}")


def _share(checks: list[ClaimCheck]) -> Markup:
    """The share of the baseline's time that the candidate does without: 1 - 1/speedup.
    For a claim "the bound beats the pipeline" (candidate: the step on data in memory,
    baseline: the step fed by the pipeline) it is the input-bound share of the step."""
    def share(r: float) -> float:
        return 1.0 - 1.0 / r if r > 0 else float("-inf")

    if len(checks) == 1:
        r = checks[0].ratio
        assert r is not None
        return _fig(f"{percent(share(r.point))} (95% CI {percent(share(r.low))} to {percent(share(r.high))})",
                    f"runner {checks[0].scenario.runner}, {checks[0].scenario.key[1]}, {checks[0].scenario.key[2]}")
    pts = sorted(share(c.ratio.point) for c in checks if c.ratio)
    runners = {c.scenario.runner for c in checks}
    return _fig(f"{percent(pts[0])} to {percent(pts[-1])}", f"{len(checks)} scenarios on {len(runners)} runner(s)")


WHEN_KEYS = {"faster": Finding.FASTER, "slower": Finding.SLOWER, "same": Finding.SAME, "unclear": Finding.UNCLEAR,
             "depends": Finding.DEPENDS, "no_data": Finding.NO_DATA}


def _when(d: Directive, ds: Dataset) -> Markup:
    """Prose that depends on a claim's finding over its scenarios (those the other keyword
    arguments select: parameters, settings, ``runner``): the text given for "faster",
    "slower", "same", "unclear", "depends" (faster in some scenarios, slower in others) or
    "no_data". Where the runners' findings differ, each runner's is named instead; a
    missing text falls back to the finding's word. `backticks` become code."""
    import re

    if len(d.args) != 2:
        raise DirectiveError(f"{d.text}: needs a topic and a claim id")
    topic, name = str(d.args[0]), str(d.args[1])
    texts = {k: v for k, v in d.options.items() if k in WHEN_KEYS}
    where = {k: v for k, v in d.options.items() if k not in WHEN_KEYS}
    info = ds.topics.get(topic)
    known = set(info.param_values) | set(info.settings_values) | {"runner"} if info else set()
    if info is not None and set(where) - known:
        raise DirectiveError(f"{d.text}: {', '.join(sorted(set(where) - known))} is neither a finding "
                             f"({', '.join(WHEN_KEYS)}) nor a parameter or setting of {topic}")
    if ds.claim(topic, name) is None:
        if topic in ds.topics:
            raise DirectiveError(f"{d.text}: topic {topic} has no claim {name!r}")
        return _nodata(f"{topic}/{name}")
    cr = ds.claim_result(topic, name)
    runner = where.pop("runner", None)
    checks = [c for c in (cr.checks if cr else []) if c.has_data and (runner is None or c.scenario.runner == runner)
              and _where(c.scenario.params, c.scenario.settings, where)]
    per_runner: dict[str, Finding] = {}
    for r in sorted({c.scenario.runner for c in checks}):
        mine = [c for c in checks if c.scenario.runner == r]
        labels = scenario_labels([c.scenario for c in mine])
        per_runner[r] = summarise(c.point(labels[c.scenario.key]) for c in mine).finding
    kinds = set(per_runner.values())
    if len(kinds) > 1:
        said = "; ".join(f"{WORDS[f].text} on the {hardware_name(ds.runners.get(r), r)}" for r, f in per_runner.items())
        return Markup(f'<span class="tfperf-when" data-outcome="machines">{h(said)}</span>')
    result = kinds.pop() if kinds else Finding.NO_DATA
    text = texts.get(next(k for k, v in WHEN_KEYS.items() if v == result))
    if text is None:
        return _fig(WORDS[result].text, str((cr.claim if cr else {}).get("text", name)))
    body = re.sub(r"`([^`]+)`", lambda m: f"<code>{m.group(1)}</code>", str(h(text)))
    n = len(checks)
    tip = f"{result} ({n} scenario{'s' if n != 1 else ''})"
    return Markup(f'<span class="tfperf-when" data-outcome="{h(str(result))}" title="{h(tip)}">{body}</span>')


__all__ = ["h", "render_inline"]
