"""CI installs exactly a hashed lock: every job that installs Python packages names
one in TFPERF_LOCK (scripts/ci/env.sh installs it with pip --require-hashes --only-binary=:all:
--no-deps), the lock of the extras it installs; each lock pins every package with == and its
sha256 hashes, covers every dependency of its extras at the version pyproject.toml pins, was
made for the workflows' Python and checked for wheels on each platform its jobs run on
(scripts/ci/lock-requirements.sh's table); its file matches the pip cache keys' glob. And the
locked venv is made with ``python`` on Windows. No network: the locks are read as text."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.version import Version
from test_ci_support import ROOT, SCRIPTS
from test_workflows import runs_on

WORKFLOW_DIR = ROOT / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml"))
LOCK_SCRIPT = SCRIPTS / "lock-requirements.sh"
MERGE_LOCK = "scripts/ci/merge-requirements.txt"          # pip-compile, runtime dependencies only
CACHE_GLOB = "scripts/ci/*-requirements.txt"              # what the pip cache keys hash

# Jobs that install Python packages beyond their lock, and why that is right.
ALSO_UNLOCKED: dict[tuple[str, str], str] = {
    ("bench.yml", "history"): "besides its locked .venv, `tfperf run --tf RELEASE` builds .venvs/tf-RELEASE with "
                              "pip (tfperf/measure/venvs.py): an older TensorFlow and what that release "
                              "requires is the subject of the measurement, and each result records its versions",
}

# The runner image (or self-hosted) of a job -> the platform lock-requirements.sh checks wheels for.
# The self-hosted GPU runner is taken to be x86-64 Linux (scripts/ci/README.md says so).
PLATFORM_OF_RUNNER = {
    "ubuntu-24.04": "x86_64-unknown-linux-gnu",
    "ubuntu-24.04-arm": "aarch64-unknown-linux-gnu",
    "macos-15": "aarch64-apple-darwin",
    "windows-2025": "x86_64-pc-windows-msvc",
    "self-hosted": "x86_64-unknown-linux-gnu",
}

REQ_LINE = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)==(?P<version>[^\s;\\]+)(?: ; (?P<marker>[^\\]+?))? \\$")
HASH_LINE = re.compile(r"^    --hash=sha256:[0-9a-f]{64}(?: \\)?$")


def load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), path
    return doc


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_table() -> dict[str, tuple[list[str], list[str]]]:
    """lock-requirements.sh's table: lock file -> (extras, platforms)."""
    text = LOCK_SCRIPT.read_text(encoding="utf-8")
    m = re.search(r'^LOCKS="\n(.*?)^"$', text, re.MULTILINE | re.DOTALL)
    assert m, "lock-requirements.sh has no LOCKS table"
    table = {}
    for line in m[1].splitlines():
        if line.strip():
            lock, extras, *platforms = line.split()
            table[f"scripts/ci/{lock}"] = (extras.split(","), platforms)
    return table


def parse_lock(text: str, where: str) -> dict[str, list[tuple[str, str | None]]]:
    """name -> [(version, marker)]: every line a requirement (``name==version [; marker] \\``),
    one of its ``--hash=sha256:`` lines, an annotation or a comment; each requirement hashed."""
    pins: dict[str, list[tuple[str, str | None]]] = {}
    hashes: dict[str, int] = {}
    current = None
    for n, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#") or line.lstrip().startswith("# "):
            continue
        if m := REQ_LINE.match(line):
            current = f"{canon(m['name'])}=={m['version']} ; {m['marker']}"
            pins.setdefault(canon(m["name"]), []).append((m["version"], m["marker"]))
            hashes[current] = 0
            continue
        assert HASH_LINE.match(line) and current, f"{where}:{n}: not a pinned requirement or its hash: {line!r}"
        hashes[current] += 1
    unhashed = [r for r, k in hashes.items() if k == 0]
    assert pins and not unhashed, f"{where}: requirements without a --hash=sha256: {unhashed}"
    return pins


def installing_jobs() -> list[tuple[str, str, dict[str, Any]]]:
    """(workflow, job, env) of each job with a step that installs Python packages: a scripts/ci
    script that calls tfperf_env (itself or through bench.sh)."""
    out = []
    for path in WORKFLOWS:
        wf = load(path)
        for name, job in wf["jobs"].items():
            scripts = [re.match(r"scripts/ci/([\w-]+\.sh)", s["run"].strip()) for s in job.get("steps", []) if "run" in s]
            if any(m and installs(m[1]) for m in scripts):
                out.append((path.name, name, {**wf.get("env", {}), **job.get("env", {})}))
    return out


def installs(script: str) -> bool:
    text = (SCRIPTS / script).read_text(encoding="utf-8")
    return bool(re.search(r"^\s*tfperf_env ", text, re.MULTILINE)) or "bench.sh" in text and script != "bench.sh"


def test_every_job_that_installs_python_packages_installs_the_lock_of_its_extras() -> None:
    jobs = installing_jobs()
    assert {(w, j) for w, j, _ in jobs} >= {("tests.yml", "test"), ("tests.yml", "smoke"), ("bench.yml", "bench"),
                                            ("pages.yml", "build"), ("merge-results.yml", "merge")}, jobs
    table = lock_table()
    for wf, job, env in jobs:
        lock = env.get("TFPERF_LOCK")
        assert lock, f"{wf}: job {job} installs Python packages but sets no TFPERF_LOCK"
        assert (ROOT / lock).is_file(), f"{wf}: job {job}: {lock} does not exist"
        if lock == MERGE_LOCK:
            continue   # the merge job: tfperf's runtime dependencies only (test_workflows.py)
        extras = table.get(lock, ([], []))[0]
        assert lock in table and sorted(extras) == sorted(env["TFPERF_EXTRAS"].split(",")), \
            f"{wf}: job {job}: TFPERF_EXTRAS {env.get('TFPERF_EXTRAS')} but TFPERF_LOCK {lock} locks {extras}"
        assert ("TFPERF_TF" in env) == ((wf, job) in ALSO_UNLOCKED), f"{wf}: job {job}: list it in ALSO_UNLOCKED"


def test_only_env_sh_installs_and_the_tfperf_command_is_the_shell_function() -> None:
    """No script of scripts/ci runs pip or scripts/setup itself (env.sh does, on TFPERF_LOCK's
    or TFPERF_VENV's terms), and none runs a `tfperf` console script: the locked venv has none
    (tfperf runs from bench/), so `tfperf` is env.sh's function."""
    for script in sorted(SCRIPTS.glob("*.sh")):
        text = script.read_text(encoding="utf-8")
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        # lock-requirements.sh and act.sh install their tools (uv, act) into throwaway venvs.
        if script.name not in ("env.sh", "lock-requirements.sh", "act.sh"):
            assert "pip install" not in code and "scripts/setup" not in code, f"{script.name} installs by itself"
        assert not re.search(r"bin/tfperf|Scripts/tfperf|command tfperf", code), f"{script.name} runs a tfperf executable"
        if re.search(r"^\s*(?:exec\s+)?tfperf ", code, re.MULTILINE):
            assert 'env.sh"' in code, f"{script.name} calls tfperf without env.sh's function"
    for path in WORKFLOWS:
        assert "bin/tfperf" not in path.read_text(encoding="utf-8"), path.name


LOCKS = sorted(str(p.relative_to(ROOT)) for p in SCRIPTS.glob("*requirements*.txt"))


@pytest.mark.parametrize("lock", LOCKS)
def test_each_lock_pins_every_package_with_its_hashes_and_matches_the_cache_glob(lock: str) -> None:
    assert fnmatch.fnmatch(lock, CACHE_GLOB), f"{lock}: the pip cache keys hash {CACHE_GLOB} only"
    pins = parse_lock((ROOT / lock).read_text(encoding="utf-8"), lock)
    for name, versions in pins.items():
        assert len(versions) == 1 or all(marker for _, marker in versions), \
            f"{lock}: {name} is pinned twice for one platform: {versions}"


@pytest.mark.parametrize("lock", [MERGE_LOCK, *sorted(lock_table())])
def test_each_lock_covers_its_extras_at_the_versions_pyproject_pins(lock: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = [] if lock == MERGE_LOCK else lock_table()[lock][0]
    wanted = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    pins = parse_lock((ROOT / lock).read_text(encoding="utf-8"), lock)
    for req in wanted:
        assert canon(req.name) in pins, f"{lock}: {req} is a dependency of tfperf[{','.join(extras)}] but not locked"
        for version, _ in pins[canon(req.name)]:
            assert req.specifier.contains(Version(version), prereleases=True), \
                f"{lock}: {req.name}=={version} does not satisfy pyproject.toml's {req}: run {LOCK_SCRIPT.name}"


def test_the_locks_are_for_the_workflows_python_and_every_platform_their_jobs_run_on() -> None:
    text = LOCK_SCRIPT.read_text(encoding="utf-8")
    m = re.search(r"^PYTHON_VERSION=(\S+)$", text, re.MULTILINE)
    assert m
    for path in WORKFLOWS:
        for where in [load(path).get("env", {}), *[j.get("env", {}) for j in load(path)["jobs"].values()]]:
            if "PYTHON_VERSION" in where:
                assert where["PYTHON_VERSION"] == m[1], f"{path.name}: Python {where['PYTHON_VERSION']}, locks for {m[1]}"
    table = lock_table()
    for lock in table:
        assert f"for Python {m[1]}" in (ROOT / lock).read_text(encoding="utf-8"), f"{lock}: made for another Python?"
    for wf, job, env in installing_jobs():
        if env.get("TFPERF_LOCK") in (None, MERGE_LOCK):
            continue   # none: the first test says so; the merge job's lock is pip-compile's, for its Linux runner
        for labels in runs_on(load(WORKFLOW_DIR / wf)["jobs"][job]):
            label = "self-hosted" if "self-hosted" in labels else labels[0]
            assert label in PLATFORM_OF_RUNNER, f"{wf}: job {job} runs on {label}: add its platform here and to the lock"
            assert PLATFORM_OF_RUNNER[label] in table[env["TFPERF_LOCK"]][1], \
                f"{wf}: job {job} runs on {label}, but {env['TFPERF_LOCK']} is not checked for {PLATFORM_OF_RUNNER[label]}"


@pytest.mark.parametrize("lock", sorted(lock_table()))
def test_each_lock_says_why_it_exists_and_how_to_make_it_again(lock: str) -> None:
    head = "\n".join(line for line in (ROOT / lock).read_text(encoding="utf-8").splitlines() if line.startswith("#"))
    assert "TFPERF_LOCK" in head and "--require-hashes" in head, f"{lock}: the header does not say what it is for"
    assert f"scripts/ci/lock-requirements.sh {lock}" in head, f"{lock}: the header does not say how to regenerate it"
    extras = lock_table()[lock][0]
    assert "uv pip compile --universal --generate-hashes" in head and all(f"--extra {e}" in head for e in extras), lock


def test_a_checker_that_misses_a_hash_or_a_pin_fails() -> None:
    good = "a==1 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via x\n"
    assert parse_lock(good, "good") == {"a": [("1", None)]}
    with pytest.raises(AssertionError, match="without a --hash"):
        parse_lock("a==1 \\\n    # via x\n", "bad")
    with pytest.raises(AssertionError, match="not a pinned requirement"):
        parse_lock(good + "b>=2\n", "bad")


def test_the_locked_venv_is_made_with_python_on_windows(tmp_path: Path) -> None:
    """Git Bash on the Windows smoke cell: setup-python gives `python`, and a `python3` there may
    be the Store's stub; env.sh makes the locked venv as scripts/setup would."""
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    (repo / "scripts" / "ci" / "env.sh").write_text((SCRIPTS / "env.sh").read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "scripts" / "ci" / "lock.txt").write_text("x==1 \\\n    --hash=sha256:00\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    # `python -m venv DIR` makes DIR/Scripts/python.exe, which logs what it is asked to do.
    (bin_dir / "python").write_text(
        f'#!/bin/sh\necho "python $*" >> "{log}"\nmkdir -p "$3/Scripts"\n'
        f'printf \'#!/bin/sh\\necho "venv $*" >> "{log}"\\n\' > "$3/Scripts/python.exe"\nchmod +x "$3/Scripts/python.exe"\n',
        encoding="utf-8")
    (bin_dir / "python3").write_text(f'#!/bin/sh\necho "python3 $*" >> "{log}"\n', encoding="utf-8")
    (bin_dir / "cygpath").write_text('#!/bin/sh\nprintf "%s\\n" "$2"\n', encoding="utf-8")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    script = f'OSTYPE=msys; . "{repo}/scripts/ci/env.sh"; tfperf_env tf && echo "PY=$PY"'
    out = subprocess.run(["bash", "-c", script], check=False, capture_output=True, text=True, timeout=60,
                         env={"PATH": f"{bin_dir}:{os.environ['PATH']}", "TFPERF_LOCK": "scripts/ci/lock.txt"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith(f"PY={repo}/.venv/Scripts/python.exe")
    calls = log.read_text(encoding="utf-8").splitlines()
    assert calls == [f"python -m venv {repo}/.venv",
                     ("venv -m pip install --quiet --require-hashes --only-binary=:all: --no-deps "
                     f"-r {repo}/scripts/ci/lock.txt")], calls
