"""How the pages write numbers (bench/tfperf/render/page/html.py): percentages as
percentages, times in a unit that keeps them at 1 or more, and a cost whose 95% CI reaches
below 0 as "≈ 0 (within noise)" with its interval kept in the detail."""

from __future__ import annotations

import math

import pytest

from tfperf.render.page.html import BELOW_ZERO, MINUS, WITHIN_NOISE, cost, cost_text, count, percent, seconds


@pytest.mark.parametrize(("x", "text"), [
    (0.995, "100%"), (0.994, "99%"), (1.9, "190%"), (10.0, "1000%"), (0.12, "12%"), (0.0996, "10%"),
    (0.067, "6.7%"), (0.004, "0.4%"), (0.0015, "0.15%"), (0.0, "0%"), (1e-7, "<0.01%"), (-0.05, MINUS + "5%"),
    (None, "–"), (math.nan, "–"),
])
def test_a_share_is_a_percentage_never_a_power_of_ten(x: float | None, text: str) -> None:
    assert percent(x) == text


def test_no_percentage_is_written_in_powers_of_ten() -> None:
    for e in range(-6, 4):
        for m in (1, 1.5, 2.25, 9.99):
            assert "e" not in percent(m * 10.0 ** e), m * 10.0 ** e


@pytest.mark.parametrize(("x", "text"), [
    (0.000999999, "1 ms"), (0.0009994, "999 µs"), (0.05, "50 ms"), (1.32e-3, "1.32 ms"), (2.5e-7, "250 ns"),
    (12.0, "12 s"), (-528e-6, MINUS + "528 µs"), (-1.92e-3, MINUS + "1.92 ms"), (None, "–"),
])
def test_seconds(x: float | None, text: str) -> None:
    assert seconds(x) == text


def test_a_cost_clear_of_zero_shows_its_figure_and_interval() -> None:
    shown = cost(1.32e-3, 967e-6, 1.57e-3)
    assert (shown.text, shown.detail) == ("1.32 ms", "95% CI 967 µs to 1.57 ms")


def test_a_cost_whose_interval_reaches_below_zero_is_about_zero() -> None:
    shown = cost(1.36e-3, -528e-6, 5.9e-3)
    assert shown.text == WITHIN_NOISE == "≈ 0 (within noise)"
    assert shown.detail == f"estimate 1.36 ms, 95% CI {MINUS}528 µs to 5.9 ms"
    assert cost(-679e-6, -1.83e-3, 1.28e-3).text == WITHIN_NOISE          # a negative estimate, too
    assert cost(0.2e-3, 0.0, 0.4e-3).text == WITHIN_NOISE                 # a CI that touches 0
    assert cost_text(1.36e-3, -528e-6, 5.9e-3) == WITHIN_NOISE


def test_a_cost_below_zero_beyond_its_interval_says_the_fit_is_off() -> None:
    """"-1.92 ms (95% CI -2.85 ms – -672 µs)" as a fixed cost: no call costs less than
    nothing, and the noise does not explain it either."""
    shown = cost(-1.92e-3, -2.85e-3, -672e-6)
    assert shown.text == BELOW_ZERO and "-" not in str(shown)
    assert shown.detail == f"estimate {MINUS}1.92 ms, 95% CI {MINUS}2.85 ms to {MINUS}672 µs"


def test_counts() -> None:
    assert [count(x) for x in (math.inf, 0.096, 2.0, 36.4)] == ["∞", "0.096", "2", "36"]
