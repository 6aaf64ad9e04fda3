"""The home page's line for a claim names each finding once, with the machines that give it,
and counts a finding several machines share over all their scenarios together (no
TensorFlow)."""

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


def _line(runners: list[RunnerAnswer]) -> str:
    claim = ClaimAnswer(topic="t", claim_id="c", claim_text="", candidate="A", baseline="B", scope="", expect=None,
                        runners=tuple(runners), verdict_text="")
    return QuestionAnswer(topic="t", id="q", ask="?", lead="Yes", leads=(), claims=(claim,), note=None).one_line()


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
