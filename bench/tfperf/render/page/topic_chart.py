"""Altair charts of a topic's results, as Vega-Lite specs (dicts), on the skeleton of
:mod:`.builder`.

Charts draw rows the analysis computed (``Dataset.chart_rows``); they compute no
statistics. Every chart has a choice of runner, software version and of each setting
(e.g. Keras 2 or 3) and each remaining parameter, tooltips with the median and its 95%
CI, and a log scale where the values span more than a decade.

Layout for any screen: panels (one per value of the facet parameter, in numeric order)
share one y scale and wrap, so docs/assets/tfperf.js can lay them out one per row on a
narrow screen (it sets ``columns`` and the panel width from the box the chart gets); a log
axis has 1-2-5 ticks (1×, 2×, 5×, 10×, ...); colours are the Okabe-Ito palette, which
colour-blind readers can tell apart, at most :data:`MAX_SERIES` to a panel (a topic with
more variants names ``groups`` of them, and the reader picks one).

Everything a reader sees speaks in display names: the legend, tooltips, panel titles and
the choices above a chart show a variant's ``label`` and a parameter's or a setting's value
in reader words (a row's case, :class:`tfperf.analyse.RowCase`) and the runner's machine;
the ids (parameter and setting values, ``variant``, ``runner``) only filter.

The chart under a claim's strip of findings (the last section): the candidate's speedup per
TensorFlow release with its 95% CI, one colour per scenario, the 1× line dashed. It draws
the rows :func:`tfperf.analyse.judge.version_verdicts.speedup_rows` computed; every release
measured has its place on the x axis, also where the claim has no point (not available,
not measured), so a gap reads as a gap. The same conventions as the other charts:
Okabe-Ito colours, a log axis with 1-2-5 ticks when the speedups span more than a decade,
the legend below, a width docs/assets/tfperf.js narrows to a phone's column.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from ...analyse import PARAM, PARAM_WORDS, SETTING, SETTING_WORDS, ChartRow, Finding, SpeedupRow, TableRow
from .builder import (
    MAX_SERIES,
    PALETTE,
    PANEL_COLUMNS,
    ChartError,
    Choice,
    Encodings,
    axis_values,
    choice_filter,
    choice_params,
    ci_rules,
    decorate,
    field_values,
    finished,
    first_shown,
    is_number,
    layered,
    log_axis,
    machine,
    one_panel,
    one_times_rule,
    panels,
    points,
    positive,
    shown_value,
    speedup_axis,
    time_axis,
    with_rows,
    wrap_title,
)
from .html import times

VIEWS = ("latency", "speedup", "first_call", "trend")

_Y = {
    "latency": ("median", "ci_low", "ci_high", "time per call"),
    "speedup": ("speedup", "speedup_low", "speedup_high", "speedup over the default (×, higher is faster)"),
    "first_call": ("first_call", None, None, "first call (tracing, building)"),
    "trend": ("median", "ci_low", "ci_high", "time per call"),
}


def has_trend(rows: list[ChartRow]) -> bool:
    """Whether a trend chart has anything to draw: one case (runner, variant, parameters,
    settings) measured with two or more software versions. A topic measured under Keras 2
    and Keras 3 has two versions but no trend: each case has one."""
    versions: dict[tuple[Any, ...], set[str]] = {}
    for r in rows:
        key = (r.runner, r.case.variant, tuple(sorted((k, str(v)) for k, v in r.case.params.items())),
               tuple(sorted((k, str(v)) for k, v in r.case.settings.items())))
        versions.setdefault(key, set()).add(r.version)
    return any(len(v) > 1 for v in versions.values())


def chart_spec(rows: list[ChartRow], view: str, static: bool = False, **options: Any) -> dict[str, Any]:
    """A Vega-Lite spec for one view of a topic (see ``chart_specs``)."""
    interactive, still = chart_specs(rows, view, **options)
    return still if static else interactive


def chart_specs(rows: list[ChartRow], view: str, x: str | None = None, facet: str | None = None,
                default_label: str = "the default", title: str | None = None,
                order: dict[str, list[Any]] | None = None, unit: str = "call",
                settings_order: dict[str, list[Any]] | None = None,
                groups: dict[str, list[str]] | None = None, default: str | None = None,
                variants: list[str] | None = None, runner_names: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Vega-Lite specs for one view of a topic: the interactive one, and the static one
    for the SVG fallback, which keeps only the rows the initial choices show (it cannot
    be interacted with, and renders much faster from fewer rows). Both come from one
    Altair chart: building and validating it is most of a site build's time.
    ``x`` and ``facet`` are parameter names; ``groups`` names sets of variants shown
    together (needed when there are more than :data:`MAX_SERIES`), ``default`` the variant
    every group includes and the legend lists first, ``variants`` the YAML's order of the
    others; ``runner_names`` a runner's machine in reader words."""
    params, settings, multi, x, facet = _axes(rows, view, x, facet)
    table = [r.columns() for r in rows]
    labels, groups = _legend(table, default, variants, groups)
    data = [decorate(r, runner_names) for r in table]
    choices = _choices(table, view, settings, [p for p in multi if p not in (x, facet)],
                       order, settings_order, runner_names, list(groups))
    if groups:
        data = _grouped(data, groups, default)
    alt_params = choice_params(choices)
    yf, ylo, yhi, _ = _Y[view]
    filt = choice_filter(choices, yf)
    ylog, ticks = log_axis(positive(table, [yf, ylo or yf, yhi or yf]))
    # A linear time axis starts at zero (54 and 62 ms are 15% apart, not a factor of ten);
    # a linear speedup axis need not, it always shows the 1× line.
    yscale = alt.Scale(type="log") if ylog else alt.Scale(zero=view != "speedup")
    ytitle = _y_title(view, unit, default_label)
    axis = time_axis(ticks) if view != "speedup" else speedup_axis(ticks)
    # One colour per variant across the chart's choices; with groups, the colours of the
    # group shown (the legend then lists that group only), the default's first in each.
    color = alt.Color("label:N", title="variant", sort=labels,
                      scale=alt.Scale(range=PALETTE[:MAX_SERIES]) if groups
                      else alt.Scale(domain=labels, range=PALETTE[:len(labels)]))
    enc = Encodings(x=_x(table, view, x, order), y=alt.Y(f"{yf}:Q", title=ytitle, scale=yscale, axis=axis),
                    y_scale=yscale, y_title=ytitle, color=color, tooltip=_tooltip(params, settings, default_label))
    base = alt.Chart().transform_filter(filt)
    shape = alt.Shape("status:N", title="status",
                      scale=alt.Scale(domain=["ok", "output outside tolerance", "not recommended", "stale"],
                                      range=["circle", "cross", "triangle-down", "diamond"]))
    line = base.mark_line(point=False, opacity=0.8).encode(x=enc.x, y=enc.y, color=color, detail="variant:N")
    layers: list[Any] = [line, points(base, enc, shape)]
    if ylo and yhi:
        layers.append(ci_rules(base, enc, ylo, yhi, {"opacity": 0.8}))
    if view == "speedup":
        layers.append(one_times_rule())
    layer = layered(layers, width=210 if facet else 480, height=240)
    if facet:
        fvals = axis_values(table, PARAM + facet, (order or {}).get(facet))
        # The choices filter before the rows are split into panels, so a panel appears only
        # for what is shown (an older release measured without `model` shows one panel).
        chart = panels(layer, PARAM_WORDS + facet, _panel_names(table, data, facet, fvals),
                       min(PANEL_COLUMNS, len(fvals)), filt)
    else:
        chart = one_panel(layer)
    spec = finished(chart, alt_params, title, {"orient": "bottom", "columns": 2, "labelLimit": 320})
    return with_rows(spec, data), with_rows(spec, first_shown(data, choices))


def _axes(rows: list[ChartRow], view: str, x: str | None,
          facet: str | None) -> tuple[list[str], list[str], list[str], str | None, str | None]:
    """The topic's parameters, its settings, the parameters with more than one value, and
    the parameters on the x axis and across the panels: those asked for, else the first
    that vary (a numeric one on the x axis where there is one). A trend has the software
    versions on its x axis."""
    if view not in VIEWS:
        raise ChartError(f"unknown chart view {view!r} (known: {', '.join(VIEWS)})")
    if not rows:
        raise ChartError("no rows")
    params = sorted({k for r in rows for k in r.case.params})
    settings = sorted({k for r in rows for k in r.case.settings})
    for name, what in ((x, "x"), (facet, "facet")):
        if name is not None and name not in params:
            raise ChartError(f"{what}={name!r} is not a parameter of this topic (parameters: {', '.join(params)})")
    multi = [p for p in params if len({r.case.params[p] for r in rows if p in r.case.params}) > 1]
    if view == "trend":
        x = None
    elif x is None:
        numeric = [p for p in multi if all(is_number(r.case.params[p]) for r in rows if p in r.case.params)]
        x = next(iter(numeric or multi or params), None)
    if facet is None:
        rest = [p for p in multi if p != x]
        facet = rest[0] if rest else None
    return params, settings, multi, x, facet


def _legend(rows: list[TableRow], default: str | None, variants: list[str] | None,
            groups: dict[str, list[str]] | None) -> tuple[list[Any], dict[str, list[str]]]:
    """The variants' labels in the legend's order (the default's, those of ``variants`` in
    its order, then the others), and the ``groups`` with a variant in the rows: a chart of
    more than :data:`MAX_SERIES` variants shows one group at a time."""
    first = [default] if default else []
    by_variant = {r.get("variant"): r.get("label") for r in rows}
    labels = list(dict.fromkeys([*(by_variant[v] for v in [*first, *(variants or [])] if v in by_variant),
                                 *field_values(rows, "label")]))
    groups = {g: m for g, m in (groups or {}).items() if any(r.get("variant") in m for r in rows)}
    if len(labels) > MAX_SERIES and not groups:
        raise ChartError(f"{len(labels)} variants in one panel (at most {MAX_SERIES}): "
                         "name groups of them in the topic's `groups:`")
    return labels, groups


def _choices(rows: list[TableRow], view: str, settings: list[str], chosen: list[str],
             order: dict[str, list[Any]] | None, settings_order: dict[str, list[Any]] | None,
             runner_names: dict[str, str] | None, groups: list[str]) -> list[Choice]:
    """The dropdowns: the group of variants shown (where ``groups`` names them), the
    runner, the software version (not on a trend, whose x axis it is), each setting with
    more than one value and the ``chosen`` parameters (those on neither the x axis nor
    across the panels)."""
    runners = field_values(rows, "runner")
    out = [Choice("runner", "runner", runners, [str(machine(r, runner_names)) for r in runners], "Runner: ")]
    if view != "trend":
        versions = field_values(rows, "version")
        out.append(Choice("version", "version", ["newest", *versions], ["the newest release", *versions],
                          "Software: ", newest=True))
    for s in settings:   # the YAML's first value first (Keras 3, oneDNN on, default threads)
        field = SETTING + s
        opts = field_values(rows, field, (settings_order or {}).get(s))
        if len(opts) > 1:
            out.append(Choice(field, field, opts, [shown_value(rows, field, SETTING_WORDS + s, o) for o in opts],
                              f"{s}: "))
    for p in chosen:
        field = PARAM + p
        opts = field_values(rows, field, (order or {}).get(p))
        out.append(Choice(field, field, opts, [shown_value(rows, field, PARAM_WORDS + p, o) for o in opts], f"{p}: "))
    if groups:
        out.insert(0, Choice("group", "group", groups, groups, "Show: "))
    return out


def _grouped(data: list[TableRow], groups: dict[str, list[str]], default: str | None) -> list[TableRow]:
    """Each row once per group its variant belongs to, with the group's name in ``group``;
    the default variant, the one every speedup is over, belongs to every group."""
    out = []
    for d in data:
        for name, members in groups.items():
            if d.get("variant") in members or d.get("variant") == default:
                out.append({**d, "group": name})
    return out


def _y_title(view: str, unit: str, default_label: str) -> str | list[str]:
    """The y axis's title, in lines where one would be longer than a panel is high."""
    if view == "speedup":   # lines no longer than a panel is high
        return [*wrap_title(f"speedup over {default_label}", 30), "(×, higher is faster)"]
    if unit != "call" and view in ("latency", "trend"):
        return f"time per {unit}"
    if unit != "call" and view == "first_call":
        return ["first call", "(tracing, building; one whole call)"]
    return _Y[view][3]


def _x(rows: list[TableRow], view: str, x: str | None, order: dict[str, list[Any]] | None) -> Any:
    """The x axis: the software versions of a trend; else the parameter ``x``'s values,
    numbers on a linear or log scale, names in the YAML's order."""
    if view == "trend":
        return alt.X("version:O", title="software version", sort=field_values(rows, "version"))
    assert x is not None
    xvals = axis_values(rows, PARAM + x, (order or {}).get(x))   # numbers ascending, names in the YAML's order
    if all(is_number(v) for v in xvals):
        xlog = len(xvals) > 1 and min(xvals) > 0 and max(xvals) / min(xvals) >= 10
        return alt.X(f"{PARAM}{x}:Q", title=x, scale=alt.Scale(type="log") if xlog else alt.Scale(),
                     axis=alt.Axis(values=xvals))
    return alt.X(f"{PARAM_WORDS}{x}:N", title=x, sort=[shown_value(rows, PARAM + x, PARAM_WORDS + x, v) for v in xvals])


def _tooltip(params: list[str], settings: list[str], default_label: str) -> list[Any]:
    """A point's tooltip: the variant, the runner, the version, the parameters and settings,
    then the figures."""
    return [alt.Tooltip("label:N", title="variant"), alt.Tooltip("runner_txt:N", title="runner"),
            alt.Tooltip("version:N"),
            *[alt.Tooltip(f"{PARAM_WORDS}{p}:N", title=p) for p in params],
            *[alt.Tooltip(f"{SETTING_WORDS}{s}:N", title=s) for s in settings],
            alt.Tooltip("median_txt:N", title="median"), alt.Tooltip("ci_txt:N", title="95% CI of median"),
            alt.Tooltip("speedup_txt:N", title=f"speedup over {default_label}"),
            alt.Tooltip("first_txt:N", title="first call"), alt.Tooltip("n:Q", title="samples"),
            alt.Tooltip("status:N"), alt.Tooltip("commit:N"), alt.Tooltip("date:N")]


def _panel_names(rows: list[TableRow], data: list[TableRow], facet: str, fvals: list[Any]) -> list[str]:
    """The panels' names in order, the facet's values in reader words. A row of a profile
    that did not vary the facet's parameter ran with the snippet's default: it gets a
    panel of that name (its ``v_`` field is set here)."""
    unset = f"{facet}: the snippet's default"
    words = PARAM_WORDS + facet
    fnames = [shown_value(rows, PARAM + facet, words, v) for v in fvals]
    for d in data:
        if d.get(words) is None:
            d[words] = unset
            fnames += [unset] if unset not in fnames else []
    return fnames


# -- a claim's speedup per TensorFlow release ---------------------------------------------

SHAPES = {Finding.FASTER: "triangle-up", Finding.SLOWER: "triangle-down", Finding.SAME: "circle",
          Finding.UNCLEAR: "diamond"}
MAX_COLOURS = 6      # more scenarios than this share one colour (a legend of 18 repeated colours reads as noise)


def _with_text(r: SpeedupRow) -> dict[str, object]:
    return {**r, "speedup_txt": f"{times(r['speedup'])} (95% CI {times(r['speedup_low'])}–{times(r['speedup_high'])})"}


def version_chart_specs(rows: list[SpeedupRow], versions: list[str], what: str) -> tuple[dict[str, Any],
                                                                                              dict[str, Any]]:
    """The interactive spec and the one for the SVG fallback (the same: this chart has no
    choices). ``versions``: the x axis's labels in release order; ``what``: the speedup's
    name ("fast over the default"). Up to :data:`MAX_COLOURS` scenarios get a colour each
    and a legend; more share one colour (the tooltip names each point's scenario)."""
    data = [_with_text(r) for r in rows]
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    log, ticks = log_axis([v for r in rows for v in (r["speedup"], r["speedup_low"], r["speedup_high"]) if v and v > 0])
    scale = alt.Scale(type="log") if log else alt.Scale(zero=False)
    title = [*wrap_title(f"speedup of {what}", 34), "(×, above 1 is faster)"]
    x = alt.X("version:N", title="TensorFlow", sort=versions, scale=alt.Scale(domain=versions),
              axis=alt.Axis(labelAngle=0 if len(versions) <= 6 else -45))   # ten releases fit a phone's 190 px
    color: Any = (alt.Color("scenario:N", title="scenario", sort=scenarios, scale=alt.Scale(range=PALETTE),
                            legend=alt.Legend(orient="bottom", columns=1, labelLimit=320) if len(scenarios) > 1
                            else None)
                  if len(scenarios) <= MAX_COLOURS else alt.value(PALETTE[0]))
    offset: dict[str, alt.XOffset] = {"xOffset": alt.XOffset("scenario:N", sort=scenarios)} if len(scenarios) > 1 else {}
    tooltip = [alt.Tooltip("version:N", title="TensorFlow"), alt.Tooltip("scenario:N"),
               alt.Tooltip("speedup_txt:N", title="speedup"), alt.Tooltip("finding:N")]
    enc = Encodings(x=x, y=alt.Y("speedup:Q", title=title, scale=scale, axis=speedup_axis(ticks)),
                    y_scale=scale, y_title=title, color=color, tooltip=tooltip)
    base = alt.Chart()
    shape = alt.Shape("finding:N", title="finding", scale=alt.Scale(domain=[str(f) for f in SHAPES],
                                                                    range=list(SHAPES.values())))
    layers = [
        one_times_rule(),
        base.mark_line(opacity=0.5 if len(scenarios) <= MAX_COLOURS else 0.25, strokeWidth=1).encode(
            x=x, y=enc.y, color=color, detail="scenario:N", **offset),
        ci_rules(base, enc, "speedup_low", "speedup_high", {"strokeWidth": 2}, **offset),
        points(base, enc, shape, **offset),
    ]
    chart = alt.layer(*layers).properties(width=max(300, min(560, 56 * len(versions))), height=200,
                                          data=alt.NamedData(name="rows"))
    spec = with_rows(finished(chart, None, None, {"orient": "bottom", "labelLimit": 320}), data)
    return spec, spec
