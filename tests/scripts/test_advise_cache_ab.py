"""scripts/advise_cache_ab.py: the table and its one-line conclusion from the rounds' block
medians (no TensorFlow), and one tiny real run of the whole script."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "advise_cache_ab.py"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("advise_cache_ab", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rounds(one: float, alive: float, cycled: float, n: int = 12) -> dict[str, list[float]]:
    wobble = [1 + 0.004 * ((i * 7) % 5 - 2) for i in range(n)]     # the same drift hits a round's three blocks
    return {"one": [one * w for w in wobble], "alive": [alive * w for w in wobble],
            "cycled": [cycled * w for w in wobble]}


def test_copies_alive_that_slow_the_call_say_yes() -> None:
    text, conclusion = script().table(rounds(1.0e-3, 1.3e-3, 2.6e-3))
    assert conclusion == ("the back-to-back tf.function time rises with copies alive: yes; calls cycling over "
                          "six copies are slower")
    assert "alive" in text and "1.300 (1.300-1.300)" in text and "slower than one" in text


def test_copies_alive_that_change_nothing_say_no() -> None:
    text, conclusion = script().table(rounds(1.0e-3, 1.0e-3, 1.0e-3))
    assert conclusion.endswith("copies alive: no; calls cycling over six copies are not slower")
    assert text.count("level with one") == 2


def test_noisy_rounds_are_unclear_not_a_yes_or_no() -> None:
    data = rounds(1.0e-3, 1.0e-3, 1.0e-3, n=6)
    data["alive"] = [a * f for a, f in zip(data["alive"], (0.8, 1.3, 0.9, 1.4, 1.0, 1.2), strict=True)]
    _, conclusion = script().table(data)
    assert "copies alive: unclear (run more rounds);" in conclusion


@pytest.mark.tf
def test_a_tiny_run_prints_the_table_and_the_conclusion() -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "--size", "tiny", "--rounds", "3", "--calls", "8"],
                         check=False, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "tiny model, tf.function forward at batch 1, 6 copies, 8 calls a block"
    assert [ln.split()[0] for ln in lines[2:5]] == ["one", "alive", "cycled"] and "(3 rounds)" in lines[1]
    assert lines[5].startswith("the back-to-back tf.function time rises with copies alive: ")
