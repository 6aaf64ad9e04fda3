"""A one-claim answer on many machines: where a runner's finding depends on the case, it lists
the cases up to five machines; from six on it counts those no shared setting names, so the
answer still fits a phone's first screen (no TensorFlow)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from tfperf.analyse import Finding
from tfperf.render.blocks.answers_block import COUNT_FROM, leading

DEPENDS = NS(finding=Finding.DEPENDS,
             sides="faster for MLP (1.13×–1.21×); slower for EfficientNetV2B0, batch 1 (0.397×) and 2 more; unclear in 2",
             counted="faster for MLP (1.13×–1.21×); slower in 5; unclear in 2")
SLOWER = NS(finding=Finding.SLOWER, sides="", counted="", brief="slower in 9 of 10 (0.201×–0.886×); faster in 1")


def test_up_to_five_machines_a_runner_that_depends_names_the_cases() -> None:
    assert leading(DEPENDS, COUNT_FROM - 1) == f"depends on the case: {DEPENDS.sides}"


def test_from_six_machines_it_counts_them() -> None:
    assert leading(DEPENDS, COUNT_FROM) == "depends on the case: faster for MLP (1.13×–1.21×); slower in 5; unclear in 2"
    assert "EfficientNetV2B0" not in leading(DEPENDS, COUNT_FROM)


def test_a_clear_finding_reads_the_same_however_many_machines() -> None:
    assert leading(SLOWER, 2) == leading(SLOWER, COUNT_FROM) == "slower in 9 of 10 (0.201×–0.886×)"
