"""Fixtures shared by several test files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfperf.store import files
from tfperf.store.lock import locked

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def fake_venv(tmp_path: Path) -> Path:
    """A venv whose python only appends its arguments to tfperf.log beside it: what the CI
    scripts (bench.sh, compare-pr.sh) would run, without measuring."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text(f'#!/bin/sh\nshift 2\necho "$@" >> "{tmp_path}/tfperf.log"\n', encoding="utf-8")
    py.chmod(0o755)
    return venv


@pytest.fixture(scope="session", autouse=True)
def checked_files_memo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The memo of results files that passed the check (``TFPERF_CHECKED_CACHE``,
    ``store.validate.CheckedFiles``) in this run's temporary folder, shared by the
    pytest-xdist workers and the processes they start: the committed files are checked once
    per run, as on a fresh machine, and never from or into the user's own cache."""
    worker = hasattr(request.config, "workerinput")
    shared = tmp_path_factory.getbasetemp().parent if worker else tmp_path_factory.getbasetemp()
    os.environ["TFPERF_CHECKED_CACHE"] = str(shared / "checked-results-files")
    files.checked_files.cache_clear()      # a memo made while the tests were collected used the default


# The repository the published site's build is told it runs on, as the Actions workflow tells
# it (its address, canonical links and sitemap follow from it).
SITE_REPOSITORY = "someone/tfperf"


@pytest.fixture(scope="session")
def published_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built once from the committed results (data/), with no local results, on the
    repository :data:`SITE_REPOSITORY`: what readers get. Several test files read it;
    building it takes most of a minute. Under pytest-xdist it is built once for all the
    workers of the run: in their shared temporary folder, by the first to take the lock,
    and read by the others (a failed build leaves nothing there, so the next one tries)."""
    worker = hasattr(request.config, "workerinput")
    shared = tmp_path_factory.getbasetemp().parent if worker else tmp_path_factory.getbasetemp()
    out = shared / "published" / "site"
    with locked(shared / "published"):
        if not (out / "index.html").is_file():
            building = shared / "published" / "building"
            shutil.rmtree(building, ignore_errors=True)
            env = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "TFPERF_REPO_URL", "GITHUB_SERVER_URL")}
            env.update({"NO_MKDOCS_2_WARNING": "1", "TFPERF_CACHE": str(ROOT / "build" / "site-cache"),
                        "TFPERF_LOCAL": str(shared / "published" / "no-local-results"),
                        "GITHUB_REPOSITORY": SITE_REPOSITORY})
            proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(building)],
                                  cwd=ROOT, env=env, capture_output=True, text=True, check=False)
            assert proc.returncode == 0, proc.stderr[-3000:]
            building.rename(out)
    return out


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many pytest-xdist workers ``-n auto`` starts (scripts/test, scripts/ci/test.sh):
    TFPERF_TEST_JOBS if set, else one per core this process may run on, at most 4. Many
    tests wait on a child process (a worker, a site build, Chromium), so a second worker
    uses the time the first waits; past 4, each worker's TensorFlow and Chromium cost more
    memory than they save time."""
    jobs = os.environ.get("TFPERF_TEST_JOBS", "")
    if jobs.isdigit():
        return int(jobs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(4, cores)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker (scripts/test runs `-n` workers with `--dist loadfile`: each
    test file on one worker, so its module fixtures are made once), the browser tests, the
    longest, are handed out first (`--no-loadscope-reorder` keeps this order), and the other
    workers take the rest meanwhile."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.get_closest_marker("browser") is None)
