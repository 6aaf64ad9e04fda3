"""A chart with a process setting on the x axis (threads, oneDNN, ...), as a Vega-Lite spec.

Draws ``Dataset.settings_rows``: each settings group's speedup over the topic's baseline
settings, with its 95% CI. Numeric values of the x setting (thread counts) sit on a log2
axis, 1, 2, 4, ... up to the largest value any runner measured, so a runner with more
cores extends the curve by itself; named values ("default", "inter1", "omp1") follow as
labelled points to the right of a separator. One line per runner (dash and shape tell
runners apart), coloured by a second setting (e.g. oneDNN), labelled with the YAML's
``settings_labels``. Panels (model × batch, say) share one y scale, in numeric order; a log
axis has 1-2-5 ticks; colours are charts.PALETTE. A grid of panels wider than the page
scrolls in its own box (docs/assets/tfperf.css). Computes no statistics.
"""

from __future__ import annotations

import json
import math
from typing import Any

import altair as alt

from ...analyse import ChartRow
from .topic_chart import (
    PALETTE,
    ChartError,
    _axis_values,
    _decorate,
    _positive,
    _shown,
    _spans_decades,
    _values,
    log_ticks,
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


def settings_chart_spec(rows: list[ChartRow], x: str, static: bool = False, **options: Any) -> dict[str, Any]:
    """One spec of ``settings_chart_specs``: the interactive one, or the static one."""
    interactive, still = settings_chart_specs(rows, x, **options)
    return still if static else interactive


def settings_chart_specs(rows: list[ChartRow], x: str, color: str | None = None, facet: str | None = None,
                         row: str | None = None, baseline_label: str = "the baseline settings",
                         title: str | None = None, settings_order: dict[str, list[str]] | None = None,
                         param_order: dict[str, list[Any]] | None = None,
                         runner_names: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The interactive spec and the static one (the rows the initial choices show, for the
    SVG fallback), from one Altair chart."""
    if not rows:
        raise ChartError("no rows")
    settings = sorted({k[2:] for r in rows for k in r if k.startswith("s_")})
    params = sorted({k[2:] for r in rows for k in r if k.startswith("p_")})
    if x not in settings:
        raise ChartError(f"x={x!r} is not a setting of this topic (settings: {', '.join(settings) or 'none'})")
    if color is not None and color not in settings:
        raise ChartError(f"color={color!r} is not a setting of this topic (settings: {', '.join(settings)})")
    for name, what in ((facet, "facet"), (row, "row")):
        if name is not None and name not in params:
            raise ChartError(f"{what}={name!r} is not a parameter of this topic (parameters: {', '.join(params)})")
    if color is None:
        others = [s for s in settings if s != x and len(_values(rows, f"s_{s}")) > 1]
        color = others[0] if others else None

    xvals = [str(v) for v in _values(rows, f"s_{x}")]
    pos = x_positions(xvals, (settings_order or {}).get(x))
    numeric = numeric_values(xvals, (settings_order or {}).get(x))
    data = []
    for r in rows:
        d = _decorate(r, runner_names)
        v = str(r[f"s_{x}"])
        d["x_pos"], d["x_num"] = pos[v], v in numeric
        d["x_txt"] = r.get(f"l_{x}", v)
        d["c_txt"] = r.get(f"l_{color}", r.get(f"s_{color}")) if color else r["label"]
        d["finding"] = r.get("finding")
        data.append(d)

    sel: list[tuple[str, list[Any]]] = []   # (field, options); the first option is shown first
    for s in settings:
        if s not in (x, color):
            opts = _values(rows, f"s_{s}", (settings_order or {}).get(s))
            if len(opts) > 1:
                sel.append((f"s_{s}", opts))
    for p in params:
        if p not in (facet, row):
            opts = _values(rows, f"p_{p}", (param_order or {}).get(p))
            if len(opts) > 1:
                sel.append((f"p_{p}", opts))
    variants = _values(rows, "variant")
    if len(variants) > 1:
        sel.append(("variant", variants))
    names = {f: f"sel_{i}" for i, (f, _o) in enumerate(sel)}
    def words(f: str, v: Any) -> str:      # an option as the reader reads it
        if f == "variant":
            return next((str(r["label"]) for r in rows if r.get("variant") == v), str(v))
        return _shown(rows, f, {"p_": "v_", "s_": "l_"}[f[:2]], v)

    alt_params = [alt.param(name=names[f], value=o[0],
                            bind=alt.binding_select(options=o, labels=[words(f, v) for v in o],
                                                    name=(f[2:] if f[:2] in ("p_", "s_") else f) + ": "))
                  for f, o in sel]
    filt = " && ".join([f"datum['{f}'] == {names[f]}" for f, _o in sel] + ["isValid(datum['speedup'])"])

    ylog = _spans_decades(rows, ["speedup", "speedup_low", "speedup_high"])
    yscale = alt.Scale(type="log", nice=False, padding=8) if ylog else alt.Scale(zero=False, padding=8)
    ytitle = "speedup over baseline (×)"
    # numbers (thread counts) as they are, the named values in reader words ("OMP_NUM_THREADS=1")
    labels = {_js_key(p): v if v in numeric else _shown(rows, f"s_{x}", "l_", v) for v, p in pos.items()}
    label_expr = "(" + json.dumps(labels) + ")[''+datum.value]"
    xscale = alt.Scale(domain=[min(pos.values()) - 0.5, max(pos.values()) + 0.5], nice=False)
    xaxis = alt.Axis(values=sorted(pos.values()), labelExpr=label_expr, grid=False, labelOverlap=False,
                     labelAngle=-45 if len(pos) > 5 or max(map(len, labels.values())) > 6 else 0,
                     labelLimit=160)
    xenc = alt.X("x_pos:Q", title=x, scale=xscale, axis=xaxis)
    ys = _positive(rows, ["speedup", "speedup_low", "speedup_high"])
    ticks = log_ticks(min(ys), max(ys)) if ylog else alt.Undefined     # Undefined: left out of the spec
    yaxis = alt.Axis(labelExpr="format(datum.value, '~g') + '×'", values=ticks)
    y = alt.Y("speedup:Q", title=ytitle, scale=yscale, axis=yaxis)
    cenc = alt.Color("c_txt:N", title=color or "variant", scale=alt.Scale(range=PALETTE))
    runners = _values(rows, "runner")
    tooltip = [alt.Tooltip("runner_txt:N", title="runner"), alt.Tooltip("x_txt:N", title=x),
               alt.Tooltip("c_txt:N", title=color or "variant"),
               *[alt.Tooltip(f"v_{p}:N", title=p) for p in params],
               alt.Tooltip("speedup_txt:N", title=f"speedup over {baseline_label}"),
               alt.Tooltip("finding:N"), alt.Tooltip("median_txt:N", title="median"),
               alt.Tooltip("ci_txt:N", title="95% CI of median"), alt.Tooltip("n:Q", title="samples"),
               alt.Tooltip("commit:N"), alt.Tooltip("date:N")]
    base = alt.Chart().transform_filter(filt)
    dash = alt.StrokeDash("runner_txt:N", title="runner (lines)", legend=alt.Legend() if len(runners) > 1 else None)
    line = base.transform_filter("datum.x_num").mark_line(opacity=0.7).encode(
        x=xenc, y=y, color=cenc, strokeDash=dash, detail="runner_txt:N")
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=xenc, y=y, color=cenc, tooltip=tooltip,
        shape=alt.Shape("runner_txt:N", title="runner (points)",
                        legend=alt.Legend() if len(runners) > 1 else None))
    rules = base.mark_rule(opacity=0.8).encode(x=xenc, y=alt.Y("speedup_low:Q", scale=yscale, title=ytitle),
                                               y2="speedup_high:Q", color=cenc, tooltip=tooltip)
    layers: list[Any] = [line, rules, points,
                         alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(1))]
    nums = [pos[v] for v in numeric]
    if nums and len(nums) < len(pos):
        # the same scale and axis as the data layers, or the merged axis loses its tick values
        layers.append(alt.Chart().mark_rule(color="lightgray").encode(
            x=alt.X(datum=max(nums) + 0.5, type="quantitative", title=x, scale=xscale, axis=xaxis)))
    layer = alt.layer(*layers).properties(width=200 if facet else 420, height=200)
    assert isinstance(layer, alt.LayerChart)   # no layer has a facet encoding to hoist into a FacetChart
    if facet or row:
        # Panels wrap (docs/assets/tfperf.js: one per row on a phone): one facet over a
        # "row = a · column = b" panel name, as many columns as the facet has values, rows
        # outer and columns inner, each in numeric order; one y scale for every panel, as
        # speedups are comparable across models and batches.
        fvals = _axis_values(rows, f"p_{facet}", (param_order or {}).get(facet)) if facet else [None]
        rvals = _axis_values(rows, f"p_{row}", (param_order or {}).get(row)) if row else [None]

        def panel(rv: Any, fv: Any) -> str:
            return ", ".join(_shown(rows, f"p_{n}", "v_", v) for n, v in ((row, rv), (facet, fv)) if n)

        for d in data:
            d["panel"] = panel(d.get(f"p_{row}") if row else None, d.get(f"p_{facet}") if facet else None)
        order = [panel(rv, fv) for rv in rvals for fv in fvals]
        header = alt.Header(title=None, labelFontSize=12, labelFontWeight="bold")
        chart: Any = layer.facet(facet=alt.Facet("panel:N", sort=order, header=header), columns=len(fvals),
                                 data=alt.NamedData(name="rows")).resolve_scale(y="shared")
    else:
        chart = layer.properties(data=alt.NamedData(name="rows"))
    chart = chart.add_params(*alt_params)
    if title:
        chart = chart.properties(title=title)
    chart = (chart.configure_view(stroke=None).configure_axis(labelFontSize=11, titleFontSize=12)
             .configure_legend(orient="bottom", columns=1, labelLimit=360))
    spec = chart.to_dict(validate=True)
    spec.pop("$schema", None)
    shown = [d for d in data if all(str(d.get(f)) == str(o[0]) for f, o in sel)]
    return {**spec, "datasets": {"rows": data}}, {**spec, "datasets": {"rows": shown}}
