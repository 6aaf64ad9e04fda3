"""Lint and types of the whole package (bench/tfperf: every stage, the CLI and the shared
modules), run by the README's test command (and so by .ci/run): ruff with its default rules
(on tests/, scripts/ and snippets/ too) and ``mypy --strict`` (settings in pyproject.toml, versions pinned in its test extra). A
finding fails the test with ruff's or mypy's own lines.

A tool missing from the venv fails the test (a skip would let CI pass unchecked):
``scripts/setup``, which the test command runs first, installs both."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bench" / "tfperf"


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.fail(f"{tool} is not installed in {sys.prefix}: run scripts/setup (it installs the test extra)")
    return subprocess.run([sys.executable, "-m", tool, *args], check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_ruff_finds_nothing_in_the_package_tests_scripts_and_snippets() -> None:
    """The package, the tests, the scripts and the snippets (the topic snippets without the
    rules whose fixes would change a stored result's key: pyproject.toml says why)."""
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", str(PACKAGE), str(ROOT / "tests"),
                str(ROOT / "scripts"), str(ROOT / "snippets"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing_in_the_package() -> None:
    """Without a cache: one run checks everything anyway, and writing the cache cost ~8 s of 47."""
    done = _run("mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", os.devnull, "-p", "tfperf")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
