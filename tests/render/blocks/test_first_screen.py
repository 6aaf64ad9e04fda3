"""An answer's form is chosen by its length on a phone, not by the number of machines: the
most detailed form whose section fits the first screen, the most compact where none does;
a one-claim answer's case lists are named, or counted in the compact form (no TensorFlow)."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from tfperf.analyse import Finding
from tfperf.render.blocks.answers_block import leading
from tfperf.render.blocks.first_screen import (
    GLANCE_CHARS,
    GLANCE_LINES,
    LIST_CHARS,
    LIST_LINE_PX,
    first_fitting,
    longest_line,
    phone_lines,
    phone_px,
)
from tfperf.render.page.html import Markup

DEPENDS = NS(finding=Finding.DEPENDS,
             sides="faster for MLP (1.13×–1.21×); slower for EfficientNetV2B0, batch 1 (0.397×) and 2 more; unclear in 2",
             counted="faster for MLP (1.13×–1.21×); slower in 5; unclear in 2")
SLOWER = NS(finding=Finding.SLOWER, sides="", counted="", brief="slower in 9 of 10 (0.201×–0.886×); faster in 1")


def test_a_runner_that_depends_names_the_cases_and_the_compact_form_counts_them() -> None:
    assert leading(DEPENDS) == f"depends on the case: {DEPENDS.sides}"
    assert leading(DEPENDS, counted=True) == "depends on the case: faster for MLP (1.13×–1.21×); slower in 5; unclear in 2"
    assert "EfficientNetV2B0" not in leading(DEPENDS, counted=True)


def test_a_clear_finding_reads_the_same_in_every_form() -> None:
    assert leading(SLOWER) == leading(SLOWER, counted=True) == "slower in 9 of 10 (0.201×–0.886×)"


def _items(*texts: str) -> Markup:
    return Markup("<ul>" + "".join(f"<li>{t}</li>" for t in texts) + "</ul>")


def test_a_line_is_counted_by_its_text_not_its_markup_or_tooltips() -> None:
    short = _items("x" * LIST_CHARS)
    marked = _items(f'<span class="tfperf-stated" title="{"a very long tooltip " * 20}">{"x" * (LIST_CHARS - 6)}</span>'
                    "&amp;&lt;&gt;")
    assert phone_px(short) == phone_px(marked)
    assert phone_px(_items("x" * (LIST_CHARS + 1))) == pytest.approx(phone_px(short) + LIST_LINE_PX)
    assert phone_px(_items("a", "b")) == pytest.approx(phone_px(_items("a")) + LIST_LINE_PX)


def test_the_most_detailed_form_that_fits_is_chosen() -> None:
    forms = [lambda: _items(*["x" * 100] * 5), lambda: _items(*["x" * 40] * 5), lambda: _items("x")]
    budget = phone_px(_items(*["x" * 40] * 5))
    assert first_fitting(forms, budget=budget)[0] == 1
    assert first_fitting(forms, budget=10_000)[0] == 0
    # none fits: the most compact there is
    assert first_fitting(forms, budget=1) == (2, _items("x"))
    # the question above the answer takes its share of the screen
    assert first_fitting(forms, Markup(f'<p class="tfperf-q">{"y" * 400}</p>'), budget=budget)[0] == 2


def test_an_answer_without_forms_is_a_mistake_said_as_such() -> None:
    with pytest.raises(ValueError, match="at least one form"):
        first_fitting([])


def test_a_form_with_a_line_longer_than_a_glance_is_passed_over() -> None:
    """Six machines' counts on one claim's line fit the screen but make a paragraph of it:
    the next form says it shorter."""
    paragraph = lambda: _items("x" * (GLANCE_CHARS + 1), "y")
    glance = lambda: _items("x" * GLANCE_CHARS, "y")
    assert longest_line(paragraph()) == GLANCE_CHARS + 1
    assert first_fitting([paragraph, glance], budget=10_000) == (1, glance())
    assert first_fitting([glance, paragraph], budget=10_000)[0] == 0


def test_an_answer_longer_than_a_glance_in_all_is_said_shorter() -> None:
    """Six machines each given the claim's whole sentence: every line is short enough, the
    screen holds them, but the list is more than a reader takes in at a glance."""
    sentences = lambda: _items(*["x" * 3 * LIST_CHARS] * 6)
    findings = lambda: _items(*["x" * LIST_CHARS] * 6)
    assert phone_lines(sentences()) == 18 > GLANCE_LINES >= phone_lines(findings()) == 6
    assert first_fitting([sentences, findings], budget=10_000)[0] == 1
