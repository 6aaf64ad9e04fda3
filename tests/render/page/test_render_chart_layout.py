"""Charts that fit any screen: panels in numeric order on one shared y scale that
wrap (tfperf.js lays them out one per row on a phone), 1-2-5 ticks on a log axis with 1× and
10× among them, a colour-blind-safe palette, display names in the legend and tooltips, at
most eight series a panel, and no trend chart where
no case has two versions. Synthetic rows, no TensorFlow."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tfperf.analyse.records import ChartRow, RowCase, SettingsRow
from tfperf.render.page.builder import MAX_SERIES, PALETTE, ChartError, log_ticks
from tfperf.render.page.settings_chart import settings_chart_spec
from tfperf.render.page.topic_chart import chart_spec, has_trend


def _rows(batches: list[int], labels: dict[str, str] | None = None) -> list[ChartRow]:
    labels = labels or {"a": "model(x)", "b": "model.predict(x)"}
    out = []
    for model in ("tiny", "large"):
        for batch in batches:
            for i, (variant, label) in enumerate(labels.items()):
                t = 1e-4 * batch * (10 if model == "large" else 1) * (1 + 40 * i)
                case = RowCase(params={"batch": batch, "model": model},
                               param_words={"batch": f"batch {batch}", "model": f"{model} model"},
                               settings={"keras": "3"}, setting_words={"keras": "Keras 3"},
                               variant=variant, label=label)
                out.append(ChartRow(runner="r", profile="full", version="TF 2.21 / Keras 3", tensorflow="2.21.0",
                                    keras="3.13.0", newest=True, case=case, median=t, ci_low=t * 0.98,
                                    ci_high=t * 1.02, n=30, first_call=t * 5, speedup=1 + 40 * i,
                                    speedup_low=0.9 + 40 * i, speedup_high=1.1 + 40 * i, correct=True, stale=False,
                                    status="ok", commit="c", date="2026-11-23", source="r/full.json"))
    return out


def test_facets_in_numeric_order_wrap_and_share_one_y_scale() -> None:
    rows = _rows([1, 32, 1024, 64])
    # the YAML's order lists 64 last (a later profile added it): panels still go 1, 32, 64, 1024
    spec = chart_spec(rows, "speedup", x="model", facet="batch", order={"batch": [1, 32, 1024, 64]})
    # panels are named in reader words ("batch 64"), in numeric order
    assert spec["facet"] == {**spec["facet"], "field": "v_batch", "sort": ["batch 1", "batch 32", "batch 64", "batch 1024"]}
    assert spec["columns"] == 3 and spec["resolve"]["scale"]["y"] == "shared"
    assert spec["facet"]["header"]["title"] is None and "title" not in spec   # no lone "batch" title
    # a numeric x axis is ascending too
    spec = chart_spec(rows, "latency", x="batch", facet="model", order={"batch": [1, 32, 1024, 64]})
    layer = spec["spec"]["layer"][1]["encoding"]["x"]
    assert layer["axis"]["values"] == [1, 32, 64, 1024]


def test_log_axis_has_1_2_5_ticks_including_1x_and_10x() -> None:
    assert log_ticks(0.9, 41.1) == [0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
    spec = chart_spec(_rows([1, 32]), "speedup", x="batch", facet="model")
    y = spec["spec"]["layer"][1]["encoding"]["y"]
    assert y["scale"]["type"] == "log" and {1.0, 10.0} <= set(y["axis"]["values"])
    assert "×" in y["axis"]["labelExpr"]


def test_linear_time_axis_starts_at_zero() -> None:
    rows = [replace(r, median=0.054 + 0.001 * int(r.case.params["batch"]) / 32, ci_low=None, ci_high=None)
            for r in _rows([1, 32])]
    y = chart_spec(rows, "latency", x="batch", facet="model")["spec"]["layer"][1]["encoding"]["y"]
    assert y["scale"].get("type") != "log" and y["scale"]["zero"] is True


def test_colour_blind_safe_palette_and_display_names_in_the_legend() -> None:
    spec = chart_spec(_rows([1, 32]), "latency", x="batch", facet="model")
    color = spec["spec"]["layer"][1]["encoding"]["color"]
    assert color["field"] == "label" and color["scale"]["range"] == PALETTE[:2]
    assert color["scale"]["domain"] == ["model(x)", "model.predict(x)"]
    tooltip = {t["field"]: t.get("title") for t in spec["spec"]["layer"][1]["encoding"]["tooltip"]}
    assert {"label", "runner_txt", "v_batch", "v_model", "l_keras"} <= set(tooltip)      # reader words
    assert not {"variant", "runner", "p_batch", "s_keras"} & set(tooltip)               # ids only filter
    runner = next(p for p in spec["params"] if p["name"] == "runner")
    assert runner["bind"]["options"] == ["r"] and runner["bind"]["labels"] == ["r"]


def test_more_variants_than_a_panel_holds_need_groups() -> None:
    many = {f"v{i}": f"way {i}" for i in range(10)}
    with pytest.raises(ChartError, match="at most 8"):
        chart_spec(_rows([1], many), "latency", x="batch", facet="model")
    groups = {"first": [f"v{i}" for i in range(1, 5)], "second": [f"v{i}" for i in range(5, 10)]}
    spec = chart_spec(_rows([1], many), "latency", x="batch", facet="model", groups=groups, default="v0")
    group = next(p for p in spec["params"] if p["name"] == "group")
    assert group["bind"]["options"] == ["first", "second"] and group["value"] == "first"
    rows = spec["datasets"]["rows"]
    for name, members in groups.items():
        shown = {r["variant"] for r in rows if r["group"] == name}
        assert shown == {"v0", *members} and len(shown) <= MAX_SERIES     # the default in every group
    color = spec["spec"]["layer"][1]["encoding"]["color"]
    assert color["sort"][0] == "way 0" and "domain" not in color["scale"]    # the group's colours, default first


def test_trend_only_where_a_case_has_two_versions() -> None:
    rows = _rows([1])
    assert not has_trend(rows)
    # Keras 2 and Keras 3 are two versions but each case has one: still no trend
    k2 = [replace(r, version="TF 2.21 / Keras 2", case=replace(r.case, settings={"keras": "2"})) for r in rows]
    assert not has_trend(rows + k2)
    older = [replace(r, version="TF 2.20 / Keras 3", newest=False) for r in rows]
    assert has_trend(rows + older)


def test_settings_chart_panels_in_numeric_order_on_one_scale() -> None:
    rows = []
    for batch in (1, 1024, 64):
        for threads in ("1", "2", "default"):
            case = RowCase(params={"batch": batch, "model": "mlp"}, param_words={"batch": f"batch {batch}", "model": "MLP"},
                           settings={"threads": threads, "onednn": "1"}, setting_words={}, variant="v", label="v")
            rows.append(SettingsRow(runner="r", version="TF 2.21", case=case, median=1e-3, ci_low=None, ci_high=None,
                                    n=30, speedup=1.5, speedup_low=1.4, speedup_high=1.6, finding="faster",
                                    noise=None, status="ok", commit="c", date="d"))
    spec = settings_chart_spec(rows, x="threads", facet="model", row="batch",
                               param_order={"batch": [1, 1024, 64]})
    # one facet of wrapped panels, rows outer, in numeric order, as many columns as models
    assert spec["facet"]["sort"] == ["batch 1, MLP", "batch 64, MLP", "batch 1024, MLP"]   # in reader words
    assert spec["columns"] == 1 and spec["resolve"]["scale"]["y"] == "shared"
    assert spec["spec"]["layer"][0]["encoding"]["color"]["scale"]["range"] == PALETTE
