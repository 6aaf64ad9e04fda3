"""The drawings' cache (render/page/embed.py SvgCache): a drawing is in it whole or not at all.

Two site builds share one cache (the test suite's workers, a `mkdocs serve` beside a build),
and a disk can fill mid-write; a half-written drawing read back would be published.
"""

from __future__ import annotations

import errno
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tfperf.render.page.embed import SvgCache
from tfperf.store import files as store_files

SPEC = {"mark": "bar", "data": {"values": [{"a": 1}]}}


@pytest.fixture()
def drawings(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """A vl_convert that draws a spec as a short SVG and records each spec it drew."""
    drawn: list[dict[str, Any]] = []

    def vegalite_to_svg(spec: dict[str, Any], vl_version: str) -> str:
        drawn.append(spec)
        return f"<svg><!-- {spec['mark']} {vl_version} --></svg>"

    monkeypatch.setitem(sys.modules, "vl_convert", types.SimpleNamespace(vegalite_to_svg=vegalite_to_svg))
    return drawn


def test_a_drawing_is_kept_and_read_back_by_the_next_build(tmp_path: Path, drawings: list[dict[str, Any]]) -> None:
    """
    Scenario: two builds draw the same chart with one cache folder.
    Happens: the first draws it and keeps it; the second reads it and draws nothing; no
    temporary file is left beside it.
    """
    first = SvgCache(tmp_path / "cache")
    name = first.svg_name(SPEC)
    second = SvgCache(tmp_path / "cache")
    assert second.svg_name(SPEC) == name and second.produced[name] == first.produced[name]
    assert len(drawings) == 1
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [name]


def test_a_cache_that_cannot_be_written_keeps_nothing_and_the_build_goes_on(
        tmp_path: Path, drawings: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """
    Scenario: the disk is full when the drawing is put in the cache (the rename fails).
    Happens: the build still gets its drawing; the cache holds neither the drawing nor a
    temporary, so the next build draws it again instead of reading half of it.
    """
    def full(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store_files.os, "replace", full)
    cache = SvgCache(tmp_path / "cache")
    name = cache.svg_name(SPEC)
    assert cache.produced[name].startswith("<svg>")
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_cache_folder_that_is_a_file_costs_only_the_drawing(tmp_path: Path, drawings: list[dict[str, Any]]) -> None:
    """
    Scenario: TFPERF_CACHE names a file, not a folder.
    Happens: the chart is drawn, the build goes on, and the file is left as it was.
    """
    (tmp_path / "cache").write_text("not a folder", encoding="utf-8")
    cache = SvgCache(tmp_path / "cache")
    name = cache.svg_name(SPEC)
    assert cache.produced[name].startswith("<svg>") and len(drawings) == 1
    assert (tmp_path / "cache").read_text(encoding="utf-8") == "not a folder"
