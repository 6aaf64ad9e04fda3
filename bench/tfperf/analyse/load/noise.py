"""A runner's noise floor, from the A/A pairs stored with its results."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .records import Noise

# Used when a runner stored no A/A pair at all; said so wherever it is used.
ASSUMED_NOISE = 0.05


@dataclass(frozen=True)
class NoiseFloor:
    value: float
    basis: str          # how it was obtained, for the page


def noise_floor(records: Iterable[Noise], runner: str, settings_id: str, topic: str | None = None,
                interleave: str | None = None) -> NoiseFloor:
    """The noise floor of a comparison.

    Measured side by side (schema 2), it is the scenario's own: the A/A pair of the
    baseline measured twice in each round of the same interleave. Otherwise the max
    relative noise of the runner's A/A pairs, from the closest group that has any: the
    same topic and settings, the same topic, the same settings (any topic), the whole
    runner; else an assumed value. A pair measured for one topic says little about another
    topic's noise (its cases, models and processes differ), so ``topic`` comes first."""
    records = list(records)
    if interleave:
        own = [r for r in records if r.interleave == interleave]
        if own:
            return NoiseFloor(max(r.rel_noise for r in own),
                              f"this scenario's A/A pair: its baseline measured twice in each of {own[0].rounds} rounds")
    mine = [r for r in records if r.runner == runner and not r.interleave] or \
        [r for r in records if r.runner == runner]
    tiers = []
    if topic is not None:
        tiers += [([r for r in mine if r.topic == topic and r.settings_id == settings_id],
                   f"{topic} with settings {settings_id}"),
                  ([r for r in mine if r.topic == topic], f"{topic}, all its settings groups")]
    tiers += [([r for r in mine if r.settings_id == settings_id], f"settings {settings_id}, any topic"),
              (mine, "the whole runner")]
    for found, what in tiers:
        if found:
            return NoiseFloor(max(r.rel_noise for r in found), f"max of {len(found)} A/A pair(s): {what}")
    return NoiseFloor(ASSUMED_NOISE, f"assumed {ASSUMED_NOISE:.0%}: no A/A pair stored for this runner")
