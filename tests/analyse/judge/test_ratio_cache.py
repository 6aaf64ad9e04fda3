"""The ratio cache on disk serves an interval only for the statistics that computed it:
its key holds the confidence level, the bootstrap count and the seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfperf import stats
from tfperf.analyse.judge.scenarios import RatioCache

BASE = [1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98]
CAND = [0.5, 0.55, 0.45, 0.52, 0.48, 0.51, 0.49]


def _cached(path: Path) -> RatioCache:
    cache = RatioCache(path)
    cache.ratio(BASE, CAND)
    cache.save()
    return RatioCache(path)


@pytest.mark.parametrize(("name", "value"), [("N_BOOT", 500), ("BOOT_SEED", 1), ("CONFIDENCE", 0.9)])
def test_new_statistics_never_get_an_old_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  name: str, value: float) -> None:
    path = tmp_path / "ratios.json"
    again = _cached(path)
    again.ratio(BASE, CAND)
    assert not again._dirty, "the same statistics: served from the file"
    monkeypatch.setattr(stats, name, value)
    changed = RatioCache(path)
    changed.ratio(BASE, CAND)
    assert changed._dirty, f"{name} changed: computed again"


def test_the_defaults_of_ratio_ci_are_the_keyed_ones() -> None:
    import inspect

    params = inspect.signature(stats.ratio_ci).parameters
    assert params["n_boot"].default == stats.N_BOOT and params["seed"].default == stats.BOOT_SEED


def test_a_memo_that_cannot_be_written_costs_only_the_intervals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk is full when the memo is saved (the rename fails): the build goes on, the
    old memo is left whole and no temporary file beside it, so the next build computes
    the new intervals again instead of reading half a file."""
    import errno
    import os

    from tfperf.store import files as store_files

    path = tmp_path / "ratios.json"
    _cached(path)
    before = path.read_bytes()
    cache = RatioCache(path)
    cache.ratio(CAND, BASE)

    def full(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store_files.os, "replace", full)
    cache.save()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ratios.json"]
