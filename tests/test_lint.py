"""Lint and types of the store and analyse stages and of cases.py, run by the README's test
command (and so by .ci/run): ruff with its default rules and ``mypy --strict`` (settings in
pyproject.toml, versions pinned in its test extra). A finding fails the test with ruff's or mypy's own lines.

A tool missing from the venv fails the test (a skip would let CI pass unchecked):
``scripts/setup``, which the test command runs first, installs both."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["tfperf.store", "tfperf.analyse"]
MODULES = ["tfperf.cases"]
PATHS = [ROOT / "bench" / Path(*p.split(".")) for p in PACKAGES] + [ROOT / "bench" / "tfperf" / "cases.py"]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.fail(f"{tool} is not installed in {sys.prefix}: run scripts/setup (it installs the test extra)")
    return subprocess.run([sys.executable, "-m", tool, *args], check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_ruff_finds_nothing_in_store_analyse_and_cases() -> None:
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", *map(str, PATHS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing_in_store_analyse_and_cases(tmp_path: Path) -> None:
    args = [a for p in PACKAGES for a in ("-p", p)] + [a for m in MODULES for a in ("-m", m)]
    done = _run("mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path), *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
