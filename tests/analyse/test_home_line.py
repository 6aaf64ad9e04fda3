"""The home page's line for a question: each machine's finding where that is short enough to
take in at a glance; otherwise each finding once, with the machines that give it, a finding
several machines share counted over all their scenarios together, and, for several claims,
how many machines give each finding. The form follows the line's length, not the number of
machines (no TensorFlow)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from tfperf.analyse import Finding
from tfperf.analyse.judge.effects import Point, summarise, summary_rest
from tfperf.analyse.views.answers import ClaimAnswer, QuestionAnswer, RunnerAnswer, _briefly


def test_a_finding_shared_by_several_machines_is_said_once() -> None:
    runners = [NS(finding=Finding.UNCLEAR, short="EPYC (AVX2)"), NS(finding=Finding.SAME, short="EPYC Zen 4"),
               NS(finding=Finding.SAME, short="EPYC Zen 5"), NS(finding=Finding.SAME, short="Xeon (AMX)")]
    assert _briefly(NS(runners=runners)) == ("unclear on the EPYC (AVX2), "
                                             "the same on the EPYC Zen 4, EPYC Zen 5 and Xeon (AMX)")


def _runner(short: str, findings: list[tuple[Finding, float]]) -> RunnerAnswer:
    points = tuple(Point(f, x, x, x, {"model": "mlp" if f == Finding.FASTER else "convnet"}, short)
                   for f, x in findings)
    s = summarise(points)
    return RunnerAnswer(runner=short, hardware=short, short=short, releases="2.21", summary=s,
                        text=str(s.finding), rest=summary_rest(s), brief="", verdict=None)


def _claim(runners: list[RunnerAnswer], candidate: str = "A", scope: str = "") -> ClaimAnswer:
    return ClaimAnswer(topic="t", claim_id=candidate + scope, claim_text="", candidate=candidate, baseline="B",
                       scope=scope, expect=None, runners=tuple(runners), verdict_text="")


def _qa(*claims: ClaimAnswer) -> QuestionAnswer:
    return QuestionAnswer(topic="t", id="q", ask="?", lead="Yes", leads=(), claims=claims, note=None)


def _line(runners: list[RunnerAnswer]) -> str:
    """The line in its most compact form."""
    return _qa(_claim(runners)).one_line(within=0)


def test_a_finding_five_machines_share_is_counted_over_all_of_them_once() -> None:
    every = [(Finding.FASTER, 2.0)] * 10
    most = [(Finding.FASTER, 3.0)] * 8 + [(Finding.UNCLEAR, 1.01)] * 2
    runners = [_runner("M1", every), _runner("M2", most), _runner("M3", every), _runner("M4", most),
               _runner("M5", every)]
    assert _line(runners) == "A is faster than B: in 46 of 50 scenarios on the 5 machines (2×–3×); unclear in 4"
    assert _line(runners[:1] * 3) == "A is faster than B: in all 30 scenarios on the 3 machines (2×)"


def test_machines_that_differ_are_named_once_per_finding_with_their_counts_together() -> None:
    slower = [(Finding.SLOWER, 0.5)] * 9 + [(Finding.UNCLEAR, 1.0)]
    split = [(Finding.FASTER, 1.3)] * 4 + [(Finding.SLOWER, 0.4)] * 6
    runners = [_runner("EPYC", split), _runner("Zen 4", split), _runner("Xeon", slower),
               _runner("Xeon 2", slower), _runner("Zen 5", [(Finding.UNCLEAR, 1.0)] * 10)]
    assert _line(runners) == ("A against B: on the EPYC and Zen 4, depends on the case: faster for mlp (1.3×); "
                              "on the Xeon and Xeon 2, slower in 18 of 20 scenarios (0.5×); "
                              "on the Zen 5, unclear in all 10 scenarios (1×)")


def test_each_machine_keeps_its_own_figures_where_that_line_is_short_enough() -> None:
    every = [(Finding.FASTER, 2.0)] * 10
    most = [(Finding.FASTER, 3.0)] * 8 + [(Finding.UNCLEAR, 1.01)] * 2
    qa = _qa(_claim([_runner("Xeon", every), _runner("EPYC", most)]))
    each, pooled = qa.one_lines()
    assert each == ("A is faster than B: in all 10 scenarios (2×) on the Xeon; "
                    "in 8 of 10 scenarios (3×) on the EPYC")
    assert pooled == "A is faster than B: in 18 of 20 scenarios on the 2 machines (2×–3×); unclear in 2"
    assert qa.one_line() == qa.one_line(within=len(each)) == each
    assert qa.one_line(within=len(each) - 1) == pooled
    # One machine has one form.
    assert _qa(_claim([_runner("Xeon", every)])).one_lines() == ["A is faster than B: in all 10 scenarios (2×) on the Xeon"]


def test_several_claims_count_the_machines_of_each_finding_where_naming_them_is_too_long() -> None:
    faster, slower = [(Finding.FASTER, 2.0)] * 4, [(Finding.SLOWER, 0.5)] * 4
    agree = _claim([_runner(m, faster) for m in ("Xeon", "EPYC", "Zen 4")], "A", "at batch 1")
    differ = _claim([_runner("Xeon", slower), _runner("EPYC", faster), _runner("Zen 4", faster)], "C")
    qa = _qa(agree, differ)
    named, counted = qa.one_lines()
    assert named == ("Against B: A at batch 1: faster (2×); "
                     "C: slower on the Xeon, faster on the EPYC and Zen 4")
    assert counted == "Against B: A at batch 1: faster (2×); C: faster on 2 of 3 machines, slower on 1"
    assert qa.one_line(within=len(named)) == named
    assert qa.one_line(within=len(counted)) == counted
    # Where every claim's machines agree, the two forms are one.
    assert _qa(agree, _claim([_runner("Xeon", slower)], "C")).one_lines() == [
        "Against B: A at batch 1: faster (2×); C: slower (0.5×)"]
