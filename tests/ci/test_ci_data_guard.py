"""A data pull request may add results, never remove or rewrite them, and only the benchmarks
bot may touch the gha-* runners' files: tfperf.store.merge and scripts/ci/check-data-pr.sh
(run for real on a small git repository). No network, no TensorFlow."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from store_records import make_doc
from test_ci_support import GIT_ENV, copy_ci, git, measured, venv, write_doc

from tfperf.store.merge import label_problems, path_problem, removals

Doc = dict[str, Any]
BOX = "data/results/box/full.json"
GHA = "data/results/gha-ubuntu24-x86_64/full.json"


def result(n: int, runner: str = "box", day: int | None = None, median: float | None = None) -> Doc:
    return measured(n, runner=runner, median=median or 0.001 * n, day=day or n)


def doc(*ns: int, runner: str = "box") -> Doc:
    return make_doc(runner=runner, profile="full", results=[result(n, runner) for n in ns])


# ---------------------------------------------------------------- the rule, on documents

def test_adding_results_is_fine() -> None:
    assert removals(BOX, doc(1, 2), doc(1, 2, 3)).ok
    assert removals(BOX, None, doc(1)).ok, "a new file only adds"


def test_a_new_measurement_of_a_case_is_an_addition() -> None:
    pr = doc(1, 2)
    pr["results"].append(result(2, day=20, median=0.5))   # case 2 again, later: the newer one counts
    assert removals(BOX, doc(1, 2), pr).ok


def test_a_removed_result_is_named() -> None:
    f = removals(BOX, doc(1, 2, 3), doc(1, 3))
    assert not f.ok
    assert f.removed_cases == [result(2)["case_id"]]
    assert any(result(2)["case_id"] in line for line in f.lines())


def test_a_result_rewritten_in_place_is_a_removal() -> None:
    pr = doc(1, 2)
    pr["results"][1]["timing"]["summary"]["median"] *= 0.5
    f = removals(BOX, doc(1, 2), pr)
    assert f.removed_cases == [result(2)["case_id"]]


def test_a_deleted_file_removes_every_case() -> None:
    f = removals(BOX, doc(1, 2), None)
    assert not f.ok and f.removed_cases == sorted(result(n)["case_id"] for n in (1, 2))
    assert "deletes" in " ".join(f.lines())


def test_another_runner_in_the_same_file_cannot_be_merged() -> None:
    f = removals(BOX, doc(1), doc(1, runner="other"))
    assert not f.ok and "cannot be merged" in " ".join(f.lines())


def test_a_removed_scenario_and_environment_are_named() -> None:
    base = doc(1)
    base["scenarios"] = [{"id": "s1"}]
    pr = copy.deepcopy(base)
    pr["scenarios"] = []
    f = removals(BOX, base, pr)
    assert f.removed_scenarios == ["s1"]


def test_the_list_of_case_ids_is_capped_in_the_message() -> None:
    f = removals(BOX, doc(*range(1, 26)), doc())
    line = next(x for x in f.lines() if "case(s)" in x)
    assert "25 case(s)" in line and "and 5 more" in line


@pytest.mark.parametrize("runner_dir,label,bad", [
    ("box", "box", False),
    ("gha-ubuntu24-x86_64", "gha-ubuntu24-x86_64", True),
    ("box", "gha-macos15-arm64", True),       # a file claiming the label from elsewhere
    ("github-box", "github-box", False),
    ("selfhosted-gpu-a100", "selfhosted-gpu-a100", True),
])
def test_gha_labels_are_reserved(runner_dir: str, label: str, bad: bool) -> None:
    d = doc(1, runner=label)
    problems = label_problems(f"data/results/{runner_dir}/full.json", runner_dir, d)
    assert bool(problems) == bad
    if bad:
        assert "reserved" in problems[0] and "gha-" in problems[0]


# ---------------------------------------------------------------- the step, on a git repository

@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(r))
    copy_ci(r, "env.sh", "check-data-pr.sh", "check_data_pr.py")
    write_doc(r, doc(1, 2))
    write_doc(r, doc(1, runner="gha-ubuntu24-x86_64"))
    git(r, "add", "scripts", ".gitignore", "data")
    git(r, "commit", "-q", "-m", "base")
    git(r, "switch", "-q", "-c", "pr")
    return r


def check(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(repo / "scripts" / "ci" / "check-data-pr.sh"), *args], check=False, capture_output=True, text=True,
                          timeout=120, cwd=repo, env={**os.environ, **GIT_ENV, "TFPERF_VENV": venv(), **env})


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A", "data")
    git(repo, "commit", "-q", "-m", message)


def test_step_passes_a_pull_request_that_adds_results(repo: Path) -> None:
    write_doc(repo, doc(1, 2, 3))
    write_doc(repo, doc(5, runner="contributor-box"))
    commit(repo, "add")
    out = check(repo, "main")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 changed results file(s) only add results" in out.stdout


def test_step_names_the_removed_case_ids(repo: Path) -> None:
    write_doc(repo, doc(1))
    commit(repo, "drop result 2")
    out = check(repo, "main")
    assert out.returncode == 1
    assert BOX in out.stderr and result(2)["case_id"] in out.stderr and result(1)["case_id"] not in out.stderr


def test_step_refuses_a_deleted_results_file(repo: Path) -> None:
    (repo / BOX).unlink()
    commit(repo, "delete")
    out = check(repo, "main")
    assert out.returncode == 1 and "deletes this results file" in out.stderr


def test_step_reserves_gha_runners_for_the_bot(repo: Path) -> None:
    write_doc(repo, doc(1, 2, runner="gha-ubuntu24-x86_64"))   # only adds, but not the bot's to add
    commit(repo, "add to a hosted runner's file")
    out = check(repo, "main", PR_AUTHOR="someone", PR_HEAD_REPO="someone/tfperf", GITHUB_REPOSITORY="acme/tfperf",
                PR_HEAD_REF="tfperf/results-main")
    assert out.returncode == 1 and "reserved for the benchmarks workflow" in out.stderr and GHA in out.stderr
    bot = {"PR_AUTHOR": "github-actions[bot]", "PR_HEAD_REPO": "acme/tfperf", "GITHUB_REPOSITORY": "acme/tfperf",
               "PR_HEAD_REF": "tfperf/results-main"}
    out = check(repo, "main", **bot)
    assert out.returncode == 0, out.stdout + out.stderr
    # The bot's name from a fork is not the bot.
    out = check(repo, "main", **{**bot, "PR_HEAD_REPO": "mallory/tfperf"})
    assert out.returncode == 1


def test_step_defaults_to_the_base_of_a_merge_commit(repo: Path) -> None:
    """A pull_request run checks out the merge commit: HEAD^1 is the base branch."""
    write_doc(repo, doc(2))
    commit(repo, "drop result 1")
    git(repo, "switch", "-q", "main")
    git(repo, "switch", "-q", "--detach")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "pr")
    out = check(repo)
    assert out.returncode == 1 and result(1)["case_id"] in out.stderr, out.stdout + out.stderr


def test_step_refuses_other_paths_under_data_and_ignores_git_ignored_files(repo: Path) -> None:
    (repo / "data" / "README.md").write_text("notes\n", encoding="utf-8")
    (repo / "data" / "results" / "box" / "full.json.lock").write_text("", encoding="utf-8")   # git ignores it
    commit(repo, "notes")
    out = check(repo, "main")
    assert out.returncode == 1 and "0 changed results file(s)" in out.stderr, out.stdout + out.stderr
    assert out.stderr.count("\n") == 2 and "data/README.md: is not a results file" in out.stderr


def test_step_reports_a_malformed_file(repo: Path) -> None:
    (repo / BOX).write_text(json.dumps({"schema_version": 2}), encoding="utf-8")
    commit(repo, "break")
    out = check(repo, "main")
    assert out.returncode == 1 and BOX in out.stderr


# ---------------------------------------------------------------- every path under data/, at any depth

def _nested_reserved(repo: Path) -> None:
    f = repo / "data" / "results" / "my-box" / "sub" / "full.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(doc(1, runner="gha-macos15-arm64")), encoding="utf-8")


def _link(name: str, target: str) -> Callable[[Path], None]:
    def make(repo: Path) -> None:
        f = repo / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.symlink_to(target)
    return make


def _folder_named_full_json(repo: Path) -> None:
    f = repo / "data" / "results" / "my-box" / "full.json" / "x.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(doc(1, runner="my-box")), encoding="utf-8")


def _unknown_profile(repo: Path) -> None:
    write_doc(repo, doc(1, runner="my-box"))
    (repo / "data" / "results" / "my-box" / "full.json").rename(repo / "data" / "results" / "my-box" / "other.json")


LAYOUT = "data/results/<runner>/<profile>.json (profile: quick, full, history)"
ODD_PATHS: dict[str, tuple[Callable[[Path], None], str]] = {
    "nested file with a reserved label": (
        _nested_reserved, ("data/results/my-box/sub/full.json: is not a results file; under data/ a pull request "
                          f"may only add or change {LAYOUT}")),
    "nested link to /proc/self/environ": (
        _link("data/results/my-box/sub/env.json", "/proc/self/environ"),
        ("data/results/my-box/sub/env.json: is a symbolic link to '/proc/self/environ'; only regular files may be "
        "added under data/ (the site would read and publish what a link points to)")),
    "results file that is a link to /etc/passwd": (
        _link("data/results/my-box/full.json", "/etc/passwd"),
        ("data/results/my-box/full.json: is a symbolic link to '/etc/passwd'; only regular files may be added under "
        "data/ (the site would read and publish what a link points to)")),
    "folder named full.json": (
        _folder_named_full_json, ("data/results/my-box/full.json/x.json: data/results/my-box/full.json is a folder "
                                 f"named like a results file; a results file is a regular file at {LAYOUT}")),
    "file of no profile": (
        _unknown_profile, ("data/results/my-box/other.json: is not a results file; under data/ a pull request may "
                          f"only add or change {LAYOUT}")),
}


@pytest.mark.parametrize("name", sorted(ODD_PATHS))
def test_step_refuses_every_odd_path_under_data_by_name(repo: Path, name: str) -> None:
    """Fault: a data pull request that adds a results file below the runner level with a reserved label (data/results/my-box/sub/full.json claiming gha-macos15-arm64), a symbolic link to /proc/self/environ or /etc/passwd (nested or at a results file's path), a folder named full.json, or a file of no known profile.
    Happens: the data guard refuses the pull request (exit 1) with one line per path naming it and what it is.
    Kept: the base's results files; nothing the pull request adds under data/ is read or published unless it is a regular file at data/results/<runner>/<profile>.json."""
    make, line = ODD_PATHS[name]
    make(repo)
    commit(repo, name)
    out = check(repo, "main")
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stderr.splitlines()[0] == line, out.stderr
    assert len(out.stderr.splitlines()) == 2 and "Traceback" not in out.stderr


def test_path_rules_for_each_git_mode() -> None:
    assert path_problem("data/results/box/full.json", "100644") is None
    assert path_problem("data/reproducibility/results/box/quick.json", "100755") is None
    assert "submodule" in str(path_problem("data/results/box/full.json", "160000"))
    assert "symbolic link" in str(path_problem("data/results/box/full.json", "120000", "x"))
    assert "not a results file" in str(path_problem("data/results/box/results/gha-x/full.json", "100644"))
    assert "not a results file" in str(path_problem("data/results/../full.json", "100644"))
