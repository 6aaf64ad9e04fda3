"""The notebooks committed in docs/notebooks/ are the ones the site makes from the snippets,
byte for byte: they are what the pages' "Open in Colab" link opens (Colab reads GitHub, not
the site), so a snippet changed without `tfperf notebooks` fails here, naming the file and
the command. No TensorFlow (jupytext only), no network."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tfperf.cli import main
from tfperf.render.page.notebooks import NOTEBOOKS_DIR, project_notebooks, stale_notebooks, topic_notebook

ROOT = Path(__file__).resolve().parents[3]
SNIPPETS = ROOT / "snippets"


def test_the_committed_notebooks_are_the_snippets_notebooks() -> None:
    problems = stale_notebooks(SNIPPETS, ROOT / NOTEBOOKS_DIR)
    assert not problems, ("\n".join(problems) + "\nThe Open in Colab links open these copies: run `tfperf notebooks` "
                          f"(from {ROOT}) and commit {NOTEBOOKS_DIR}/.")


def test_every_topic_has_a_committed_notebook() -> None:
    topics = {p.stem for p in SNIPPETS.glob("*.yaml") if p.with_suffix(".py").is_file()}
    assert topics and set(project_notebooks(SNIPPETS)) == topics
    assert {p.stem for p in (ROOT / NOTEBOOKS_DIR).glob("*.ipynb")} == topics


def test_a_notebook_is_the_same_bytes_every_time_and_names_nothing_of_this_machine() -> None:
    snippet = SNIPPETS / "xla_jit.py"
    first, second = topic_notebook(snippet, "XLA"), topic_notebook(snippet, "XLA")
    assert first == second                                   # nbformat alone draws random cell ids
    assert first.endswith("}\n") and "\r" not in first
    nb = json.loads(first)
    ids = [c["id"] for c in nb["cells"]]
    assert len(set(ids)) == len(ids)
    assert set(nb["metadata"]) == {"kernelspec"}             # no jupytext version, no timestamps
    for machine_specific in (str(ROOT), str(Path.home()), "/tmp/"):
        assert machine_specific not in first


def _copy_project(tmp_path: Path) -> tuple[Path, Path]:
    snippets = tmp_path / "snippets"
    shutil.copytree(SNIPPETS, snippets, ignore=shutil.ignore_patterns("__pycache__"))
    return snippets, tmp_path / "docs" / "notebooks"


def test_a_changed_snippet_fails_the_check_until_the_command_is_run(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    snippets, out = _copy_project(tmp_path)
    args = ["notebooks", "--snippets", str(snippets), "--out", str(out)]
    assert main(args) == 0
    written = capsys.readouterr().out
    assert written.count("wrote ") == len(list(snippets.glob("*.yaml")))
    assert main([*args, "--check"]) == 0
    before = {p.name: p.read_bytes() for p in out.glob("*.ipynb")}

    xla = snippets / "xla_jit.py"
    xla.write_text(xla.read_text(encoding="utf-8") + "\n# a reader's note\n", encoding="utf-8")
    (out / "gone_topic.ipynb").write_text("{}", encoding="utf-8")
    capsys.readouterr()
    assert main([*args, "--check"]) == 1
    err = capsys.readouterr().err
    assert f"{out / 'xla_jit.ipynb'}: out of date with {snippets / 'xla_jit.py'}" in err
    assert f"{out / 'gone_topic.ipynb'}: no topic 'gone_topic'" in err
    assert "run `tfperf notebooks`" in err
    assert "predict_vs_call" not in err

    assert main(args) == 0
    report = capsys.readouterr().out
    assert f"wrote {out / 'xla_jit.ipynb'}" in report and f"removed {out / 'gone_topic.ipynb'}" in report
    assert report.count("wrote ") == 1                      # the others are untouched
    assert main([*args, "--check"]) == 0
    after = {p.name: p.read_bytes() for p in out.glob("*.ipynb")}
    assert set(after) == set(before)
    assert [n for n in after if after[n] != before[n]] == ["xla_jit.ipynb"]
    old, new = (json.loads(b) for b in (before["xla_jit.ipynb"], after["xla_jit.ipynb"]))
    old_ids, new_ids = [c["id"] for c in old["cells"]], [c["id"] for c in new["cells"]]
    assert old_ids != new_ids and old_ids[:-1] == new_ids[:len(old_ids) - 1]   # the cells before the edit keep theirs


def test_a_missing_notebook_is_named(tmp_path: Path) -> None:
    snippets, out = _copy_project(tmp_path)
    out.mkdir(parents=True)
    problems = stale_notebooks(snippets, out)
    assert f"{out / 'train_step.ipynb'}: missing (the notebook of {snippets / 'train_step.py'})" in problems
