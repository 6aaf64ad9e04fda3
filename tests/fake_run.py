"""``tfperf run`` started the way a user starts it (the real command line, in its own
process, so signals and exit statuses are real) but measuring with tests/fake_worker.py
instead of TensorFlow: fault tests of the run itself take seconds and need no TensorFlow."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BENCH = TESTS.parent / "bench"

# `python -c CLI GO PYTHON ARGV...`: waits until the file GO exists (so that two runs can
# start at one moment), then runs `tfperf ARGV...` with PYTHON as the workers' interpreter.
CLI = textwrap.dedent("""
    import os, sys, time
    from tfperf import cli
    from tfperf.measure.supervise import orchestrate
    go, python, *argv = sys.argv[1:]
    real_run = orchestrate.run

    def run(options):
        options.python = python
        return real_run(options)

    orchestrate.run = run
    while not os.path.exists(go):
        time.sleep(0.001)
    sys.exit(cli.main(argv))
""")


def fake_python(tmp_path: Path) -> Path:
    """An executable that the run takes for Python and that starts the fake worker."""
    python = tmp_path / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python


def start(tmp_path: Path, argv: list[str], name: str, go: Path | None = None,
          delay_s: float = 0.005, file_size_limit: int | None = None) -> subprocess.Popen[str]:
    """``tfperf ARGV`` in a new process, begun once ``go`` exists (at once without it);
    stdout is piped, stderr written to ``<tmp_path>/<name>.err`` so that a test can read it
    while the run goes on. Each sample block of the fake worker takes ``delay_s``. With
    ``file_size_limit``, no file the process writes may grow beyond that many bytes
    (``RLIMIT_FSIZE``: the write fails as on a full disk)."""
    if go is None:
        go = tmp_path / f"{name}.go"
        go.touch()
    env = {**os.environ, "PYTHONPATH": str(BENCH), "FAKE_WORKER_DELAY_S": str(delay_s)}
    with (tmp_path / f"{name}.err").open("w") as err:
        return subprocess.Popen([sys.executable, "-c", CLI, str(go), str(fake_python(tmp_path)), *argv],
                                env=env, stdout=subprocess.PIPE, stderr=err, text=True,
                                preexec_fn=None if file_size_limit is None else limit_file_size(file_size_limit))  # noqa: PLW1509 (a resource limit only)


def limit_file_size(limit: int) -> Callable[[], None]:
    """A ``preexec_fn`` that caps the size of every file the child writes at ``limit`` bytes."""
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def run_argv(tmp_path: Path, topic: str, runner: str) -> list[str]:
    """``run`` of one topic of ``<tmp_path>/snippets`` into ``<tmp_path>/data``, quick profile."""
    return ["run", "--profile", "quick", "--topic", topic, "--runner", runner, "--data", str(tmp_path / "data"),
            "--snippets", str(tmp_path / "snippets"), "--no-progress"]


def summary(out: str) -> tuple[int, int]:
    """(cases ran, cases skipped) from the run's last line."""
    m = re.search(r"^(?:ran|interrupted after) (\d+) case\(s\) \(\d+ failed\), skipped (\d+) already measured",
                  out, re.MULTILINE)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")
