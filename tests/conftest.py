"""Fixtures shared by several test files."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture()
def fake_venv(tmp_path: Path) -> Path:
    """A venv whose python only appends its arguments to tfperf.log beside it: what the CI
    scripts (bench.sh, compare-pr.sh) would run, without measuring."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text(f'#!/bin/sh\nshift 2\necho "$@" >> "{tmp_path}/tfperf.log"\n', encoding="utf-8")
    py.chmod(0o755)
    return venv
