"""Altair charts of a topic's results, as Vega-Lite specs (dicts).

Charts draw rows the analysis computed (``Dataset.chart_rows``); they compute no
statistics. Every chart has a choice of runner, software version and of each setting
(e.g. Keras 2 or 3) and each remaining parameter, tooltips with the median and its 95%
CI, and a log scale where the values span more than a decade.

Layout for any screen: panels (one per value of the facet parameter, in numeric order)
share one y scale and wrap, so docs/assets/tfperf.js can lay them out one per row on a
narrow screen (it sets ``columns`` and the panel width from the box the chart gets); a log
axis has 1-2-5 ticks (1×, 2×, 5×, 10×, ...); colours are the Okabe-Ito palette, which
colour-blind readers can tell apart; legend labels are short (the variant id when the
topic's labels are long; the tooltip has the full label).
"""

from __future__ import annotations

import math
import textwrap
from typing import Any, TypeGuard

import altair as alt

from ..analyse import ChartRow
from ..errors import TfperfError
from ..store.record_types import Scalar
from .html import seconds, seconds_range, times

VIEWS = ("latency", "speedup", "first_call", "trend")

_Y = {
    "latency": ("median", "ci_low", "ci_high", "time per call"),
    "speedup": ("speedup", "speedup_low", "speedup_high", "speedup over the default (×, higher is faster)"),
    "first_call": ("first_call", None, None, "first call (tracing, building)"),
    "trend": ("median", "ci_low", "ci_high", "time per call"),
}


class ChartError(TfperfError, ValueError):
    """A chart directive asks for something the data cannot give (named in the message).
    (Still a ValueError, as it was before it joined the one root.)"""


def _num(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _number(v: Scalar | None) -> float | None:
    """A row's number (median, speedup, ...: a float or None in every row ``analyse`` makes)."""
    return v if _num(v) else None


def _values(rows: list[ChartRow], field: str, order: list[Any] | None = None) -> list[Any]:
    vals = {r[field] for r in rows if r.get(field) is not None}
    known = [v for v in order or [] if v in vals]
    return known + sorted(vals - set(known), key=lambda v: (not _num(v), v if _num(v) else str(v)))


# Okabe & Ito (2008), colour-blind safe, in an order that keeps neighbours apart; then
# four of Paul Tol's for topics with more variants.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
           "#882255", "#44AA99", "#999933", "#332288"]
LEGEND_LABEL_MAX = 34     # longer variant labels are replaced by the variant id in the legend
PANEL_COLUMNS = 3         # panels per row on a wide screen; tfperf.js reduces it to fit


def _axis_values(rows: list[ChartRow], field: str, order: list[Any] | None = None) -> list[Any]:
    """The values of a parameter in display order: ascending when they are all numbers
    (1, 32, 64, 1024, whatever order the YAML or a later profile added them in), else the
    YAML's order."""
    vals = _values(rows, field, order)
    return sorted(vals) if vals and all(_num(v) for v in vals) else vals


def log_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 tick values from below ``lo`` to above ``hi`` (both > 0): 0.5, 1, 2, 5, 10, ..."""
    out: list[float] = []
    e = math.floor(math.log10(lo))
    while True:
        for m in (1, 2, 5):
            v = float(f"{m * 10.0 ** e:.12g}")
            if v >= lo / 5:
                out.append(v)
            if v > hi * 5 or len(out) > 60:
                return out
        e += 1


def _positive(rows: list[ChartRow], fields: list[str]) -> list[float]:
    return [v for r in rows for f in fields if f and _num(v := r.get(f)) and v > 0]


def _spans_decades(rows: list[ChartRow], fields: list[str]) -> bool:
    xs = [v for r in rows for f in fields if f and _num(v := r.get(f)) and v > 0]
    return bool(xs) and max(xs) / min(xs) > 10


def has_trend(rows: list[ChartRow]) -> bool:
    """Whether a trend chart has anything to draw: one case (runner, variant, parameters,
    settings) measured with two or more software versions. A topic measured under Keras 2
    and Keras 3 has two versions but no trend: each case has one."""
    versions: dict[tuple[Any, ...], set[Any]] = {}
    for r in rows:
        key = tuple(sorted((k, str(v)) for k, v in r.items()
                           if k in ("runner", "variant") or k.startswith(("p_", "s_"))))
        versions.setdefault(key, set()).add(r.get("version"))
    return any(len(v) > 1 for v in versions.values())


def chart_spec(rows: list[ChartRow], view: str, static: bool = False, **options: Any) -> dict[str, Any]:
    """A Vega-Lite spec for one view of a topic (see ``chart_specs``)."""
    interactive, still = chart_specs(rows, view, **options)
    return still if static else interactive


def chart_specs(rows: list[ChartRow], view: str, x: str | None = None, facet: str | None = None,
                default_label: str = "the default", title: str | None = None,
                order: dict[str, list[Any]] | None = None, unit: str = "call",
                settings_order: dict[str, list[Any]] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Vega-Lite specs for one view of a topic: the interactive one, and the static one
    for the SVG fallback, which keeps only the rows the initial choices show (it cannot
    be interacted with, and renders much faster from fewer rows). Both come from one
    Altair chart: building and validating it is most of a site build's time.
    ``x`` and ``facet`` are parameter names."""
    if view not in VIEWS:
        raise ChartError(f"unknown chart view {view!r} (known: {', '.join(VIEWS)})")
    if not rows:
        raise ChartError("no rows")
    params = sorted({k[2:] for r in rows for k in r if k.startswith("p_")})
    settings = sorted({k[2:] for r in rows for k in r if k.startswith("s_")})
    for name, what in ((x, "x"), (facet, "facet")):
        if name is not None and name not in params:
            raise ChartError(f"{what}={name!r} is not a parameter of this topic (parameters: {', '.join(params)})")
    multi = [p for p in params if len(_values(rows, f"p_{p}")) > 1]
    if view == "trend":
        x = None
    elif x is None:
        numeric = [p for p in multi if all(_num(v) for v in _values(rows, f"p_{p}"))]
        x = next(iter(numeric or multi or params), None)
    if facet is None:
        rest = [p for p in multi if p != x]
        facet = rest[0] if rest else None

    data = [_decorate(r) for r in rows]
    sel: list[tuple[str, str, list[Any], Any]] = []   # (param name, field, options, initial)
    runners = _values(rows, "runner")
    sel.append(("runner", "runner", runners, runners[0]))
    if view != "trend":
        versions = ["newest", *_values(rows, "version")]
        sel.append(("version", "version", versions, "newest"))
    for s in settings:   # the YAML's first value first (Keras 3, oneDNN on, default threads)
        opts = _values(rows, f"s_{s}", (settings_order or {}).get(s))
        if len(opts) > 1:
            sel.append((f"s_{s}", f"s_{s}", opts, opts[0]))
    for p in multi:
        if p not in (x, facet):
            opts = _values(rows, f"p_{p}", (order or {}).get(p))
            sel.append((f"p_{p}", f"p_{p}", opts, opts[0]))

    alt_params = [alt.param(name=name, value=init,
                            bind=alt.binding_select(options=opts, name=_pretty(name) + " "))
                  for name, _f, opts, init in sel]
    conds = []
    for name, fld, _o, _i in sel:
        if name == "version":
            conds.append("(version == 'newest' ? datum.newest : datum.version == version)")
        else:
            conds.append(f"datum['{fld}'] == {name}")
    yf, ylo, yhi, ytitle = _Y[view]
    if unit != "call" and view in ("latency", "trend"):
        ytitle = f"time per {unit}"
    elif unit != "call" and view == "first_call":
        ytitle = ["first call", "(tracing, building; one whole call)"]  # type: ignore[assignment]
    if view == "speedup":   # lines no longer than a panel is high
        ytitle = [*textwrap.wrap(f"speedup over {default_label}", 30), "(×, higher is faster)"]  # type: ignore[assignment]
    filt = " && ".join(conds) + f" && isValid(datum['{yf}'])"
    ylog = _spans_decades(rows, [yf, ylo or yf, yhi or yf])
    # A linear time axis starts at zero (54 and 62 ms are 15% apart, not a factor of ten);
    # a linear speedup axis need not, it always shows the 1× line.
    yscale = alt.Scale(type="log") if ylog else alt.Scale(zero=view != "speedup")

    if view == "trend":
        xenc = alt.X("version:O", title="software version", sort=_values(rows, "version"))
    else:
        assert x is not None
        xvals = _axis_values(rows, f"p_{x}", (order or {}).get(x))   # numbers ascending, names in the YAML's order
        if all(_num(v) for v in xvals):
            xlog = len(xvals) > 1 and min(xvals) > 0 and max(xvals) / min(xvals) >= 10
            xenc = alt.X(f"p_{x}:Q", title=x, scale=alt.Scale(type="log") if xlog else alt.Scale(),
                         axis=alt.Axis(values=xvals))
        else:
            xenc = alt.X(f"p_{x}:N", title=x, sort=xvals)
    labels = {r.get("label") for r in rows}
    legend_field = "label" if max((len(str(v)) for v in labels), default=0) <= LEGEND_LABEL_MAX else "variant"
    color = alt.Color(f"{legend_field}:N", title="variant", scale=alt.Scale(range=PALETTE))
    tooltip = [alt.Tooltip("label:N", title="variant"), alt.Tooltip("runner:N"), alt.Tooltip("version:N"),
               *[alt.Tooltip(f"p_{p}:N", title=p) for p in params],
               *[alt.Tooltip(f"s_{s}:N", title=s) for s in settings],
               alt.Tooltip("median_txt:N", title="median"), alt.Tooltip("ci_txt:N", title="95% CI of median"),
               alt.Tooltip("speedup_txt:N", title=f"speedup over {default_label}"),
               alt.Tooltip("first_txt:N", title="first call"), alt.Tooltip("n:Q", title="samples"),
               alt.Tooltip("status:N"), alt.Tooltip("commit:N"), alt.Tooltip("date:N")]

    base = alt.Chart().transform_filter(filt)
    pos = _positive(rows, [yf, ylo or yf, yhi or yf]) if ylog else []
    ticks = log_ticks(min(pos), max(pos)) if ylog else alt.Undefined     # Undefined: left out of the spec
    axis = (alt.Axis(labelExpr="format(datum.value, '~s') + 's'", values=ticks) if view != "speedup"
            else alt.Axis(labelExpr="format(datum.value, '~g') + '×'", values=ticks))
    y = alt.Y(f"{yf}:Q", title=ytitle, scale=yscale, axis=axis)
    line = base.mark_line(point=False, opacity=0.8).encode(x=xenc, y=y, color=color, detail="variant:N")
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=xenc, y=y, color=color, tooltip=tooltip,
        shape=alt.Shape("status:N", title="status",
                        scale=alt.Scale(domain=["ok", "output outside tolerance", "not recommended", "stale"],
                                        range=["circle", "cross", "triangle-down", "diamond"])),
    )
    layers: list[Any] = [line, points]
    if ylo and yhi:
        layers.append(base.mark_rule(opacity=0.8).encode(
            x=xenc, y=alt.Y(f"{ylo}:Q", scale=yscale, title=ytitle), y2=f"{yhi}:Q", color=color, tooltip=tooltip))
    if view == "speedup":
        layers.append(alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(1)))
    layer = alt.layer(*layers).properties(width=210 if facet else 480, height=240)
    assert isinstance(layer, alt.LayerChart)   # no layer has a facet encoding to hoist into a FacetChart
    if facet:
        fvals = _axis_values(rows, f"p_{facet}", (order or {}).get(facet))
        # Wrapped panels on one shared y scale: the same value sits at the same height in
        # every panel, and a narrow screen gets one panel per row (tfperf.js).
        header = alt.Header(title=None, labelExpr=f"{_js_str(facet + ' = ')} + datum.value",
                            labelFontSize=12, labelFontWeight="bold")
        chart: Any = layer.facet(facet=alt.Facet(f"p_{facet}:N", sort=fvals, header=header),
                                 columns=min(PANEL_COLUMNS, len(fvals)),
                                 data=alt.NamedData(name="rows")).resolve_scale(y="shared")
    else:
        chart = layer.properties(data=alt.NamedData(name="rows"))
    chart = chart.add_params(*alt_params)
    if title:
        chart = chart.properties(title=title)
    chart = (chart.configure_view(stroke=None).configure_axis(labelFontSize=11, titleFontSize=12)
             .configure_legend(orient="bottom", columns=2, labelLimit=320))
    spec = chart.to_dict(validate=True)   # validated without the rows (fast); rows added below
    spec.pop("$schema", None)   # no URL in the page; the embed code says "vega-lite"
    shown = [d for d in data if _initially_shown(d, sel)]
    return {**spec, "datasets": {"rows": data}}, {**spec, "datasets": {"rows": shown}}


def _initially_shown(d: ChartRow, sel: list[tuple[str, str, list[Any], Any]]) -> bool:
    for name, fld, _opts, init in sel:
        if name == "version":
            if not d.get("newest"):
                return False
        elif str(d.get(fld)) != str(init):
            return False
    return True


def _js_str(text: str) -> str:
    """A Vega expression string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pretty(name: str) -> str:
    return {"runner": "Runner:", "version": "Software:"}.get(name, (name[2:] if name[:2] in ("p_", "s_") else name) + ":")


def _decorate(r: ChartRow) -> ChartRow:
    """Tooltip texts, formatted here so the reader sees units (1.2 ms, not 0.0012)."""
    out = {k: v for k, v in r.items() if k not in ("source", "correct", "tensorflow", "keras")}
    out["median_txt"] = seconds(_number(r.get("median")))
    out["ci_txt"] = seconds_range(_number(r.get("ci_low")), _number(r.get("ci_high")))
    sp = r.get("speedup")
    out["speedup_txt"] = (f"{times(_number(sp))} ({times(_number(r.get('speedup_low')))}–"
                          f"{times(_number(r.get('speedup_high')))})" if sp is not None else "–")
    out["first_txt"] = seconds(_number(r.get("first_call")))
    for k, v in list(out.items()):
        if isinstance(v, float) and not math.isfinite(v):
            out[k] = None
    return out
