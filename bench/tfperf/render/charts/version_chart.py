"""The chart under a claim's strip of findings: the candidate's speedup per TensorFlow
release with its 95% CI, one colour per scenario, the 1× line dashed, on the skeleton of
:mod:`.builder`.

It draws the rows :func:`tfperf.analyse.judge.version_verdicts.speedup_rows` computed; every
release measured has its place on the x axis, also where the claim has no point (not
available, not measured), so a gap reads as a gap. The same conventions as the other
charts (:mod:`tfperf.render.charts.builder`): Okabe-Ito colours, a log axis with 1-2-5 ticks when
the speedups span more than a decade, the legend below, a width docs/assets/tfperf.js
narrows to a phone's column.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from ...analyse import Finding, SpeedupRow
from ..page.html import times
from .builder import (
    PALETTE,
    Encodings,
    ci_rules,
    finished,
    log_axis,
    one_times_rule,
    points,
    speedup_axis,
    with_rows,
    wrap_title,
)

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
