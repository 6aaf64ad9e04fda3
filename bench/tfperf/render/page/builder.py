"""The skeleton every chart is built on, as Altair parts that each kind of chart assembles.

A chart is Vega-Lite layers (a line, points with tooltips, 95% CI rules, the dashed 1× line
of a speedup axis) over one named dataset, ``rows``, drawn once or once per panel; the
dropdowns above it (:class:`Choice`) filter the rows; the finished spec comes in two
variants that differ only in their rows: the interactive one with every row, and the
static one (the SVG fallback) with the rows the dropdowns' first options show.

The common conventions live here: the Okabe-Ito palette, which colour-blind readers can
tell apart; a log axis where the values span more than a decade, with 1-2-5 ticks (1×, 2×,
5×, 10×, ...); panels that share one y scale and wrap, so docs/assets/tfperf.js can lay
them out one per row on a narrow screen; the rows' tooltip texts in units (1.2 ms, not
0.0012) and the runner as its machine. Nothing here computes statistics: the rows come
from the analysis.

And what a chart says in words (the last section): the name a screen reader reads for it
(what it shows and the topic's main finding), and the runners' machines for its choices
and tooltips. A chart's text alternative is its figure's ``aria-label`` and the ``alt`` of
its static SVG; the figures themselves are in the tables beside each chart.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from typing import Any, NamedTuple, TypeGuard

import altair as alt

from ...analyse import PARAM_WORDS, ChartRow, Dataset, SettingsRow, TableRow, hardware_name, listing, question_answers
from ...errors import TfperfError
from ...store.record_types import Scalar
from .context import Context
from .html import seconds, seconds_range, times

# Okabe & Ito (2008), colour-blind safe, in an order that keeps neighbours apart; then
# four of Paul Tol's, used only where a chart has more series than a panel shows at once.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
           "#882255", "#44AA99", "#999933", "#332288"]
MAX_SERIES = 8            # variants in one panel: the Okabe-Ito colours, each told apart
PANEL_COLUMNS = 3         # panels per row on a wide screen; tfperf.js reduces it to fit


class ChartError(TfperfError, ValueError):
    """A chart directive asks for something the data cannot give (named in the message).
    Also a ValueError, so that a caller catching one catches it."""


# ---- the rows' values ---------------------------------------------------------------------

def is_number(v: object) -> TypeGuard[int | float]:
    """An int or a float, not a bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def field_values(rows: list[TableRow], field: str, order: list[Any] | None = None) -> list[Any]:
    """The values of ``field`` in the rows, once each: those ``order`` names first, in its
    order, then the others, numbers ascending before names."""
    vals = {r[field] for r in rows if r.get(field) is not None}
    known = [v for v in order or [] if v in vals]
    return known + sorted(vals - set(known), key=lambda v: (not is_number(v), v if is_number(v) else str(v)))


def axis_values(rows: list[TableRow], field: str, order: list[Any] | None = None) -> list[Any]:
    """The values of a parameter in display order: ascending when they are all numbers
    (1, 32, 64, 1024, whatever order the YAML or a later profile added them in), else the
    YAML's order."""
    vals = field_values(rows, field, order)
    return sorted(vals) if vals and all(is_number(v) for v in vals) else vals


def shown_value(rows: list[TableRow], field: str, shown: str, value: Any) -> str:
    """How the reader sees ``value`` of ``field`` (``p_batch``): the reader-words field
    ``shown`` (``v_batch``) of a row that has it."""
    return next((str(r[shown]) for r in rows if r.get(field) == value and r.get(shown) is not None), str(value))


def positive(rows: list[TableRow], fields: list[str]) -> list[float]:
    """The rows' values of ``fields`` that are numbers above zero (what a log axis can draw)."""
    return [v for r in rows for f in fields if f and is_number(v := r.get(f)) and v > 0]


def machine(runner: Any, names: dict[str, str] | None) -> str:
    """A runner as the reader reads it: its machine where ``names`` has it, else its id."""
    return (names or {}).get(str(runner), str(runner))


def _number(v: Scalar | None) -> float | None:
    """A row's number (median, speedup, ...: a float or None in every row ``analyse`` makes)."""
    return v if is_number(v) else None


def decorate(r: TableRow, runner_names: dict[str, str] | None = None) -> TableRow:
    """Tooltip texts, formatted here so the reader sees units (1.2 ms, not 0.0012), and the
    runner's machine."""
    out = {k: v for k, v in r.items() if k not in ("source", "correct", "tensorflow", "keras")}
    out["runner_txt"] = machine(r.get("runner"), runner_names)
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


# ---- the dropdowns ------------------------------------------------------------------------

class Choice(NamedTuple):
    """A dropdown above a chart, bound to a Vega-Lite parameter that keeps the rows whose
    ``field`` has the chosen value; its first option is the one shown first."""

    name: str               # the parameter's name in the spec
    field: str              # the row field it compares with
    options: list[Any]
    labels: list[str]       # the options in reader words
    title: str              # the dropdown's name, as shown before it ("Runner: ")
    newest: bool = False    # the first option, "newest", keeps each case's newest release


def choice_params(choices: list[Choice]) -> list[Any]:
    """The dropdowns as Vega-Lite parameters, each starting at its first option."""
    return [alt.param(name=c.name, value=c.options[0],
                      bind=alt.binding_select(options=c.options, labels=c.labels, name=c.title))
            for c in choices]


def choice_filter(choices: list[Choice], y: str) -> str:
    """The Vega expression that keeps the rows the dropdowns choose and that have a ``y``."""
    tests = [f"({c.name} == 'newest' ? datum.newest : datum.{c.field} == {c.name})" if c.newest
             else f"datum['{c.field}'] == {c.name}" for c in choices]
    return " && ".join([*tests, f"isValid(datum['{y}'])"])


def first_shown(data: list[TableRow], choices: list[Choice]) -> list[TableRow]:
    """The rows the dropdowns' first options show: those the static chart draws."""
    return [d for d in data
            if all(d.get("newest") if c.newest else str(d.get(c.field)) == str(c.options[0]) for c in choices)]


# ---- axes ---------------------------------------------------------------------------------

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


def log_axis(values: list[float]) -> tuple[bool, Any]:
    """Whether ``values`` (all above zero) span more than a decade, so that their axis is a
    log one, and that axis's 1-2-5 tick values (Undefined for a linear axis: left out of the
    spec)."""
    log = bool(values) and max(values) / min(values) > 10
    return log, (log_ticks(min(values), max(values)) if log else alt.Undefined)


def time_axis(ticks: Any) -> Any:
    """A y axis of seconds (1ms, 20µs)."""
    return alt.Axis(labelExpr="format(datum.value, '~s') + 's'", values=ticks)


def speedup_axis(ticks: Any) -> Any:
    """A y axis of speedups (2×, 0.5×)."""
    return alt.Axis(labelExpr="format(datum.value, '~g') + '×'", values=ticks)


def wrap_title(text: str, width: int) -> list[str]:
    """An axis title in lines of about ``width`` characters, broken between words only (a
    name such as ``tf.function(jit_compile=True)`` stays whole)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [text]


# ---- layers -------------------------------------------------------------------------------

class Encodings(NamedTuple):
    """What a chart's data layers share: x, y (its scale and title again for the CI rules),
    the colour and the tooltip."""

    x: Any
    y: Any
    y_scale: Any
    y_title: Any
    color: Any
    tooltip: list[Any]


def points(base: Any, enc: Encodings, shape: Any, **channels: Any) -> Any:
    """The points, each with its tooltip, shaped by ``shape``."""
    return base.mark_point(filled=True, size=60, opacity=1).encode(
        x=enc.x, y=enc.y, color=enc.color, tooltip=enc.tooltip, shape=shape, **channels)


def ci_rules(base: Any, enc: Encodings, low: str, high: str, mark: dict[str, Any], **channels: Any) -> Any:
    """A rule from ``low`` to ``high`` (a 95% CI) at each point."""
    return base.mark_rule(**mark).encode(x=enc.x, y=alt.Y(f"{low}:Q", scale=enc.y_scale, title=enc.y_title),
                                         y2=f"{high}:Q", color=enc.color, tooltip=enc.tooltip, **channels)


def one_times_rule() -> Any:
    """The dashed line at 1× on a speedup axis."""
    return alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(1))


def layered(layers: list[Any], width: int, height: int) -> alt.LayerChart:
    """The layers drawn over each other, in one panel of ``width`` × ``height`` pixels."""
    layer = alt.layer(*layers).properties(width=width, height=height)
    assert isinstance(layer, alt.LayerChart)   # no layer has a facet encoding to hoist into a FacetChart
    return layer


# ---- panels and the finished spec ---------------------------------------------------------

def one_panel(layer: alt.LayerChart) -> Any:
    """The layers over the chart's rows, in one panel."""
    return layer.properties(data=alt.NamedData(name="rows"))


def panels(layer: alt.LayerChart, field: str, sort: list[str], columns: int, filt: str | None = None) -> Any:
    """The layers once per value of ``field``, a panel each named by the value, in ``sort``'s
    order, wrapped after ``columns``, on one shared y scale: the same value sits at the same
    height in every panel. ``filt`` filters the rows before they are split, so that a panel
    appears only for what the dropdowns show."""
    header = alt.Header(title=None, labelFontSize=12, labelFontWeight="bold")
    chart = layer.facet(facet=alt.Facet(f"{field}:N", sort=sort, header=header), columns=columns,
                        data=alt.NamedData(name="rows"))
    if filt is not None:
        chart = chart.transform_filter(filt)
    return chart.resolve_scale(y="shared")


def finished(chart: Any, params: list[Any] | None, title: str | None, legend: dict[str, Any]) -> dict[str, Any]:
    """The chart's Vega-Lite spec without its rows: with the dropdowns' ``params`` (None: a
    chart without dropdowns), ``title``, and the common look; the ``legend`` below it."""
    if params is not None:
        chart = chart.add_params(*params)
    # Title and look in one call: each ``properties``/``configure_*`` call deep-copies the
    # whole chart (three configure calls were a tenth of a site build's chart time).
    look = alt.Config(view=alt.ViewConfig(stroke=None), axis=alt.AxisConfig(labelFontSize=11, titleFontSize=12),
                      legend=alt.LegendConfig(**legend))
    chart = chart.properties(title=title, config=look) if title else chart.properties(config=look)
    spec: dict[str, Any] = chart.to_dict(validate=False)   # without the rows; rows added below
    shape = _shape(spec)
    if shape not in _VALIDATED:
        chart.to_dict(validate=True)        # raises on a spec Vega-Lite would refuse
        _VALIDATED.add(shape)
    spec.pop("$schema", None)   # no URL in the page; the embed code says "vega-lite"
    return spec


# Shapes of the specs this process has validated against Vega-Lite's schema (:func:`finished`).
# Validating every chart took a fifth of a site build's chart time (the published site: ~450
# charts, far fewer shapes); a spec of a shape found valid differs only in the texts and
# numbers the data fills in, which the schema checks by type.
_VALIDATED: set[str] = set()
_KEYWORD = re.compile(r"[a-z][a-zA-Z]{0,15}")     # "log", "quantitative", "line": kept in the shape


def _shape(spec: dict[str, Any]) -> str:
    """The spec with every number, boolean and text replaced by its type's name, but short
    keywords (a scale's or mark's type, an encoding's field), which may come from an enum:
    its keys, nesting and list lengths, which the code decides, not the data's values."""
    def blank(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: blank(v) for k, v in value.items()}
        if isinstance(value, list):
            return [blank(v) for v in value]
        if isinstance(value, str) and _KEYWORD.fullmatch(value):
            return value
        return type(value).__name__
    return json.dumps(blank(spec), sort_keys=True)


def with_rows(spec: dict[str, Any], rows: list[Any]) -> dict[str, Any]:
    """The spec with its dataset ``rows``."""
    return {**spec, "datasets": {"rows": rows}}


# ---- what a chart says in words -----------------------------------------------------------

MAX_NAMED = 6        # more series than this are counted, not named


def runner_names(ds: Dataset, rows: list[ChartRow] | list[SettingsRow]) -> dict[str, str]:
    """Each runner of ``rows`` as its machine ("2-core AMD EPYC (AVX2)"), with its label
    added where two runners would read the same."""
    ids = list(dict.fromkeys(r.runner for r in rows))
    named = {i: hardware_name(ds.runners.get(i) or ds.runners.get(i.split("/")[0]), i) for i in ids}
    return {i: n if list(named.values()).count(n) == 1 else f"{n} ({i})" for i, n in named.items()}


MAX_FINDING = 240    # characters of the main finding read out; the answers above the chart have the rest


def _finding(ctx: Context, topic: str) -> str:
    """The topic's first question answered in one line, cut after whole parts; worked out
    once per topic and page (every chart of a topic reads the same one)."""
    if topic not in ctx.findings:
        ctx.findings[topic] = _first_answer(ctx.ds, topic)
    return ctx.findings[topic]


def _first_answer(ds: Dataset, topic: str) -> str:
    answers = question_answers(ds, topic)
    if not answers:
        return ""
    parts = answers[0].one_line(within=MAX_FINDING).split("; ")
    kept = parts[:1]
    for p in parts[1:]:
        if len("; ".join([*kept, p])) > MAX_FINDING:
            break
        kept.append(p)
    more = "; and more in the answers at the top of the page" if len(kept) < len(parts) else ""
    return f" Main finding: {'; '.join(kept)}{more}."


def _series(rows: list[ChartRow], leave: str | None = None) -> str:
    """The variants' display names, in order (``leave`` left out), or how many there are."""
    names = [n for n in dict.fromkeys(r.case.label for r in rows) if n != leave]
    return listing(names) if len(names) <= MAX_NAMED else f"{len(names)} ways"


def _shown_axes(spec: dict[str, Any]) -> tuple[str | None, str | None]:
    """The x axis's title and the parameter the panels are split by, as the spec draws them."""
    inner = spec.get("spec", spec)
    layers = inner.get("layer") or [inner]
    x = next((lay.get("encoding", {}).get("x", {}).get("title") for lay in layers
              if lay.get("encoding", {}).get("x", {}).get("title")), None)
    facet = (spec.get("facet") or {}).get("field")
    return x, (str(facet).removeprefix(PARAM_WORDS) if facet else None)


def chart_alt(ctx: Context, topic: str, view: str, rows: list[ChartRow], spec: dict[str, Any]) -> str:
    """"Time per call of model.predict(x), model(x) and … by batch, one panel per model.
    Main finding: …" for a topic's chart."""
    ds = ctx.ds
    unit = ds.unit(topic)
    default = ds.default_variant(topic)
    what = {"latency": f"Time per {unit}",
            "speedup": f"Speedup over {ds.label(topic, default) if default else 'the default'}",
            "first_call": "Time of the first call (tracing, building)",
            "trend": f"Time per {unit} in each TensorFlow release"}.get(view, view)
    x, facet = _shown_axes(spec)
    by = f" by {x}" if x and view != "trend" else ""
    panels = f", one panel per {facet}" if facet else ""
    leave = ds.label(topic, default) if view == "speedup" and default else None
    return f"{what} of {_series(rows, leave=leave)}{by}{panels}.{_finding(ctx, topic)}"


def settings_alt(ctx: Context, topic: str, x: str, baseline: str, rows: list[SettingsRow]) -> str:
    """The text alternative of a settings chart ("Speedup of each threads setting over …")."""
    values = [v for v in dict.fromkeys(r.case.setting_words.get(x) for r in rows) if v is not None]
    return f"Speedup over {baseline} of {listing(values) or x}.{_finding(ctx, topic)}"
