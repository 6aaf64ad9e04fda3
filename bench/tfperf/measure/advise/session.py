"""The generated topics measured one after the other by the guide's own run
(``measure.supervise.orchestrate.run``: worker processes per settings group, interleaved rounds,
the A/A pair, the output check, failures kept as data), into one results file of the
results schema, within the reader's ``--budget``.

The budget is shared out before the run (each topic's rounds get their share,
:mod:`.topics`), and each topic's cost is estimated (its worker processes, setups,
conversions and rounds, from what the probe timed); a topic whose estimate does not fit
the budget left is not started, and is reported as not measured for lack of budget, with
the budget that would measure it. One line per topic shows the progress across topics. Ctrl-C (or SIGTERM)
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
from math import ceil
from pathlib import Path
from typing import TextIO

from ... import store
from ..supervise.orchestrate import Report, RunOptions, run
from .probe import ModelSpec
from .topics import RUNTIMES, Generated, generate

PROFILE = "quick"
SLACK = 0.25                       # a topic's estimate may be this much over the budget left
MIN_SCALE, MAX_SCALE = 0.5, 3.0    # how far the topics measured may scale the next estimates


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
    skipped: list[tuple[str, str]] = field(default_factory=list)        # (topic, why): not enough budget
    estimates: dict[str, float] = field(default_factory=dict)           # topic -> seconds, before the run
    took: dict[str, float] = field(default_factory=dict)                # topic -> seconds it took, if run

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


class TopicBar:
    """Progress across the topics, one line each as a topic starts: a bar on a terminal,
    plain words where stderr is not one (a log file, a pipe). The case-by-case bar of each
    topic's run (``measure.supervise.progress``) goes under it."""

    WIDTH = 20

    def __init__(self, total: int, budget_s: float, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.budget_s, self.enabled = total, budget_s, enabled
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def line(self, done: int, spent: float, what: str) -> str:
        words = f"topic {min(done + 1, self.total)} of {self.total}, {spent:.0f} s of {self.budget_s:g} s: {what}"
        if not self.tty:
            return words
        filled = round(self.WIDTH * done / max(self.total, 1))
        return f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {words}"

    def show(self, done: int, spent: float, what: str) -> None:
        if self.enabled:
            self.stream.write(self.line(done, spent, what) + "\n")
            self.stream.flush()


def fits(estimate_s: float, left_s: float) -> bool:
    """Whether a topic estimated at ``estimate_s`` fits the budget left (an estimate is
    rough: a quarter over is let through)."""
    return estimate_s <= left_s * (1 + SLACK)


def measure(spec: ModelSpec, folder: Path, batches: Sequence[int], budget_s: float, runner: str,
            only: Sequence[str] = (), progress: bool = True, memory_limit_mb: int | None = None,
            python: str = sys.executable, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr),
            run_topic: Callable[[RunOptions], Report] = run, bar: TopicBar | None = None) -> Session:
    """Generate the topics into ``folder/topics`` and measure them into
    ``folder/results/<runner>/quick.json`` (replacing what an earlier advise left there).
    A topic whose estimate does not fit the budget left is not started (the first one
    always is); the estimates are scaled by how long the topics before took against theirs."""
    session = Session(folder)
    if session.results_root.exists():
        log(f"replacing the earlier results in {session.results_root}")
        shutil.rmtree(session.results_root)
    if session.topics_dir.exists():
        shutil.rmtree(session.topics_dir)
    timeout_s = max(300.0, budget_s)
    session.topics = generate(spec, session.topics_dir, batches, budget_s, runtimes(), only, timeout_s)
    session.results = store.results_path(folder, runner, PROFILE)
    estimates = {t.name: t.estimate_s(spec, len(batches)) for t in session.topics}
    session.estimates = dict(estimates)
    log("Estimated: " + ", ".join(f"{t.title} about {estimates[t.name]:.0f} s" for t in session.topics)
        + f"; {sum(estimates.values()):.0f} s in all, for a budget of {budget_s:g} s")
    bar = bar or TopicBar(len(session.topics), budget_s, enabled=progress)
    t0 = time.monotonic()
    took = estimated = 0.0                         # of the topics measured so far
    try:
        for i, topic in enumerate(session.topics):
            spent = time.monotonic() - t0
            if session.signum is not None:
                session.not_measured.append((topic.name, "interrupted"))
                continue
            scale = min(MAX_SCALE, max(MIN_SCALE, took / estimated)) if estimated > 0 else 1.0
            guess = estimates[topic.name] * scale
            if i and not fits(guess, budget_s - spent):
                need = spent + guess
                why = (f"not enough budget left: it needs about {guess:.0f} s and {max(0.0, budget_s - spent):.0f} s "
                       f"of {budget_s:g} s were left; --budget {10 * ceil(need / 10):.0f} or more measures it")
                session.not_measured.append((topic.name, why))
                session.skipped.append((topic.name, why))
                bar.show(i, spent, f"{topic.title} left out (not enough budget)")
                continue
            bar.show(i, spent, f"{topic.title}, about {guess:.0f} s ({len(batches)} scenario(s) of "
                               f"{topic.cases} case(s))")
            started = time.monotonic()
            report = run_topic(RunOptions(profile=PROFILE, topics=[topic.name], runner=runner, data_root=folder,
                                          snippets_dir=session.topics_dir, progress=progress,
                                          memory_limit_mb=memory_limit_mb, python=python))
            session.took[topic.name] = time.monotonic() - started
            took += session.took[topic.name]
            estimated += estimates[topic.name]
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
    bar.show(len(session.topics), session.seconds, "done" if session.signum is None else "interrupted")
    return session
