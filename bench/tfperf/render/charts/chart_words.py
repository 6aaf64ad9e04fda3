"""What a chart says in words: the name a screen reader reads for it (what it shows and the
topic's main finding), and the runners' machines for its choices and tooltips.

A chart's text alternative is its figure's ``aria-label`` and the ``alt`` of its static
SVG; the figures themselves are in the tables beside each chart.
"""

from __future__ import annotations

from typing import Any

from ...analyse import ChartRow, Dataset, hardware_name, listing, question_answers
from ..page.context import Context

MAX_NAMED = 6        # more series than this are counted, not named


def runner_names(ds: Dataset, rows: list[ChartRow]) -> dict[str, str]:
    """Each runner of ``rows`` as its machine ("2-core AMD EPYC (AVX2)"), with its label
    added where two runners would read the same."""
    ids = list(dict.fromkeys(str(r.get("runner")) for r in rows))
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
    parts = answers[0].one_line().split("; ")
    kept = parts[:1]
    for p in parts[1:]:
        if len("; ".join([*kept, p])) > MAX_FINDING:
            break
        kept.append(p)
    more = "; and more in the answers at the top of the page" if len(kept) < len(parts) else ""
    return f" Main finding: {'; '.join(kept)}{more}."


def _series(rows: list[ChartRow], field: str = "label", leave: str | None = None) -> str:
    names = [str(n) for n in dict.fromkeys(r.get(field) for r in rows) if n is not None and n != leave]
    return listing(names) if len(names) <= MAX_NAMED else f"{len(names)} ways"


def _shown_axes(spec: dict[str, Any]) -> tuple[str | None, str | None]:
    """The x axis's title and the parameter the panels are split by, as the spec draws them."""
    inner = spec.get("spec", spec)
    layers = inner.get("layer") or [inner]
    x = next((lay.get("encoding", {}).get("x", {}).get("title") for lay in layers
              if lay.get("encoding", {}).get("x", {}).get("title")), None)
    facet = (spec.get("facet") or {}).get("field")
    return x, (str(facet)[2:] if facet else None)


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


def settings_alt(ctx: Context, topic: str, x: str, baseline: str, rows: list[ChartRow]) -> str:
    """The text alternative of a settings chart ("Speedup of each threads setting over …")."""
    values = [str(v) for v in dict.fromkeys(r.get(f"l_{x}") for r in rows) if v is not None]
    return f"Speedup over {baseline} of {listing(values) or x}.{_finding(ctx, topic)}"
