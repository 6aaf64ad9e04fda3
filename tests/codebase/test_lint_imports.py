"""The stages' import rules as import-linter contracts (``[tool.importlinter]`` in
pyproject.toml, their one home; tests/codebase/test_layers.py checks what they cannot express), run
by the README's test command and so by .ci/run: ``lint-imports`` keeps every contract on the package, and fails, naming the
contract, on a copy of the package with one forbidden import planted.

``lint-imports`` runs from the folder that holds the package (bench/, or the copy's), since
import-linter finds the root package by importing it, with the current folder first on the
path. A missing ``lint-imports`` fails the test (a skip would let CI pass unchecked):
``scripts/setup`` installs it with the test extra."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bench" / "tfperf"
CONFIG = ROOT / "pyproject.toml"

STAGES = "Stages: the CLI over render over measure | analyse over cases over store over the foundation"
RENDER_READS = "render imports neither measure nor cases"
RENDER_ALONE = "Only render and the CLI import render"
FACADE = "Only analyse imports its modules: the others import the package tfperf.analyse"
CLI_TOP = "Nothing imports the CLI"
MEASURED = "Only measure imports TensorFlow, Keras or the runtimes it measures"
ROOT_LEAF = "tfperf/__init__.py imports nothing of the package and nothing measured"
MEASURE_ROLES = "Inside measure: advise over supervise over worker | venvs over envinfo | host_probe"
CONTRACTS = {STAGES, RENDER_READS, RENDER_ALONE, FACADE, CLI_TOP, MEASURED, ROOT_LEAF, MEASURE_ROLES}


def lint_imports(folder: Path, config: Path = CONFIG) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with the project's contracts (or those of ``config``) on the tfperf package in ``folder``."""
    exe = shutil.which("lint-imports", path=sysconfig.get_path("scripts"))
    if exe is None:
        pytest.fail(f"lint-imports is not installed in {sysconfig.get_path('scripts')}: "
                    "run scripts/setup (it installs the test extra)")
    # Wide, plain output, so that a contract's name and an import stay on one line.
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("FORCE_COLOR", None)
    return subprocess.run([exe, "--config", str(config), "--no-cache", "--no-logo"], check=False, cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


def verdicts(out: str) -> dict[str, str]:
    """Each contract's name -> KEPT or BROKEN, from lint-imports' summary lines
    ("<name> KEPT (2 ignored imports)")."""
    return {m["name"]: m["verdict"]
            for m in re.finditer(r"^(?P<name>\S.*?) (?P<verdict>KEPT|BROKEN)(?: \(.*\))?\s*$", out, re.MULTILINE)}


def test_lint_imports_keeps_every_contract() -> None:
    done = lint_imports(ROOT / "bench")
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(done.stdout) == dict.fromkeys(CONTRACTS, "KEPT"), done.stdout


PLANTED = [
    ("store/record_types.py", "import tfperf.render", {STAGES, RENDER_ALONE},
     "tfperf.store.record_types -> tfperf.render"),
    ("analyse/planted.py", "import tensorflow", {MEASURED}, "tfperf.analyse.planted -> tensorflow"),
    ("analyse/records.py", "def f():\n    from ..measure.supervise import rounds\n", {STAGES},
     "tfperf.analyse.records -> tfperf.measure.supervise.rounds"),
    ("render/page/html.py", "from ...measure.worker import timing", {RENDER_READS},
     "tfperf.render.page.html -> tfperf.measure.worker.timing"),
    ("render/page/html.py", "from ...analyse.judge.scenarios import noise_floor", {FACADE},
     "tfperf.render.page.html -> tfperf.analyse.judge.scenarios"),
    # In advise, measure's top role: planted lower, the CLI's own imports of supervise would
    # also break measure's roles (a chain envinfo -> cli -> supervise).
    ("measure/advise/topics.py", "from ... import cli", {STAGES, CLI_TOP},
     "tfperf.measure.advise.topics -> tfperf.cli"),
    ("measure/worker/timing.py", "from ..supervise import rounds", {MEASURE_ROLES},
     "tfperf.measure.worker.timing -> tfperf.measure.supervise.rounds"),
    ("render/page/html.py", "from ...cli import guide", {STAGES, CLI_TOP},
     "tfperf.render.page.html -> tfperf.cli.guide"),
    ("__init__.py", "from . import stats", {ROOT_LEAF}, "tfperf -> tfperf.stats"),
    ("cases/grid.py", "from ..analyse import dataset", {STAGES, FACADE}, "tfperf.cases.grid -> tfperf.analyse.dataset"),
    ("errors.py", "from . import store", {STAGES}, "tfperf.errors -> tfperf.store"),
]


@pytest.mark.parametrize(("file", "code", "broken", "line"), PLANTED, ids=[p[3] for p in PLANTED])
def test_a_planted_forbidden_import_breaks_its_contract(tmp_path: Path, file: str, code: str, broken: set[str],
                                                        line: str) -> None:
    shutil.copytree(PACKAGE, tmp_path / "tfperf", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "tfperf" / file
    target.write_text((target.read_text(encoding="utf-8") if target.exists() else "") + "\n" + code + "\n",
                      encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert {name for name, verdict in verdicts(done.stdout).items() if verdict == "BROKEN"} == broken, done.stdout
    assert line in done.stdout, done.stdout


def test_a_new_module_outside_the_stages_breaks_the_layers(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE, tmp_path / "tfperf", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tfperf" / "helpers.py").write_text('"""A grab-bag module with no stage."""\n', encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert {name for name, verdict in verdicts(done.stdout).items() if verdict == "BROKEN"} == {STAGES}, done.stdout
    assert "The following modules are not listed as layers:\n\n- tfperf.helpers\n" in done.stdout, done.stdout


def test_a_listed_exception_passes_and_one_that_went_fails(tmp_path: Path) -> None:
    """The layers' ignore_imports (none today): a listed import keeps the contract, and one whose
    import has gone fails it, so the list only shrinks."""
    text = CONFIG.read_text(encoding="utf-8")
    assert text.count("\nignore_imports = []\n") == 1, "the layers contract's ignore_imports is no longer empty"
    config = tmp_path / "pyproject.toml"
    config.write_text(text.replace("\nignore_imports = []\n",
                                   '\nignore_imports = ["tfperf.analyse.records -> tfperf.measure.supervise.rounds"]\n'),
                      encoding="utf-8")
    done = lint_imports(ROOT / "bench", config)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "No matches for ignored import tfperf.analyse.records -> tfperf.measure.supervise.rounds." in (
        done.stdout + done.stderr), done.stdout + done.stderr
    shutil.copytree(PACKAGE, tmp_path / "tfperf", ignore=shutil.ignore_patterns("__pycache__"))
    records = tmp_path / "tfperf" / "analyse" / "records.py"      # breaks the layers (a planted test above)
    records.write_text(records.read_text(encoding="utf-8") + "\nfrom ..measure.supervise import rounds\n", encoding="utf-8")
    done = lint_imports(tmp_path, config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(done.stdout) == dict.fromkeys(CONTRACTS, "KEPT"), done.stdout
