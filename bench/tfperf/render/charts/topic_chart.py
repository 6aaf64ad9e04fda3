"""Altair charts of a topic's results, as Vega-Lite specs (dicts).

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
in reader words (the ``v_``/``l_`` fields of :meth:`Dataset.chart_rows`) and the runner's
machine; the ids (``p_``/``s_``, ``variant``, ``runner``) only filter.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any, TypeGuard

import altair as alt

from ...analyse import ChartRow
from ...errors import TfperfError
from ...store.record_types import Scalar
from ..page.html import seconds, seconds_range, times

VIEWS = ("latency", "speedup", "first_call", "trend")

_Y = {
    "latency": ("median", "ci_low", "ci_high", "time per call"),
    "speedup": ("speedup", "speedup_low", "speedup_high", "speedup over the default (×, higher is faster)"),
    "first_call": ("first_call", None, None, "first call (tracing, building)"),
    "trend": ("median", "ci_low", "ci_high", "time per call"),
}


class ChartError(TfperfError, ValueError):
    """A chart directive asks for something the data cannot give (named in the message).
    Also a ValueError, so that a caller catching one catches it."""


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
# four of Paul Tol's, used only where a chart has more series than a panel shows at once.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
           "#882255", "#44AA99", "#999933", "#332288"]
MAX_SERIES = 8            # variants in one panel: the Okabe-Ito colours, each told apart
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


def wrap_title(text: str, width: int) -> list[str]:
    """An axis title in lines of about ``width`` characters, broken between words only (a
    name such as ``tf.function(jit_compile=True)`` stays whole)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [text]


def _grouped(data: list[ChartRow], groups: dict[str, list[str]], default: str | None) -> list[ChartRow]:
    """Each row once per group its variant belongs to, with the group's name in ``group``;
    the default variant, the one every speedup is over, belongs to every group."""
    out = []
    for d in data:
        for name, members in groups.items():
            if d.get("variant") in members or d.get("variant") == default:
                out.append({**d, "group": name})
    return out


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

    first = [default] if default else []
    by_variant = {r.get("variant"): r.get("label") for r in rows}
    labels = list(dict.fromkeys([*(by_variant[v] for v in [*first, *(variants or [])] if v in by_variant),
                                 *_values(rows, "label")]))
    groups = {g: m for g, m in (groups or {}).items() if any(r.get("variant") in m for r in rows)}
    if len(labels) > MAX_SERIES and not groups:
        raise ChartError(f"{len(labels)} variants in one panel (at most {MAX_SERIES}): "
                         "name groups of them in the topic's `groups:`")
    data = [_decorate(r, runner_names) for r in rows]
    sel: list[tuple[str, str, list[Any], Any, list[str]]] = []   # (param name, field, options, initial, their names)
    runners = _values(rows, "runner")
    sel.append(("runner", "runner", runners, runners[0], [str(_runner(r, runner_names)) for r in runners]))
    if view != "trend":
        versions = _values(rows, "version")
        sel.append(("version", "version", ["newest", *versions], "newest", ["the newest release", *versions]))
    for s in settings:   # the YAML's first value first (Keras 3, oneDNN on, default threads)
        opts = _values(rows, f"s_{s}", (settings_order or {}).get(s))
        if len(opts) > 1:
            sel.append((f"s_{s}", f"s_{s}", opts, opts[0], [_shown(rows, f"s_{s}", "l_", o) for o in opts]))
    for p in multi:
        if p not in (x, facet):
            opts = _values(rows, f"p_{p}", (order or {}).get(p))
            sel.append((f"p_{p}", f"p_{p}", opts, opts[0], [_shown(rows, f"p_{p}", "v_", o) for o in opts]))
    if groups:
        data = _grouped(data, groups, default)
        names = list(groups)
        sel.insert(0, ("group", "group", names, names[0], names))

    alt_params = [alt.param(name=name, value=init,
                            bind=alt.binding_select(options=opts, labels=shown, name=_pretty(name) + " "))
                  for name, _f, opts, init, shown in sel]
    conds = []
    for name, fld, _o, _i, _n in sel:
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
        ytitle = [*wrap_title(f"speedup over {default_label}", 30), "(×, higher is faster)"]  # type: ignore[assignment]
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
            xenc = alt.X(f"v_{x}:N", title=x, sort=[_shown(rows, f"p_{x}", "v_", v) for v in xvals])
    # One colour per variant across the chart's choices; with groups, the colours of the
    # group shown (the legend then lists that group only), the default's first in each.
    color = alt.Color("label:N", title="variant", sort=labels,
                      scale=alt.Scale(range=PALETTE[:MAX_SERIES]) if groups
                      else alt.Scale(domain=labels, range=PALETTE[:len(labels)]))
    tooltip = [alt.Tooltip("label:N", title="variant"), alt.Tooltip("runner_txt:N", title="runner"),
               alt.Tooltip("version:N"),
               *[alt.Tooltip(f"v_{p}:N", title=p) for p in params],
               *[alt.Tooltip(f"l_{s}:N", title=s) for s in settings],
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
        # every panel, and a narrow screen gets one panel per row (tfperf.js). A row of a
        # profile that did not vary the facet's parameter ran with the snippet's default.
        unset = f"{facet}: the snippet's default"
        fnames = [_shown(rows, f"p_{facet}", "v_", v) for v in fvals]
        for d in data:
            if d.get(f"v_{facet}") is None:
                d[f"v_{facet}"] = unset
                fnames += [unset] if unset not in fnames else []
        header = alt.Header(title=None, labelFontSize=12, labelFontWeight="bold")
        # The choices filter before the rows are split into panels, so a panel appears only
        # for what is shown (an older release measured without `model` shows one panel).
        chart: Any = layer.facet(facet=alt.Facet(f"v_{facet}:N", sort=fnames, header=header),
                                 columns=min(PANEL_COLUMNS, len(fvals)),
                                 data=alt.NamedData(name="rows")).transform_filter(filt).resolve_scale(y="shared")
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


def _initially_shown(d: ChartRow, sel: list[tuple[str, str, list[Any], Any, list[str]]]) -> bool:
    for name, fld, _opts, init, _names in sel:
        if name == "version":
            if not d.get("newest"):
                return False
        elif str(d.get(fld)) != str(init):
            return False
    return True


def _shown(rows: list[ChartRow], field: str, prefix: str, value: Any) -> str:
    """How the reader sees ``value`` of ``field`` (``p_batch``): the reader-words field
    (``v_batch``) of a row that has it."""
    shown = f"{prefix}{field[2:]}"
    return next((str(r[shown]) for r in rows if r.get(field) == value and r.get(shown) is not None), str(value))


def _runner(runner: Any, names: dict[str, str] | None) -> str:
    return (names or {}).get(str(runner), str(runner))


def _pretty(name: str) -> str:
    return {"runner": "Runner:", "version": "Software:", "group": "Show:"}.get(
        name, (name[2:] if name[:2] in ("p_", "s_") else name) + ":")


def _decorate(r: ChartRow, runner_names: dict[str, str] | None = None) -> ChartRow:
    """Tooltip texts, formatted here so the reader sees units (1.2 ms, not 0.0012), and the
    runner's machine."""
    out = {k: v for k, v in r.items() if k not in ("source", "correct", "tensorflow", "keras")}
    out["runner_txt"] = _runner(r.get("runner"), runner_names)
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
