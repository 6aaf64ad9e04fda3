"""Claims and questions answered in words (analyse/views/answers.py, ``tfperf answers``), on the
frozen analysis fixture: runner A measures "fast" at twice the default's speed, runner B
level with it. No TensorFlow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfperf.analyse import analyse, claim_answer, question_answers
from tfperf.analyse.judge.effects import Finding, Verdict
from tfperf.cli import main

FIX = Path(__file__).parents[1] / "fixtures" / "site" / "analysis"


@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return analyse(FIX / "data" / "results", FIX / "snippets")


def test_a_claim_is_answered_per_runner_with_its_figures_and_hardware(ds) -> None:  # type: ignore[no-untyped-def]
    a = claim_answer(ds, "fixture_topic", "fast_beats_default")
    assert a is not None and a.candidate == "the fast way" and a.baseline == "the default"
    by = {r.runner: r for r in a.runners}
    fast = by["fixture-a"]
    assert fast.finding is Finding.FASTER and fast.verdict is Verdict.HOLDS
    assert fast.text == "faster in both scenarios (2×)"
    assert a.sentence(fast) == "the fast way is faster than the default in both scenarios (2×)"
    assert fast.hardware.startswith("2-core ")
    assert by["fixture-b"].finding is not Finding.FASTER                 # 1% faster is no finding
    assert a.verdict_text.endswith("of 2 runners")
    assert a.disagreement is not None and a.disagreement.startswith("The machines disagree: faster on the")


def test_a_claim_the_data_contradicts_does_not_hold(ds) -> None:  # type: ignore[no-untyped-def]
    a = claim_answer(ds, "fixture_topic", "default_beats_fast")
    assert a is not None
    r = next(r for r in a.runners if r.runner == "fixture-a")
    assert r.finding is Finding.SLOWER and r.verdict is Verdict.DOES_NOT_HOLD
    assert a.sentence(r).startswith("the default is slower than the fast way in both scenarios")


def test_questions_lead_with_yes_or_no_per_runner_and_answer_every_claim(ds) -> None:  # type: ignore[no-untyped-def]
    qs = {q.id: q for q in question_answers(ds, "fixture_topic")}
    fast = qs["fast"]
    assert {w for _, w in fast.leads} <= {"Yes", "No", "Unclear"} and "Yes" in {w for _, w in fast.leads}
    which = qs["which"]
    assert which.lead == "" and len(which.claims) == 2                   # no yes/no: the claims answer it
    assert all(hw for hw, _ in which.lines())


def test_the_answers_command_prints_every_question(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["answers", "--data", str(FIX / "data"), "--snippets", str(FIX / "snippets")]) == 0
    out = capsys.readouterr().out
    assert "Q: Is the fast way faster than the default?" in out
    assert "the fast way is faster than the default in both scenarios (2×)" in out
    assert out.startswith("How to read the findings: Faster or slower:")


@pytest.mark.parametrize("inference, training, lead", [
    (Finding.SLOWER, Finding.FASTER, "It depends on the case"),   # "No" would hide the faster step
    (Finding.SLOWER, Finding.UNCLEAR, "No"),
    (Finding.FASTER, Finding.SLOWER, "Yes"),                      # the leading claim says yes
    (Finding.SLOWER, Finding.SLOWER, "No"),
])
def test_a_no_is_not_the_lead_where_another_claim_of_the_question_says_yes(
        inference: Finding, training: Finding, lead: str) -> None:
    from types import SimpleNamespace

    from tfperf.analyse.views.answers import _runner_lead

    def claim(finding: Finding) -> SimpleNamespace:
        return SimpleNamespace(runners=[SimpleNamespace(runner="zen4", finding=finding),
                                        SimpleNamespace(runner="other", finding=Finding.SLOWER)])

    claims = [claim(inference), claim(training)]
    assert _runner_lead(claims, "zen4", Finding.FASTER) == lead      # type: ignore[arg-type]
    assert _runner_lead(claims, "other", Finding.FASTER) == "No"      # type: ignore[arg-type]


def test_machines_that_give_one_answer_are_named_together() -> None:
    from tfperf.analyse.views.answers import QuestionAnswer

    def qa(*leads: tuple[str, str]) -> QuestionAnswer:
        words = {w for _, w in leads}
        lead = words.pop() if len(words) == 1 else "It depends on the machine"
        return QuestionAnswer("t", "q", "Does it?", lead, tuple(leads), (), None)

    assert qa(("EPYC (AVX2)", "It depends on the case"), ("EPYC Zen 4 (AVX-512)", "It depends on the case"),
              ("Xeon (AMX)", "No")).lead_text() == \
        "On the EPYC (AVX2) and EPYC Zen 4 (AVX-512): it depends on the case. On the Xeon (AMX): no."
    assert qa(("A", "Unclear"), ("B", "Yes"), ("C", "Yes"), ("D", "Yes")).lead_text() == \
        "On the A: unclear. On the B, C and D: yes."
    assert qa(("A", "Yes"), ("B", "No")).lead_text() == "On the A: yes. On the B: no."
    assert qa(("A", "Yes"), ("B", "Yes")).lead_text() == "Yes on both machines measured."
