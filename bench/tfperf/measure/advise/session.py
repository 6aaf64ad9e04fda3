"""The generated topics measured one after the other by the guide's own run
(``measure.orchestrate.run``: worker processes per settings group, interleaved rounds,
the A/A pair, the output check, failures kept as data), into one results file of the
results schema, within the reader's ``--budget``.

The budget is shared out before the run (each topic's rounds get their share,
:mod:`.topics`); a topic whose turn comes after the budget is spent is not started, and
is reported as not measured with the budget that would measure it. Ctrl-C (or SIGTERM)
stops the run where it is: every scenario finished before is kept, and the rest is
reported as not measured.
"""

from __future__ import annotations

import importlib.util
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import store
from ..orchestrate import Report, RunOptions, run
from .probe import ModelSpec
from .topics import RUNTIMES, Generated, generate

PROFILE = "quick"


@dataclass
class Session:
    folder: Path                                   # --out: topics/ and results/
    topics: list[Generated] = field(default_factory=list)
    measured: list[str] = field(default_factory=list)
    not_measured: list[tuple[str, str]] = field(default_factory=list)   # (topic, why)
    reports: list[Report] = field(default_factory=list)
    signum: int | None = None
    seconds: float = 0.0
    results: Path | None = None

    @property
    def topics_dir(self) -> Path:
        return self.folder / "topics"

    @property
    def results_root(self) -> Path:
        return self.folder / "results"

    @property
    def exit_status(self) -> int:
        return 128 + self.signum if self.signum is not None else 0


def runtimes(find: Callable[[str], object] = importlib.util.find_spec) -> list[str]:
    """The serving runtimes this Python has (found, not imported): TFLite always (TensorFlow
    has it), ONNX Runtime when tf2onnx and onnxruntime are both installed."""
    return [r for r in RUNTIMES if r == "tflite" or (find("tf2onnx") is not None and find("onnxruntime") is not None)]


def measure(spec: ModelSpec, folder: Path, batches: Sequence[int], budget_s: float, runner: str,
            only: Sequence[str] = (), progress: bool = True, memory_limit_mb: int | None = None,
            python: str = sys.executable, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr),
            run_topic: Callable[[RunOptions], Report] = run) -> Session:
    """Generate the topics into ``folder/topics`` and measure them into
    ``folder/results/<runner>/quick.json`` (replacing what an earlier advise left there)."""
    session = Session(folder)
    if session.results_root.exists():
        log(f"replacing the earlier results in {session.results_root}")
        shutil.rmtree(session.results_root)
    if session.topics_dir.exists():
        shutil.rmtree(session.topics_dir)
    timeout_s = max(300.0, budget_s)
    session.topics = generate(spec, session.topics_dir, batches, budget_s, runtimes(), only, timeout_s)
    session.results = store.results_path(folder, runner, PROFILE)
    t0 = time.monotonic()
    try:
        for i, topic in enumerate(session.topics):
            spent = time.monotonic() - t0
            if session.signum is not None:
                session.not_measured.append((topic.name, "interrupted"))
                continue
            if i and spent >= budget_s:
                why = f"the budget of {budget_s:g} s was spent ({spent:.0f} s); a larger --budget measures it"
                session.not_measured.append((topic.name, why))
                continue
            log(f"\n[{i + 1}/{len(session.topics)}] {topic.title}: {len(batches)} scenario(s) of "
                f"{topic.cases} case(s), {spent:.0f} s of {budget_s:g} s spent")
            report = run_topic(RunOptions(profile=PROFILE, topics=[topic.name], runner=runner, data_root=folder,
                                          snippets_dir=session.topics_dir, progress=progress,
                                          memory_limit_mb=memory_limit_mb, python=python))
            session.reports.append(report)
            if report.ran:
                session.measured.append(topic.name)
            if report.interrupted:
                session.signum = report.signum
                if topic.name not in session.measured:
                    session.not_measured.append((topic.name, "interrupted"))
    except KeyboardInterrupt:                      # between topics, or while one was planned
        session.signum = signal.SIGINT
        done = set(session.measured) | {n for n, _ in session.not_measured}
        session.not_measured += [(t.name, "interrupted") for t in session.topics if t.name not in done]
    session.seconds = time.monotonic() - t0
    return session
