"""Fixtures of the run tests that measure with tests/fake_worker.py."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture()
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake workers' log: one line per sample block ("pid settings task start end"),
    with its .warm and .prepare companions; blocks last 2 ms."""
    path = tmp_path / "blocks.log"
    monkeypatch.setenv("FAKE_WORKER_LOG", str(path))
    monkeypatch.setenv("FAKE_WORKER_DELAY_S", "0.002")
    return path
