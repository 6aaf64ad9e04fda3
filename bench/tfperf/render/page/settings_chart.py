"""A chart with a process setting on the x axis (threads, oneDNN, ...), as a Vega-Lite spec.

Draws ``Dataset.settings_rows``: each settings group's speedup over the topic's baseline
settings, with its 95% CI. Numeric values of the x setting (thread counts) sit on a log2
axis, 1, 2, 4, ... up to the largest value any runner measured, so a runner with more
cores extends the curve by itself; named values ("default", "inter1", "omp1") follow as
labelled points to the right of a separator. One line per runner (dash and shape tell
runners apart), coloured by a second setting (e.g. oneDNN), labelled with the YAML's
``settings_labels``. Panels (model × batch, say) share one y scale, in numeric order; a log
axis has 1-2-5 ticks; colours are builder.PALETTE. A grid of panels wider than the page
scrolls in its own box (docs/assets/tfperf.css). Computes no statistics.
"""

from __future__ import annotations

import json
import math
from typing import Any

import altair as alt

from ...analyse import PARAM, PARAM_WORDS, SETTING, SETTING_WORDS, SettingsRow, TableRow
from .builder import (
    PALETTE,
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
    layered,
    log_axis,
    one_panel,
    one_times_rule,
    panels,
    points,
    positive,
    shown_value,
    speedup_axis,
    with_rows,
)


def _is_num(v: Any) -> bool:
    try:
        float(str(v))
    except ValueError:
        return False
    return True


def numeric_values(values: list[str], order: list[str] | None = None) -> list[str]:
    """The values drawn on the log2 part of the axis, ascending. Values count as numbers when
    the setting declares the token "1..cores" (thread counts) or declares no order; a
    declared list such as oneDNN's "1", "0", "avx2" is a list of names."""
    counts = order is None or "1..cores" in order
    return sorted({v for v in values if counts and _is_num(v) and float(v) > 0}, key=float)


def x_positions(values: list[str], order: list[str] | None = None) -> dict[str, float]:
    """Numeric values at log2(value) (rounded), then the named ones, one step apart, in the
    declared ``order``."""
    nums = numeric_values(values, order)
    named = [v for v in order or [] if v in values and v not in nums]
    named += sorted(v for v in set(values) - set(nums) - set(named))
    pos = {v: round(math.log2(float(v)), 3) for v in nums}
    start = (max(pos.values()) + 1.0) if pos else 0.0
    pos.update({v: start + i for i, v in enumerate(named)})
    return pos


def _js_key(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


def settings_chart_spec(rows: list[SettingsRow], x: str, static: bool = False, **options: Any) -> dict[str, Any]:
    """One spec of ``settings_chart_specs``: the interactive one, or the static one."""
    interactive, still = settings_chart_specs(rows, x, **options)
    return still if static else interactive


def settings_chart_specs(rows: list[SettingsRow], x: str, color: str | None = None, facet: str | None = None,
                         row: str | None = None, baseline_label: str = "the baseline settings",
                         title: str | None = None, settings_order: dict[str, list[str]] | None = None,
                         param_order: dict[str, list[Any]] | None = None,
                         runner_names: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The interactive spec and the static one (the rows the initial choices show, for the
    SVG fallback), from one Altair chart."""
    settings, params, color = _axes(rows, x, color, facet, row)
    table = [r.columns() for r in rows]
    xvals = [str(v) for v in field_values(table, SETTING + x)]
    pos = x_positions(xvals, (settings_order or {}).get(x))
    numeric = numeric_values(xvals, (settings_order or {}).get(x))
    data = [_row(r, x, color, pos, numeric, runner_names) for r in table]
    choices = _choices(table, [s for s in settings if s not in (x, color)],
                       [p for p in params if p not in (facet, row)], settings_order, param_order)
    alt_params = choice_params(choices)
    filt = choice_filter(choices, "speedup")
    ylog, ticks = log_axis(positive(table, ["speedup", "speedup_low", "speedup_high"]))
    yscale = alt.Scale(type="log", nice=False, padding=8) if ylog else alt.Scale(zero=False, padding=8)
    ytitle = "speedup over baseline (×)"
    xscale, xaxis = _x_axis(table, x, pos, numeric)
    enc = Encodings(x=alt.X("x_pos:Q", title=x, scale=xscale, axis=xaxis),
                    y=alt.Y("speedup:Q", title=ytitle, scale=yscale, axis=speedup_axis(ticks)),
                    y_scale=yscale, y_title=ytitle,
                    color=alt.Color("c_txt:N", title=color or "variant", scale=alt.Scale(range=PALETTE)),
                    tooltip=_tooltip(x, color, params, baseline_label))
    runners = field_values(table, "runner")
    base = alt.Chart().transform_filter(filt)
    dash = alt.StrokeDash("runner_txt:N", title="runner (lines)", legend=alt.Legend() if len(runners) > 1 else None)
    line = base.transform_filter("datum.x_num").mark_line(opacity=0.7).encode(
        x=enc.x, y=enc.y, color=enc.color, strokeDash=dash, detail="runner_txt:N")
    shape = alt.Shape("runner_txt:N", title="runner (points)", legend=alt.Legend() if len(runners) > 1 else None)
    layers: list[Any] = [line, ci_rules(base, enc, "speedup_low", "speedup_high", {"opacity": 0.8}),
                         points(base, enc, shape), one_times_rule()]
    nums = [pos[v] for v in numeric]
    if nums and len(nums) < len(pos):
        # the same scale and axis as the data layers, or the merged axis loses its tick values
        layers.append(alt.Chart().mark_rule(color="lightgray").encode(
            x=alt.X(datum=max(nums) + 0.5, type="quantitative", title=x, scale=xscale, axis=xaxis)))
    layer = layered(layers, width=200 if facet else 420, height=200)
    if facet or row:
        names, columns = _panels(table, data, facet, row, param_order)
        chart = panels(layer, "panel", names, columns)
    else:
        chart = one_panel(layer)
    spec = finished(chart, alt_params, title, {"orient": "bottom", "columns": 1, "labelLimit": 360})
    return with_rows(spec, data), with_rows(spec, first_shown(data, choices))


def _axes(rows: list[SettingsRow], x: str, color: str | None, facet: str | None,
          row: str | None) -> tuple[list[str], list[str], str | None]:
    """The topic's settings and parameters, and the setting the colours tell apart: the one
    asked for, else the first other setting with more than one value."""
    if not rows:
        raise ChartError("no rows")
    settings = sorted({k for r in rows for k in r.case.settings})
    params = sorted({k for r in rows for k in r.case.params})
    if x not in settings:
        raise ChartError(f"x={x!r} is not a setting of this topic (settings: {', '.join(settings) or 'none'})")
    if color is not None and color not in settings:
        raise ChartError(f"color={color!r} is not a setting of this topic (settings: {', '.join(settings)})")
    for name, what in ((facet, "facet"), (row, "row")):
        if name is not None and name not in params:
            raise ChartError(f"{what}={name!r} is not a parameter of this topic (parameters: {', '.join(params)})")
    if color is None:
        others = [s for s in settings if s != x and len({r.case.settings[s] for r in rows if s in r.case.settings}) > 1]
        color = others[0] if others else None
    return settings, params, color


def _row(r: TableRow, x: str, color: str | None, pos: dict[str, float], numeric: list[str],
         runner_names: dict[str, str] | None) -> TableRow:
    """A row as the chart draws it: its place on the x axis, its x value and colour in
    reader words, and its finding."""
    d = decorate(r, runner_names)
    v = str(r[SETTING + x])
    d["x_pos"], d["x_num"] = pos[v], v in numeric
    d["x_txt"] = r.get(SETTING_WORDS + x, v)
    d["c_txt"] = r.get(SETTING_WORDS + color, r.get(SETTING + color)) if color else r["label"]
    d["finding"] = r.get("finding")
    return d


def _choices(rows: list[TableRow], settings: list[str], params: list[str],
             settings_order: dict[str, list[str]] | None, param_order: dict[str, list[Any]] | None) -> list[Choice]:
    """The dropdowns: each of ``settings`` and ``params`` with more than one value, then the
    variant where there is more than one."""
    # (name, field, its reader-words field, options); the first option is shown first
    sel: list[tuple[str, str, str | None, list[Any]]] = []
    for s in settings:
        opts = field_values(rows, SETTING + s, (settings_order or {}).get(s))
        if len(opts) > 1:
            sel.append((s, SETTING + s, SETTING_WORDS + s, opts))
    for p in params:
        opts = field_values(rows, PARAM + p, (param_order or {}).get(p))
        if len(opts) > 1:
            sel.append((p, PARAM + p, PARAM_WORDS + p, opts))
    variants = field_values(rows, "variant")
    if len(variants) > 1:
        sel.append(("variant", "variant", None, variants))

    def words(f: str, shown: str | None, v: Any) -> str:      # an option as the reader reads it
        if shown is None:
            return next((str(r["label"]) for r in rows if r.get("variant") == v), str(v))
        return shown_value(rows, f, shown, v)

    return [Choice(f"sel_{i}", f, o, [words(f, shown, v) for v in o], name + ": ")
            for i, (name, f, shown, o) in enumerate(sel)]


def _x_axis(rows: list[TableRow], x: str, pos: dict[str, float], numeric: list[str]) -> tuple[Any, Any]:
    """The x scale and axis: each value at its position, numbers (thread counts) as they
    are, the named values in reader words ("OMP_NUM_THREADS=1")."""
    labels = {_js_key(p): v if v in numeric else shown_value(rows, SETTING + x, SETTING_WORDS + x, v)
              for v, p in pos.items()}
    label_expr = "(" + json.dumps(labels) + ")[''+datum.value]"
    xscale = alt.Scale(domain=[min(pos.values()) - 0.5, max(pos.values()) + 0.5], nice=False)
    xaxis = alt.Axis(values=sorted(pos.values()), labelExpr=label_expr, grid=False, labelOverlap=False,
                     labelAngle=-45 if len(pos) > 5 or max(map(len, labels.values())) > 6 else 0,
                     labelLimit=160)
    return xscale, xaxis


def _tooltip(x: str, color: str | None, params: list[str], baseline_label: str) -> list[Any]:
    """A point's tooltip: the runner, the x value, the colour's setting, the parameters, then
    the figures."""
    return [alt.Tooltip("runner_txt:N", title="runner"), alt.Tooltip("x_txt:N", title=x),
            alt.Tooltip("c_txt:N", title=color or "variant"),
            *[alt.Tooltip(f"{PARAM_WORDS}{p}:N", title=p) for p in params],
            alt.Tooltip("speedup_txt:N", title=f"speedup over {baseline_label}"),
            alt.Tooltip("finding:N"), alt.Tooltip("median_txt:N", title="median"),
            alt.Tooltip("ci_txt:N", title="95% CI of median"), alt.Tooltip("n:Q", title="samples"),
            alt.Tooltip("commit:N"), alt.Tooltip("date:N")]


def _panels(rows: list[TableRow], data: list[TableRow], facet: str | None, row: str | None,
            param_order: dict[str, list[Any]] | None) -> tuple[list[str], int]:
    """The panels' names in order, and the columns they wrap after. Panels wrap
    (docs/assets/tfperf.js: one per row on a phone): one facet over a "row = a · column = b"
    panel name (set here in each row's ``panel``), as many columns as the facet has values,
    rows outer and columns inner, each in numeric order; one y scale for every panel, as
    speedups are comparable across models and batches."""
    fvals = axis_values(rows, PARAM + facet, (param_order or {}).get(facet)) if facet else [None]
    rvals = axis_values(rows, PARAM + row, (param_order or {}).get(row)) if row else [None]

    def panel(rv: Any, fv: Any) -> str:
        return ", ".join(shown_value(rows, PARAM + n, PARAM_WORDS + n, v) for n, v in ((row, rv), (facet, fv)) if n)

    for d in data:
        d["panel"] = panel(d.get(PARAM + row) if row else None, d.get(PARAM + facet) if facet else None)
    return [panel(rv, fv) for rv in rvals for fv in fvals], len(fvals)
