"""Charts are checked against Vega-Lite's schema once per shape (render/page/builder.py
``finished``): the spec is the same as a validated one, a new shape is validated, and a chart
that differs only in the data's texts and numbers is not validated again. (Altair checks
each part as it is made, too: a bad scale type never gets as far as ``finished``.)"""

from __future__ import annotations

import importlib
from typing import Any

import altair as alt
import pytest

builder = importlib.import_module("tfperf.render.page.builder")


def _chart(title: str, mark: str = "line", scale: str = "linear") -> Any:
    chart = alt.Chart(alt.NamedData(name="rows"))
    chart = chart.mark_line() if mark == "line" else chart.mark_point()
    return chart.encode(x="speedup:Q", y=alt.Y("variant:N", scale=alt.Scale(type=scale))).properties(title=title)


@pytest.fixture()
def validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The titles of the charts that were validated, with a fresh memo of shapes."""
    monkeypatch.setattr(builder, "_VALIDATED", set())
    seen: list[str] = []
    original = alt.TopLevelMixin.to_dict

    def to_dict(self: Any, *args: Any, validate: bool = True, **kwargs: Any) -> Any:
        if validate:
            seen.append(str(self.title))
        return original(self, *args, validate=validate, **kwargs)
    monkeypatch.setattr(alt.TopLevelMixin, "to_dict", to_dict)
    return seen


def test_the_spec_is_the_validated_one_without_its_schema_url(validations: list[str]) -> None:
    spec = builder.finished(_chart("a"), None, None, {"orient": "bottom"})
    want = _chart("a").configure_view(stroke=None).configure_axis(labelFontSize=11, titleFontSize=12) \
        .configure_legend(orient="bottom").to_dict(validate=True)
    want.pop("$schema")
    assert spec == want


def test_a_shape_is_validated_once(validations: list[str]) -> None:
    builder.finished(_chart("The first chart"), None, None, {"orient": "bottom"})
    builder.finished(_chart("Same shape, another title"), None, None, {"orient": "bottom"})
    builder.finished(_chart("Another mark", mark="point"), None, None, {"orient": "bottom"})
    builder.finished(_chart("Another scale type", scale="log"), None, None, {"orient": "bottom"})
    assert validations == ["The first chart", "Another mark", "Another scale type"]

