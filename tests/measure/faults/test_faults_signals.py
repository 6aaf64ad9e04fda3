"""``tfperf run`` stopped by a signal, with fake workers (no TensorFlow), then resumed: the
exit status names the signal, and every scenario measured before it is kept. The same
faults with real TensorFlow workers are in test_faults_run.py (marked ``tf``).

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import fake_run
import pytest

from tfperf import store
from tfperf.store.merge import canonical

N = 8


def _topic(d: Path) -> None:
    d.mkdir()
    (d / "sig.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n")
    (d / "sig.yaml").write_text(json.dumps({
        "topic": "sig", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}},
        "profiles": {"quick": {"params": {"n": list(range(N))}}}}))


def _results(tmp_path: Path) -> list[dict[str, Any]]:
    path = store.results_path(tmp_path / "data", "sig-box", "quick")
    return store.load(path)["results"] if path.exists() else []


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_run_with_the_shells_status_and_the_run_resumes(tmp_path: Path, sig: int,
                                                                         status: int) -> None:
    """Fault: SIGTERM (what `kill`, CI runners, Docker and systemd send) or SIGINT (Ctrl-C) in the middle of `tfperf run`, then the same command again.
    Happens: the run stops within seconds with the exit status a shell reports for that signal, 143 after SIGTERM and 130 after SIGINT, and says how to resume.
    Kept: every scenario finished before the signal, unchanged in a valid results file; the resumed run measures only the rest, so each case is stored once."""
    _topic(tmp_path / "snippets")
    argv = fake_run.run_argv(tmp_path, "sig", "sig-box")
    proc = fake_run.start(tmp_path, argv, "first", delay_s=0.02)     # about 0.3 s per scenario
    fake_run.wait_for(lambda: len(_results(tmp_path)) > 0, 60, "a first stored result")
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=30)
    err = (tmp_path / "first.err").read_text()
    assert proc.returncode == status, err
    assert "run `tfperf run` again" in err and "Traceback" not in err
    ran, _ = fake_run.summary(out)         # may count a scenario the signal stopped while it was saved
    assert "interrupted after" in out
    first = _results(tmp_path)
    assert 1 <= len(first) <= ran and len(first) < N

    proc = fake_run.start(tmp_path, argv, "again")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, (tmp_path / "again.err").read_text()
    assert fake_run.summary(out) == (N - len(first), len(first))
    final = _results(tmp_path)
    assert sorted(r["case_id"] for r in final) == sorted({r["case_id"] for r in final})   # each case once
    assert len(final) == N
    kept = {canonical(r) for r in final}
    assert all(canonical(r) in kept for r in first), "records of the interrupted run are unchanged"
