"""The results pull request, end to end against a local bare "origin" and a fake ``gh``:
scripts/ci/pending.sh, scripts/ci/open-pr.sh and scripts/ci/own_pr.py.

* the branch is built on main as fetched at the end of the run, so a results pull request
  that landed mid-run stays in (and so does everything else main gained);
* another run pushing to the branch meanwhile loses nothing (the lease fails, the script
  merges again);
* a fork's pull request from a branch named like the bot's is not the bot's;
* every run ends with a results file that ``tfperf validate`` accepts and that holds every
  result of main, the open pull request and the run. No network, no TensorFlow."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from store_records import make_doc
from test_ci_support import GIT_ENV, ROOT, copy_ci, fake_gh, fork_pr, gh_calls, git, measured, own_pr, venv, write_doc

BRANCH = "tfperf/results-main"
RESULTS = "data/results/box/full.json"
CI_FILES = ("env.sh", "pending.sh", "open-pr.sh", "own_pr.py", "merge.sh", "regression_issue.py")


def result(n: int) -> dict[str, Any]:
    return measured(n, median=0.001 * n, day=n)


def doc(*ns: int) -> dict[str, Any]:
    return make_doc(runner="box", profile="full", results=[result(n) for n in ns])


def case_ids(text: str) -> set[str]:
    return {r["case_id"] for r in json.loads(text)["results"]}


def ids(*ns: int) -> set[str]:
    return {result(n)["case_id"] for n in ns}


def tfperf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import sys; from tfperf.cli import main; sys.exit(main())", *args], check=False,
                          capture_output=True, text=True, timeout=120)


class World:
    """origin.git with main (and maybe the results branch), clones of it, a fake gh."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.origin = tmp / "origin.git"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(self.origin))
        seed = tmp / "seed"
        git(tmp, "init", "-q", "-b", "main", str(seed))
        copy_ci(seed, *CI_FILES)
        shutil.copy2(ROOT / "scripts" / "regression_report.py", seed / "scripts" / "regression_report.py")
        write_doc(seed, doc(1))
        git(seed, "add", "scripts", ".gitignore", "data")
        git(seed, "commit", "-q", "-m", "main with result 1")
        git(seed, "remote", "add", "origin", str(self.origin))
        git(seed, "push", "-q", "origin", "main")
        self.gh = fake_gh(tmp / "bin", [])

    def clone(self, name: str) -> Path:
        c = self.tmp / name
        git(self.tmp, "clone", "-q", str(self.origin), str(c))
        (c / "bench").symlink_to(Path(__file__).resolve().parents[2] / "bench")
        return c

    def commit_to(self, ref: str, files: dict[str, str], message: str, base: str = "main") -> str:
        """Commit ``files`` on top of origin's ``base`` and push the commit to origin's ``ref``."""
        w = self.tmp / f"w-{len(list(self.tmp.iterdir()))}"
        git(self.tmp, "clone", "-q", "--branch", base, str(self.origin), str(w))
        for path, text in files.items():
            (w / path).parent.mkdir(parents=True, exist_ok=True)
            (w / path).write_text(text, encoding="utf-8")
        git(w, "add", "-A")
        git(w, "commit", "-q", "-m", message)
        git(w, "push", "-q", "origin", f"HEAD:refs/heads/{ref}")
        return git(w, "rev-parse", "HEAD").strip()

    def land(self) -> None:
        """The results pull request is merged: main becomes its branch (built on main)."""
        git(self.origin, "update-ref", "refs/heads/main", f"refs/heads/{BRANCH}")

    def prs(self, prs: list[dict[str, Any]]) -> None:
        (self.gh / "prs.json").write_text(json.dumps(prs), encoding="utf-8")

    def run(self, repo: Path, script: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, **GIT_ENV, **extra, "TFPERF_VENV": venv(), "RESULTS_BRANCH": BRANCH, "BASE_BRANCH": "main",
               "GITHUB_REPOSITORY_OWNER": "acme", "PATH": f"{self.gh}{os.pathsep}{os.environ['PATH']}"}
        env.pop("GITHUB_STEP_SUMMARY", None)
        return subprocess.run([str(repo / "scripts" / "ci" / script), *args], check=False, capture_output=True, text=True,
                              timeout=300, env=env, cwd=repo)

    def show(self, ref: str, path: str = RESULTS) -> str:
        return git(self.origin, "show", f"{ref}:{path}")

    def sha(self, ref: str) -> str:
        return git(self.origin, "rev-parse", ref).strip()


@pytest.fixture()
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _measure(world: World, checkout: Path, *ns: int) -> None:
    """What the runners upload: a results file holding results ``ns``."""
    art = world.tmp / "artifacts" / "results-gha-box-shard1of1"
    write_doc(art, doc(*ns))


def _valid(world: World, ref: str) -> set[str]:
    text = world.show(ref)
    f = world.tmp / f"check-{ref.replace('/', '-')}.json"
    f.write_text(text, encoding="utf-8")
    out = tfperf("validate", str(f))
    assert out.returncode == 0, out.stdout + out.stderr
    return case_ids(text)


# ---------------------------------------------------------------- own_pr.py

@pytest.mark.parametrize("prs,owner,want", [
    ([], "acme", ""),
    ([own_pr(5)], "acme", "5"),
    ([fork_pr(7)], "acme", ""),
    ([fork_pr(3), own_pr(8)], "acme", "8"),
    ([own_pr(5, owner="mallory")], "acme", ""),     # not a fork by the flag, yet not this owner
    ([own_pr(5, owner="Acme")], "acme", "5"),       # GitHub logins ignore case
    ([own_pr(5)], "", "5"),                          # owner unknown (a local run): the flag decides
    ([own_pr(5, branch="tfperf/results-other")], "acme", ""),
])
def test_own_pr_ignores_forks_and_other_branches(prs: list[dict[str, Any]], owner: str, want: str) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "ci" / "own_pr.py"
    out = subprocess.run([sys.executable, str(script), "--branch", BRANCH, "--owner", owner], check=False, input=json.dumps(prs),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == want


# ---------------------------------------------------------------- pending.sh

@pytest.mark.parametrize("listed,collected", [([], False), ([own_pr(5)], True), ([fork_pr(7)], False)])
def test_pending_collects_only_this_repositorys_open_results_pull_request(world: World, listed: list[dict[str, Any]],
                                                                          collected: bool) -> None:
    world.commit_to(BRANCH, {RESULTS: json.dumps(doc(1, 2))}, "an earlier run's results")
    checkout = world.clone("run")
    world.prs(listed)
    out = world.run(checkout, "pending.sh", str(world.tmp / "pending"))
    assert out.returncode == 0, out.stdout + out.stderr
    got = sorted(p.relative_to(world.tmp / "pending").as_posix() for p in (world.tmp / "pending").rglob("*.json"))
    assert got == ([RESULTS] if collected else [])


def test_pending_with_a_fork_pull_request_and_no_branch_of_ours_is_not_an_error(world: World) -> None:
    checkout = world.clone("run")
    world.prs([fork_pr(7)])
    out = world.run(checkout, "pending.sh", str(world.tmp / "pending"))
    assert out.returncode == 0 and "nothing to collect" in out.stdout, out.stdout + out.stderr


# ---------------------------------------------------------------- open-pr.sh

def _run_the_merge_job(world: World, checkout: Path, *ns: int) -> None:
    """pending.sh then merge.sh, as the merge job does (open-pr.sh is left to the test)."""
    _measure(world, checkout, *ns)
    out = world.run(checkout, "pending.sh", str(world.tmp / "artifacts" / "pending"))
    assert out.returncode == 0, out.stdout + out.stderr
    out = world.run(checkout, "merge.sh", str(world.tmp / "artifacts"), "data")
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_results_pull_request_landing_mid_run_keeps_every_result(world: World) -> None:
    # An earlier run's pull request (result 2) is open when this run starts.
    world.commit_to(BRANCH, {RESULTS: json.dumps(doc(1, 2))}, "an earlier run's results")
    world.prs([own_pr(5)])
    checkout = world.clone("run")                    # the run's checkout: main with result 1 only
    _run_the_merge_job(world, checkout, 3)           # this run measured result 3; the PR's result 2 collected
    # Meanwhile the pull request lands, and main gains a commit of its own.
    world.land()
    world.commit_to("main", {"docs/note.md": "a page\n"}, "an unrelated change")
    world.prs([])                                    # merged: no longer open
    main_now = world.sha("main")

    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0, out.stdout + out.stderr
    assert git(world.origin, "rev-parse", f"{BRANCH}^").strip() == main_now, "the branch is not built on main as it is"
    assert _valid(world, BRANCH) == ids(1, 2, 3)
    assert world.show(BRANCH, "docs/note.md") == "a page\n"
    assert any(c.startswith("pr create") for c in gh_calls(world.gh)), gh_calls(world.gh)
    # The body reports the changes against main; the tests are started on the branch (a PR made
    # with GITHUB_TOKEN starts no workflow); nothing got slower, so no issue.
    assert f"### Changes in {RESULTS}" in (world.gh / "pr-body.md").read_text(encoding="utf-8")
    assert f"workflow run tests.yml --ref {BRANCH}" in gh_calls(world.gh)
    assert not (world.gh / "issue-body.md").exists()


def test_a_results_pull_request_landing_before_the_merge_job_keeps_every_result(world: World) -> None:
    world.commit_to(BRANCH, {RESULTS: json.dumps(doc(1, 2))}, "an earlier run's results")
    checkout = world.clone("run")
    world.land()
    world.prs([])
    _run_the_merge_job(world, checkout, 3)           # nothing pending: result 2 is only in main now
    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0, out.stdout + out.stderr
    assert _valid(world, BRANCH) == ids(1, 2, 3)


def test_another_run_pushing_meanwhile_loses_nothing(world: World) -> None:
    world.commit_to(BRANCH, {RESULTS: json.dumps(doc(1, 2))}, "an earlier run's results")
    world.prs([own_pr(5)])
    checkout = world.clone("run")
    _run_the_merge_job(world, checkout, 3)
    # Right after open-pr.sh has read the branch, another run (the GPU workflow, say) pushes result 4.
    other = world.tmp / "other.json"
    other.write_text(json.dumps(doc(1, 2, 4)), encoding="utf-8")
    racer = world.clone("racer")
    git(racer, "fetch", "-q", "origin", BRANCH)
    (world.gh / "hook.sh").write_text(
        f'cd "{racer}" && git checkout -q -B racer FETCH_HEAD && cp "{other}" "{RESULTS}" '
        f'&& git commit -q -am "another run" && git push -q origin HEAD:refs/heads/{BRANCH}\n', encoding="utf-8")
    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0, out.stdout + out.stderr
    assert (world.gh / "hook.done").exists(), "the other run did not push"
    assert "changed while this run merged" in out.stdout
    assert _valid(world, BRANCH) == ids(1, 2, 3, 4)
    assert "updated pull request #5" in out.stdout
    assert not any(c.startswith("pr create") for c in gh_calls(world.gh))


def test_a_fork_branch_named_like_the_bots_is_neither_read_nor_taken_for_ours(world: World) -> None:
    # Our own branch is left over from a declined pull request; a fork has an open pull request
    # from a branch of the same name. Neither may feed this run, and this run opens its own PR.
    world.commit_to(BRANCH, {RESULTS: json.dumps(doc(1, 6))}, "a declined run's results")
    world.prs([fork_pr(7)])
    checkout = world.clone("run")
    _run_the_merge_job(world, checkout, 3)
    assert not (world.tmp / "artifacts" / "pending").exists()
    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0, out.stdout + out.stderr
    assert _valid(world, BRANCH) == ids(1, 3)
    assert any(c.startswith("pr create") for c in gh_calls(world.gh)), "the fork's pull request was taken for ours"
    assert git(world.origin, "rev-parse", f"{BRANCH}^").strip() == world.sha("main")


def test_nothing_new_opens_no_pull_request(world: World) -> None:
    checkout = world.clone("run")
    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0 and "no pull request" in out.stdout, out.stdout + out.stderr
    assert not git(world.origin, "branch", "--list", BRANCH).strip()
    assert not any(c.startswith("pr create") for c in gh_calls(world.gh))


def test_dry_run_commits_full_results_only_and_calls_no_gh(world: World) -> None:
    checkout = world.clone("run")
    quick = make_doc(runner="box", profile="quick", results=[result(9)])
    write_doc(checkout, quick)                           # quick results are .gitignored: never committed
    out = _dry(world, checkout)
    assert out.returncode == 0 and "no pull request" in out.stdout, out.stdout + out.stderr
    write_doc(checkout, doc(1, 3))
    out = _dry(world, checkout)
    assert out.returncode == 0 and "dry run" in out.stdout, out.stdout + out.stderr
    assert git(checkout, "show", "--name-only", "--format=", "refs/tfperf/dry-run").split() == [RESULTS]
    assert case_ids(git(checkout, "show", f"refs/tfperf/dry-run:{RESULTS}")) == ids(1, 3)
    # A malformed file stops the step before anything is committed.
    before = git(checkout, "rev-parse", "refs/tfperf/dry-run")
    (checkout / RESULTS).write_text('{"schema_version": 1}', encoding="utf-8")
    out = _dry(world, checkout)
    assert out.returncode != 0 and "full.json" in out.stderr
    assert git(checkout, "rev-parse", "refs/tfperf/dry-run") == before
    assert gh_calls(world.gh) == [], "a dry run must not call gh"


def _dry(world: World, checkout: Path) -> subprocess.CompletedProcess[str]:
    return world.run(checkout, "open-pr.sh", TFPERF_DRY_RUN="1")


def test_a_case_much_slower_than_on_main_is_reported_in_the_body_and_an_issue(world: World) -> None:
    checkout = world.clone("run")
    slower = make_doc(runner="box", profile="full", results=[result(1), measured(1, median=0.003, day=15)])
    art = world.tmp / "artifacts" / "results-gha-box-shard1of1"
    write_doc(art, slower)                                        # case 1 again, three times slower
    out = world.run(checkout, "merge.sh", str(world.tmp / "artifacts"), "data")
    assert out.returncode == 0, out.stdout + out.stderr
    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0, out.stdout + out.stderr
    body = (world.gh / "pr-body.md").read_text(encoding="utf-8")
    assert "| slower |" in body and result(1)["case_id"] in body and "+200.0%" in body
    issue = (world.gh / "issue-body.md").read_text(encoding="utf-8")
    assert "Slower by more than 25% in" in issue and result(1)["case_id"] in issue
    # Below the issue's threshold: reported in the body, no issue.
    (world.gh / "issue-body.md").unlink()
    out = world.run(checkout, "open-pr.sh", TFPERF_ISSUE_THRESHOLD="5")
    assert out.returncode == 0, out.stdout + out.stderr
    assert not (world.gh / "issue-body.md").exists()


def _slower(world: World, name: str, *ns: int) -> Path:
    """A run whose runners measured cases ``ns`` three times slower than main has them, merged
    into a checkout of its own with the open results pull request's files (the merge job)."""
    checkout = world.clone(name)
    art = world.tmp / f"artifacts-{name}"
    write_doc(art / "results-gha-box-shard1of1",
              make_doc(runner="box", profile="full", results=[measured(n, median=0.003 * n, day=15) for n in ns]))
    out = world.run(checkout, "pending.sh", str(art / "pending"))
    assert out.returncode == 0, out.stdout + out.stderr
    out = world.run(checkout, "merge.sh", str(art), "data")
    assert out.returncode == 0, out.stdout + out.stderr
    out = world.run(checkout, "open-pr.sh")
    assert out.returncode == 0, out.stdout + out.stderr
    return checkout


def _issues(world: World) -> list[dict[str, Any]]:
    issues: list[dict[str, Any]] = json.loads((world.gh / "issues.json").read_text(encoding="utf-8"))
    return issues


def _issue_calls(world: World) -> list[str]:
    return [c.split(" --body-file")[0] for c in gh_calls(world.gh) if c.startswith("issue ")
            and not c.startswith("issue list")]


def test_the_same_slower_cases_update_one_issue_instead_of_opening_another(world: World) -> None:
    """Two runs that find the same cases slower (the second the GPU workflow's, which measured
    none of them: the open results pull request brings them again) leave one issue, updated."""
    world.commit_to("main", {RESULTS: json.dumps(doc(1, 2))}, "main with results 1 and 2")
    _slower(world, "first", 1)
    [issue] = _issues(world)
    assert "[cases " in issue["title"] and "1 case(s) slower" in issue["title"]
    world.prs([own_pr(5)])                                   # the results pull request is open now
    _slower(world, "gpu")                                    # measured nothing new
    assert _issues(world) == [issue]
    assert _issue_calls(world) == [f"issue create --title {issue['title']}", f"issue edit {issue['number']}"]
    # A maintainer closes it: the same cases again open nothing, update nothing.
    (world.gh / "issues.json").write_text(json.dumps([{**issue, "state": "CLOSED"}]), encoding="utf-8")
    _slower(world, "third", 1)
    assert len(_issue_calls(world)) == 2 and len(_issues(world)) == 1
    # Another set of cases (1 and 2 slower) is another issue.
    _slower(world, "fourth", 1, 2)
    assert len(_issues(world)) == 2 and "2 case(s) slower" in _issues(world)[1]["title"]
    assert _issues(world)[1]["title"] != issue["title"]


def test_the_issue_key_names_the_set_of_cases_whatever_their_order(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "ci" / "regression_issue.py"

    def call(*args: str, stdin: str = "") -> str:
        out = subprocess.run([sys.executable, str(script), *args], check=False, input=stdin, capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("box/full c1\nbox/full c2\n")
    b.write_text("box/full c2\nbox/full c1\nbox/full c1\n")
    key = call("key", str(a))
    assert re.fullmatch(r"[0-9a-f]{12}", key) and call("key", str(b)) == key
    b.write_text("box/full c2\n")
    assert call("key", str(b)) != key
    title = f"Benchmarks: 2 case(s) slower than before [cases {key}]"
    assert call("find", key, stdin="[]") == "create"
    assert call("find", key, stdin=json.dumps([{"number": 3, "title": title, "state": "OPEN"}])) == "edit 3"
    assert call("find", key, stdin=json.dumps([{"number": 3, "title": title, "state": "CLOSED"}])) == "keep 3"
    other = [{"number": 4, "title": "Benchmarks: 1 case(s) slower than before [cases 000000000000]", "state": "OPEN"}]
    assert call("find", key, stdin=json.dumps(other)) == "create"
