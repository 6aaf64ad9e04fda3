"""The regression report: tfperf.analyse.views.regress, scripts/regression_report.py and the merge
job's scripts/ci/regressions.sh (run for real on a small git repository). No TensorFlow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from store_records import make_doc, make_result
from test_ci_support import GIT_ENV, ROOT, copy_ci, git, measured, venv, write_doc

from tfperf.analyse.views.regress import Point, compare, judge, markdown

Doc = dict[str, Any]


def res(n: int, median: float, width: float = 0.02, day: int = 1, status: str = "ok") -> Doc:
    return measured(n, median=median, width=width, day=day, status=status)


def doc(*results: Doc) -> Doc:
    return make_doc(runner="box", profile="full", results=list(results))


def cid(n: int) -> str:
    return str(make_result(n)["case_id"])


@pytest.mark.parametrize("old,new,verdict", [
    (Point(1.0, 0.98, 1.02, 9, ""), Point(1.2, 1.18, 1.22, 9, ""), "slower"),
    (Point(1.0, 0.98, 1.02, 9, ""), Point(0.8, 0.78, 0.82, 9, ""), "faster"),
    (Point(1.0, 0.90, 1.30, 9, ""), Point(1.2, 1.10, 1.25, 9, ""), "within noise"),   # intervals overlap
    (Point(1.0, 0.99, 1.01, 9, ""), Point(1.05, 1.04, 1.06, 9, ""), "within noise"),  # apart, but below 10%
    (Point(1.0, 0.99, 1.01, 9, ""), Point(1 / 1.2, 0.82, 0.84, 9, ""), "faster"),     # symmetric on a log scale
])
def test_judge_needs_apart_intervals_and_a_change_above_the_threshold(old: Point, new: Point, verdict: str) -> None:
    assert judge(old, new, 0.10) == verdict


def test_compare_sorts_cases_into_verdicts() -> None:
    old = doc(res(1, 1e-3), res(2, 1e-3), res(3, 1e-3), res(4, 1e-3), res(5, 1e-3), res(6, 1e-3, status="error"),
              res(8, 1e-3))
    new = doc(res(1, 1e-3),                        # the same record: not measured again
              res(2, 1e-3), res(2, 1.5e-3, day=2),   # history kept, the newest counts: slower
              res(3, 0.5e-3, day=2),                 # faster
              res(4, 1.01e-3, day=2),                # within noise
              res(5, 1e-3, day=2, status="error"),   # fails now
              res(6, 1e-3, day=2),                   # works again
              res(7, 1e-3))                          # new
    r = compare(old, new, 0.10)
    verdicts = {c.case_id: c.verdict for c in r.changes}
    assert verdicts == {cid(2): "slower", cid(3): "faster", cid(4): "within noise", cid(5): "fails now",
                        cid(6): "works again"}
    assert r.same_record == 1 and r.only_new == [cid(7)] and r.only_old == [cid(8)]
    text = markdown(r, title="t")
    assert text.startswith("### t\n")
    table = [line for line in text.splitlines() if line.startswith("| `")]
    assert [line.split("|")[5].strip() for line in table] == ["fails now", "slower", "works again", "faster"]
    assert "+50.0%" in text and "-50.0%" in text and "1 slower" in text.replace("**", "")


def test_a_report_with_nothing_flagged_says_so() -> None:
    d = doc(res(1, 1e-3))
    text = markdown(compare(d, d))
    assert "No case changed" in text and "| `" not in text


def test_case_ids_with_pipes_do_not_break_the_table() -> None:
    a, b = res(1, 1e-3), res(1, 2e-3, day=2)
    a["case_id"] = b["case_id"] = "t/x=a|b/keras=3/v"
    text = markdown(compare(doc(a), doc(b)))
    assert "a\\|b" in text


# ---------------------------------------------------------------- the script and the CI step

def report(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "regression_report.py"), *args], check=False,
                          capture_output=True, text=True, timeout=120, cwd=cwd, env={**os.environ, **GIT_ENV})


def test_script_compares_two_files_and_can_fail_on_slower(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(doc(res(1, 1e-3))), encoding="utf-8")
    new.write_text(json.dumps(doc(res(1, 1e-3), res(1, 2e-3, day=2))), encoding="utf-8")
    out = report(str(old), str(new))
    assert out.returncode == 0 and "| slower |" in out.stdout and "1 slower" in out.stderr
    assert report(str(old), str(new), "--fail-on-slower").returncode == 1
    assert report(str(new), str(old), "--fail-on-slower").returncode == 0   # the other way it is faster
    bad = report(str(old), str(tmp_path / "missing.json"))
    assert bad.returncode == 2 and "missing.json" in bad.stderr


def test_script_reads_a_file_at_a_git_revision(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    f = write_doc(repo, doc(res(1, 1e-3)))
    git(repo, "add", "data")
    git(repo, "commit", "-q", "-m", "one")
    write_doc(repo, doc(res(1, 1e-3), res(1, 0.4e-3, day=2)))
    out = report(f"HEAD:{f.relative_to(repo).as_posix()}", str(f), cwd=repo)
    assert out.returncode == 0 and "| faster |" in out.stdout, out.stdout + out.stderr
    missing = report("HEAD:data/nothing.json", str(f), cwd=repo)
    assert missing.returncode == 2 and "HEAD:data/nothing.json" in missing.stderr


def test_merge_step_writes_the_report_to_the_step_summary(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    copy_ci(repo, "env.sh", "regressions.sh")
    (repo / "scripts" / "regression_report.py").symlink_to(ROOT / "scripts" / "regression_report.py")
    write_doc(repo, doc(res(1, 1e-3), res(2, 1e-3)))
    write_doc(repo, make_doc(runner="untouched", profile="full", results=[res(1, 1e-3)]))
    git(repo, "add", "data")
    git(repo, "commit", "-q", "-m", "published")
    write_doc(repo, doc(res(1, 1e-3), res(2, 1e-3), res(2, 3e-3, day=2)))          # the merge added a slower one
    write_doc(repo, make_doc(runner="newbox", profile="full", results=[res(1, 1e-3)]))  # a runner new in this run
    summary = tmp_path / "summary.md"
    out = subprocess.run([str(repo / "scripts" / "ci" / "regressions.sh"), "data"], check=False, capture_output=True, text=True,
                         timeout=120, cwd=repo, env={**os.environ, **GIT_ENV, "TFPERF_VENV": venv(),
                                                     "GITHUB_STEP_SUMMARY": str(summary)})
    assert out.returncode == 0, out.stdout + out.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.count("### Regressions in") == 1 and "data/results/box/full.json" in text
    assert "| slower |" in text and "+200.0%" in text
    assert "compared 1 changed results file(s)" in out.stdout and "newbox" in out.stdout


def test_regression_report_on_committed_history_runs() -> None:
    """The published file against itself one commit earlier: a report, never a crash."""
    path = "data/results/linux-x86_64-2core-intel-amx/full.json"
    if not (ROOT / path).exists() or not (ROOT / ".git").exists():
        pytest.skip("no published results or no git history here")
    out = report(f"HEAD:{path}", path)
    if out.returncode == 2 and "HEAD:" in out.stderr:
        pytest.skip("the published file is not committed at HEAD")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("### ")
