"""The CI scripts on a Windows runner (Git Bash), checked here on Linux: scripts/setup finds
``python`` where ``python3`` is missing or is the Store's stub, and a venv's interpreter at
Scripts/python.exe; env.sh does the same, and hands Python a Windows PYTHONPATH (``;`` between
entries) under MSYS/Cygwin; smoke.sh fails when no case measured. The workflow side (the
Windows cell, line endings) is in test_workflows.py. No TensorFlow, no network."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_ci_support import ROOT, SCRIPTS

BASH = shutil.which("bash") or "bash"
FIXTURE = ROOT / "tests" / "fixtures" / "results" / "valid.json"


def _tool_dir(tmp_path: Path, **scripts: str) -> Path:
    """A folder of small sh scripts (name -> body) plus links to the tools the snippets need."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("cat", "cp", "cut", "dirname", "mkdir", "sha256sum", "env", "tr", "printf"):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    for name, body in scripts.items():
        f = bin_dir / name
        f.write_text("#!/bin/sh\n" + body, encoding="utf-8")
        f.chmod(0o755)
    return bin_dir


def _fake_python(path: Path, log: Path) -> Path:
    """An interpreter that logs its arguments and does nothing else."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> "{log}"\n', encoding="utf-8")
    path.chmod(0o755)
    return path


# ---------------------------------------------------------------- scripts/setup

def _setup_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "setup", project / "scripts" / "setup")
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    return project


# A fake `python -m venv DIR` that makes a Windows venv: DIR/Scripts/python.exe, a copy of the
# script beside the fake python named python.venv.
MAKE_VENV = '[ "$1 $2" = "-m venv" ] && mkdir -p "$3/Scripts" && cp "$0.venv" "$3/Scripts/python.exe"\n'


def _run_setup(project: Path, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BASH, str(project / "scripts" / "setup")], capture_output=True, text=True, timeout=60,
                          check=False, env={"PATH": path, "TFPERF_EXTRAS": "tf", **env})


@pytest.mark.parametrize("python3", [None, "exit 9009\n"], ids=["no python3", "python3 is the Store's stub"])
def test_setup_uses_python_where_python3_does_not_run(tmp_path: Path, python3: str | None) -> None:
    project = _setup_project(tmp_path)
    log = tmp_path / "calls.log"
    tools = {"python": f'echo "python $*" >> "{log}"\n' + MAKE_VENV}
    if python3 is not None:
        tools["python3"] = python3
    bin_dir = _tool_dir(tmp_path, **tools)
    _fake_python(bin_dir / "python.venv", log)
    out = _run_setup(project, str(bin_dir), TFPERF_VENV=str(tmp_path / "venv"))
    assert out.returncode == 0, out.stdout + out.stderr
    calls = log.read_text(encoding="utf-8").splitlines()
    assert f"python -m venv {tmp_path / 'venv'}" in calls, calls
    # Then pip through the Windows venv's interpreter.
    assert all(c.startswith(f"{tmp_path / 'venv' / 'Scripts' / 'python.exe'} -m pip install") for c in calls[-2:])
    assert calls[-1].endswith('-e .[tf]'), calls


def test_setup_takes_python_on_windows_even_beside_a_working_python3(tmp_path: Path) -> None:
    project = _setup_project(tmp_path)
    log = tmp_path / "calls.log"
    bin_dir = _tool_dir(tmp_path, python3=f'echo "python3 $*" >> "{log}"\n',
                        python=f'echo "python $*" >> "{log}"\n' + MAKE_VENV)
    _fake_python(bin_dir / "python.venv", log)
    out = _run_setup(project, str(bin_dir), TFPERF_VENV=str(tmp_path / "venv"), OSTYPE="msys")
    assert out.returncode == 0, out.stdout + out.stderr
    calls = log.read_text(encoding="utf-8")
    assert "python3" not in calls and f"python -m venv {tmp_path / 'venv'}" in calls, calls


def test_setup_reuses_a_windows_venv_and_installs_through_its_interpreter(tmp_path: Path) -> None:
    project = _setup_project(tmp_path)
    log = tmp_path / "calls.log"
    venv = tmp_path / "venv"
    exe = _fake_python(venv / "Scripts" / "python.exe", log)
    bin_dir = _tool_dir(tmp_path, python3=f'echo "python3 $*" >> "{log}"\n')
    out = _run_setup(project, str(bin_dir), TFPERF_VENV=str(venv))
    assert out.returncode == 0, out.stdout + out.stderr
    calls = log.read_text(encoding="utf-8").splitlines()
    assert not [c for c in calls if "-m venv" in c], "the existing venv was created again"
    assert [c.split()[0] for c in calls if "pip install" in c] == [str(exe), str(exe)]
    # A second run with the same pyproject.toml and extras installs nothing (the stamp).
    want = hashlib.sha256((project / "pyproject.toml").read_bytes()).hexdigest()[:16] + " tf"
    assert (venv / ".tfperf-installed").read_text(encoding="utf-8").strip() == want
    log.unlink()
    assert _run_setup(project, str(bin_dir), TFPERF_VENV=str(venv)).returncode == 0
    assert "pip install" not in log.read_text(encoding="utf-8")


def test_setup_names_both_layouts_when_venv_makes_neither(tmp_path: Path) -> None:
    project = _setup_project(tmp_path)
    bin_dir = _tool_dir(tmp_path, python3="exit 0\n")    # "creates" nothing
    out = _run_setup(project, str(bin_dir), TFPERF_VENV=str(tmp_path / "venv"))
    assert out.returncode == 1
    assert "bin/python" in out.stderr and "Scripts/python.exe" in out.stderr


# ---------------------------------------------------------------- env.sh

def _env_sh(tmp_path: Path, venv: Path, prelude: str = "", path: str | None = None) -> subprocess.CompletedProcess[str]:
    script = (f'{prelude}\n. "{SCRIPTS / "env.sh"}"\ntfperf_env tf || exit $?\n'
              'printf "PY=%s\\nPYTHONPATH=%s\\nPATH1=%s\\n" "$PY" "$PYTHONPATH" "${PATH%%:*}"\n')
    env = {"PATH": path or os.environ["PATH"], "TFPERF_VENV": str(venv), "PYTHONPATH": "/already/there"}
    return subprocess.run([BASH, "-c", script], capture_output=True, text=True, timeout=60, env=env, check=False)


def _vars(out: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert out.returncode == 0, out.stderr
    return dict(line.split("=", 1) for line in out.stdout.splitlines())


def test_env_finds_the_interpreter_of_a_posix_venv_first(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _fake_python(venv / "bin" / "python", tmp_path / "log")
    _fake_python(venv / "Scripts" / "python.exe", tmp_path / "log")
    got = _vars(_env_sh(tmp_path, venv))
    assert got["PY"] == f"{venv}/bin/python" and got["PATH1"] == f"{venv}/bin"
    assert got["PYTHONPATH"] == f"{ROOT}/bench:/already/there"


def test_env_uses_a_windows_venv_and_a_windows_pythonpath_under_msys(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _fake_python(venv / "Scripts" / "python.exe", tmp_path / "log")
    # Git Bash's cygpath -w: /c/x/y -> C:\x\y (here: any path -> W:<path with backslashes>)
    bin_dir = _tool_dir(tmp_path, cygpath="[ \"$1\" = -w ] || exit 2\nprintf 'W:%s\\n' \"$2\" | tr / '\\\\'\n")
    got = _vars(_env_sh(tmp_path, venv, prelude="OSTYPE=msys", path=f"{bin_dir}:{os.environ['PATH']}"))
    assert got["PY"] == f"{venv}/Scripts/python.exe" and got["PATH1"] == f"{venv}/Scripts"
    bench = "W:" + f"{ROOT}/bench".replace("/", "\\")
    assert got["PYTHONPATH"] == f"{bench};/already/there", got["PYTHONPATH"]


def test_env_names_both_layouts_when_the_venv_has_no_interpreter(tmp_path: Path) -> None:
    (tmp_path / "venv").mkdir()
    out = _env_sh(tmp_path, tmp_path / "venv")
    assert out.returncode == 1
    assert "bin/python" in out.stderr and "Scripts/python.exe" in out.stderr and "TFPERF_VENV" in out.stderr


# ---------------------------------------------------------------- smoke.sh

def _smoke_venv(tmp_path: Path) -> Path:
    """A venv whose python logs the tfperf calls (``-c``: bench.sh's run, smoke.sh's validate)
    and runs anything else (smoke.sh's summary) with the real interpreter."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text(f'#!/bin/sh\nif [ "$1" = -c ]; then shift 2; echo "$@" >> "{tmp_path}/tfperf.log"; exit 0; fi\n'
                  f'exec "{sys.executable}" "$@"\n', encoding="utf-8")
    py.chmod(0o755)
    return venv


@pytest.mark.parametrize("statuses,ok", [(["failed", "unavailable"], False), (["failed", "ok"], True)],
                         ids=["nothing measured", "one case measured"])
def test_smoke_fails_when_no_case_of_the_quick_profile_measured(tmp_path: Path, statuses: list[str],
                                                               ok: bool) -> None:
    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    results = [dict(doc["results"][i % len(doc["results"])], status=s) for i, s in enumerate(statuses)]
    out_dir = tmp_path / "out"
    f = out_dir / "results" / "smoke-test" / "quick.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({**doc, "results": results}), encoding="utf-8")   # what the run would have left
    env = {**os.environ, "TFPERF_VENV": str(_smoke_venv(tmp_path)), "TFPERF_OUT": str(out_dir),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    out = subprocess.run([str(SCRIPTS / "smoke.sh"), "smoke-test"], capture_output=True, text=True, timeout=120,
                         check=False, env=env)
    calls = (tmp_path / "tfperf.log").read_text(encoding="utf-8").splitlines()
    assert calls[0].startswith("run --profile quick --shard 1/1")
    assert calls[-1] == f"validate {out_dir}/results/smoke-test/quick.json"
    assert f"{len(statuses)} case(s)" in out.stdout
    assert "### Quick profile on smoke-test" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    if ok:
        assert out.returncode == 0, out.stdout + out.stderr
    else:
        assert out.returncode == 1 and "no case of the quick profile measured on smoke-test" in out.stderr
