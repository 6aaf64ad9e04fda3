"""What the harness reads of the machine where Windows has no /proc, run on Linux (no
TensorFlow): each degrades to "not known" instead of failing the run or recording a guess.

* A breakdown: the sampled frames' paths say "\\" there, while the categories' patterns,
  the worker's boundary and the filters of the top functions say "/"; and a frame's file
  begins with a drive. The worker turns both into what Linux records.
* The CPU's instruction sets: no /proc/cpuinfo, so {} (unknown), not every flag false.
* Hygiene: where psutil gives no CPU counters and no load average, the scenario's load and
  others_share are null (tests/measure/test_machine.py: what psutil does give, on every platform).
"""

from __future__ import annotations

import ntpath
import os
import sys
from collections import Counter
from pathlib import Path

import psutil
import pytest

from tfperf.measure import envinfo
from tfperf.measure.supervise import records as hygiene
from tfperf.measure.worker import timing as sampling
from tfperf.measure.worker.serve import _short, _slashed

WINDOWS_STACK = (
    r"C:\a\venv\Lib\site-packages\keras\src\layers\core\dense.py:80(call)",
    r"D:\runner\work\tfperf\snippets\predict_vs_call.py:12(predict)",
    r"D:\runner\work\tfperf\bench\tfperf\measure\worker\serve.py:140(call)",
    r"D:\runner\work\tfperf\bench\tfperf\measure\worker\timing.py:30(block)",
)
RULES = [{"name": "eager layer calls", "match": ["keras/src/layers"]}]


def test_windows_frames_get_slashes_and_fall_in_their_category() -> None:
    weights: Counter[tuple[str, ...]] = Counter({WINDOWS_STACK: 2.0})
    as_sampled = sampling.categorise(weights, RULES, boundary="tfperf/measure/worker/serve.py")
    assert as_sampled == {"other": 2.0}, "the unported breakdown: every second is 'other'"
    slashed = _slashed(weights, sep="\\")
    assert next(iter(slashed))[1] == "D:/runner/work/tfperf/snippets/predict_vs_call.py:12(predict)"
    assert sampling.categorise(slashed, RULES, boundary="tfperf/measure/worker/serve.py") == {"eager layer calls": 2.0}


def test_posix_frames_are_left_as_they_are() -> None:
    weights: Counter[tuple[str, ...]] = Counter({("/x/y.py:1(f)",): 1.0})
    assert _slashed(weights, sep="/") is weights


def test_a_windows_frame_is_shortened_without_its_drive_or_directories() -> None:
    frames = [f.replace("\\", "/") for f in WINDOWS_STACK]
    assert _short(frames[0], ntpath.splitdrive) == "keras/src/layers/core/dense.py:80(call)"
    assert _short(frames[1], ntpath.splitdrive) == "snippets/predict_vs_call.py:12(predict)"


def test_a_posix_frame_is_shortened_as_before() -> None:
    assert _short("/home/u/proj/snippets/predict_vs_call.py:12(predict)") == "snippets/predict_vs_call.py:12(predict)"
    assert _short("/v/lib/python3.11/site-packages/numpy/core.py:3(f)") == "numpy/core.py:3(f)"
    assert _short("<frozen runpy>:88(_run_code)") == "<frozen runpy>:88(_run_code)"


class _NoFile:
    def __init__(self, path: str) -> None:
        self.path = path

    def read_text(self, **_: object) -> str:
        raise FileNotFoundError(self.path)


@pytest.mark.parametrize("platform, known", [("win32", False), ("linux", True), ("darwin", True)])
def test_instruction_sets_without_proc_cpuinfo(monkeypatch: pytest.MonkeyPatch, platform: str, known: bool) -> None:
    monkeypatch.setattr(envinfo, "Path", _NoFile)
    monkeypatch.setattr(sys, "platform", platform)
    isa = envinfo.machine_info()["isa"]
    monkeypatch.undo()
    if known:       # Linux and macOS record what they recorded before
        assert set(isa) == set(envinfo.ISA_FLAGS)
    else:
        assert isa == {}, "unknown, not 'this CPU has no AVX2'"


def test_linux_reads_the_instruction_sets_from_proc() -> None:
    if not Path("/proc/cpuinfo").exists():
        pytest.skip("no /proc/cpuinfo here")
    assert set(envinfo.machine_info()["isa"]) == set(envinfo.ISA_FLAGS)


def test_hygiene_where_psutil_gives_no_counters_or_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(*_: object) -> object:
        raise psutil.AccessDenied()

    monkeypatch.setattr(psutil, "getloadavg", unavailable)
    monkeypatch.setattr(psutil, "cpu_times", unavailable)
    missing = tmp_path / "no-cpufreq"
    before = hygiene.snapshot([os.getpid()], cpufreq=missing)
    after = hygiene.snapshot([os.getpid()], cpufreq=missing)
    public = hygiene.public(after)
    assert public == {"load": None, "governor": None, "freq_mhz": None, "probe_ms": public["probe_ms"]}
    assert public["probe_ms"] and public["probe_ms"] > 0     # the host probe needs no counter
    assert hygiene.others_share(before, after, cores=2) is None
