"""The home page's line for a claim whose machines differ names each finding once, with the
machines that give it (no TensorFlow)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from tfperf.analyse import Finding
from tfperf.analyse.views.answers import _briefly


def test_a_finding_shared_by_several_machines_is_said_once() -> None:
    runners = [NS(finding=Finding.UNCLEAR, short="EPYC (AVX2)"), NS(finding=Finding.SAME, short="EPYC Zen 4"),
               NS(finding=Finding.SAME, short="EPYC Zen 5"), NS(finding=Finding.SAME, short="Xeon (AMX)")]
    assert _briefly(NS(runners=runners)) == ("unclear on the EPYC (AVX2), "
                                             "the same on the EPYC Zen 4, EPYC Zen 5 and Xeon (AMX)")
