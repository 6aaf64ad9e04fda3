"""A runner's noise floor, from the A/A pairs stored with its results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .records import Noise

# Used when a runner stored no A/A pair at all; said so wherever it is used.
ASSUMED_NOISE = 0.05


@dataclass(frozen=True)
class NoiseFloor:
    value: float
    basis: str          # how it was obtained, for the page


def noise_floor(records: Iterable[Noise], runner: str, settings_id: str) -> NoiseFloor:
    """The max relative noise of the runner's A/A pairs for these settings, else of all its
    pairs, else an assumed value."""
    mine = [r for r in records if r.runner == runner]
    same = [r.rel_noise for r in mine if r.settings_id == settings_id]
    if same:
        return NoiseFloor(max(same), f"max of {len(same)} A/A pair(s) with settings {settings_id}")
    if mine:
        return NoiseFloor(max(r.rel_noise for r in mine), f"max of the runner's {len(mine)} A/A pair(s)")
    return NoiseFloor(ASSUMED_NOISE, f"assumed {ASSUMED_NOISE:.0%}: no A/A pair stored for this runner")
