"""The venvs of ``tfperf run --tf VERSION`` (tfperf.measure.venvs), with a fake pip: the
commands are recorded and answered without installing anything."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import tomllib

from tfperf import cli
from tfperf.measure import venvs

ROOT = Path(__file__).resolve().parents[2]


class FakeCommands:
    """Answers ``python -m venv DIR`` by making the folders, and ``pip install REQ...`` by
    writing a dist-info for each pinned requirement, unless ``refuse(reqs)`` returns pip's
    complaint for that command."""

    def __init__(self, refuse: Callable[[list[str]], str | None] = lambda reqs: None) -> None:
        self.calls: list[list[str]] = []
        self.refuse = refuse

    def __call__(self, argv: list[str]) -> tuple[int, str]:
        self.calls.append(argv)
        if argv[1:3] == ["-m", "venv"]:
            venv = Path(argv[3])
            (venv / "bin").mkdir(parents=True)
            (venv / "bin" / "python").write_text("")
            (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
            return 0, ""
        args = argv[argv.index("install") + 1:]
        reqs = [a for i, a in enumerate(args) if not a.startswith("-") and args[i - 1] != "--find-links"]
        complaint = self.refuse(reqs)
        if complaint:
            return 1, f"Collecting things\nERROR: {complaint}\n"
        site = Path(argv[0]).parents[1] / "lib" / "python3.11" / "site-packages"
        for req in reqs:
            name, _, version = req.split(";")[0].strip().partition("==")
            name, version = re.split(r"[<>=!~]", name)[0], version or "0"
            info = site / f"{name.replace('-', '_')}-{version}.dist-info"
            info.mkdir(exist_ok=True)
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        return 0, "Successfully installed"

    @property
    def pip_calls(self) -> list[list[str]]:
        return [c for c in self.calls if "pip" in c]


@pytest.fixture(autouse=True)
def _no_wheels(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(venvs.WHEELS_ENV, str(tmp_path / "no-wheels"))


def test_venv_named_by_version_and_reused_without_pip(tmp_path: Path) -> None:
    fake = FakeCommands()
    first = venvs.ensure("2.15.1", tmp_path, run=fake, log=lambda m: None)
    assert first.created and first.python == tmp_path / "tf-2.15.1" / "bin" / "python"
    assert first.stamp["installed"]["tensorflow-cpu"] == "2.15.1"
    assert fake.pip_calls and all("--only-binary=:all:" in c for c in fake.pip_calls)
    fake.calls.clear()
    again = venvs.ensure("2.15.1", tmp_path, run=fake, log=lambda m: None)
    assert not again.created and fake.calls == []
    assert again.site_packages == [str(tmp_path / "tf-2.15.1" / "lib" / "python3.11" / "site-packages")]


def test_changed_recipe_rebuilds(tmp_path: Path) -> None:
    fake = FakeCommands()
    venvs.ensure("2.15.1", tmp_path, run=fake, log=lambda m: None)
    stamp_path = tmp_path / "tf-2.15.1" / venvs.STAMP
    stamp = json.loads(stamp_path.read_text())
    stamp_path.write_text(json.dumps({**stamp, "recipe_hash": "an-older-recipe"}))
    (tmp_path / "tf-2.15.1" / "left-over").write_text("")
    fake.calls.clear()
    rebuilt = venvs.ensure("2.15.1", tmp_path, run=fake, log=lambda m: None)
    assert rebuilt.created and fake.calls[0][1:3] == ["-m", "venv"]
    assert not (tmp_path / "tf-2.15.1" / "left-over").exists()


def test_the_worker_gets_what_it_imports_at_the_harness_version(tmp_path: Path) -> None:
    """The worker imports psutil (tfperf.measure.envinfo): each release's venv gets the version
    installed beside tfperf, without its dependencies, and a venv that cannot have it fails."""
    from importlib import metadata

    want = f"psutil=={metadata.version('psutil')}"
    assert venvs.recipe_for("2.13.1").harness == (want,)
    fake = FakeCommands()
    made = venvs.ensure("2.13.1", tmp_path, run=fake, log=lambda m: None)
    assert made.stamp["installed"]["psutil"] == metadata.version("psutil")
    assert any(c[-1] == want and "--no-deps" in c for c in fake.pip_calls)
    refused = FakeCommands(lambda reqs: "No matching distribution found for psutil" if want in reqs else None)
    with pytest.raises(venvs.VenvError, match=r"(?s)TensorFlow 2\.14\.1: pip could not install what the worker imports"):
        venvs.ensure("2.14.1", tmp_path, run=refused, log=lambda m: None)
    assert not (tmp_path / "tf-2.14.1").exists()


def test_venv_without_stamp_is_not_ready(tmp_path: Path) -> None:
    """A creation that stopped half-way (no stamp) is built again, not used."""
    (tmp_path / "tf-2.14.1" / "bin").mkdir(parents=True)
    (tmp_path / "tf-2.14.1" / "bin" / "python").write_text("")
    assert not venvs.is_ready(tmp_path / "tf-2.14.1", venvs.recipe_for("2.14.1"))
    fake = FakeCommands()
    assert venvs.ensure("2.14.1", tmp_path, run=fake, log=lambda m: None).created


def test_failed_pip_names_version_and_reason_and_leaves_nothing(tmp_path: Path) -> None:
    fake = FakeCommands(lambda reqs: "No matching distribution found for tensorflow-cpu==2.11.9"
                        if "tensorflow-cpu==2.11.9" in reqs else None)
    with pytest.raises(venvs.VenvError, match=r"(?s)TensorFlow 2\.11\.9.*No matching distribution found"):
        venvs.ensure("2.11.9", tmp_path, run=fake, log=lambda m: None)
    assert not (tmp_path / "tf-2.11.9").exists()
    assert not venvs.is_ready(tmp_path / "tf-2.11.9", venvs.recipe_for("2.11.9"))


def test_runtime_that_does_not_install_is_recorded(tmp_path: Path) -> None:
    """TensorFlow and the runtimes in one resolve first; when that fails, TensorFlow alone,
    then each runtime beside it; pip's reason is kept for the one that still fails."""
    fake = FakeCommands(lambda reqs: "onnxruntime 1.31.1 requires numpy>=1.26"
                        if "onnxruntime==1.31.1" in reqs else None)
    venv = venvs.ensure("2.12.1", tmp_path, run=fake, log=lambda m: None)
    assert list(venv.stamp["not_installed"]) == ["onnxruntime"]
    assert "requires numpy>=1.26" in venv.stamp["not_installed"]["onnxruntime"]
    assert {"tf2onnx", "tensorflow-cpu"} <= set(venv.stamp["installed"])
    assert [c[-1] for c in fake.pip_calls][:2] == ["onnxruntime==1.31.1", "tensorflow-cpu==2.12.1"]


def test_tf_keras_without_its_dependencies_from_2_15(tmp_path: Path) -> None:
    assert venvs.recipe_for("2.14.1").tf_keras is None
    assert venvs.recipe_for("2.15.1").tf_keras == "2.15.1"
    assert venvs.recipe_for("2.20.0").tf_keras == "2.20.1"
    fake = FakeCommands()
    venv = venvs.ensure("2.16.2", tmp_path, run=fake, log=lambda m: None)
    keras_call = next(c for c in fake.pip_calls if "tf-keras==2.16.0" in c)
    assert "--no-deps" in keras_call and not any(a.startswith("tensorflow") for a in keras_call)
    assert venv.stamp["recipe"]["tf_keras"] == "2.16.0"
    with pytest.raises(venvs.VenvError, match="no tf-keras release for 2.99"):
        venvs.recipe_for("2.99.0")


def test_find_links_only_when_the_wheels_are_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeCommands()
    venvs.ensure("2.13.1", tmp_path / "a", run=fake, log=lambda m: None)
    assert not any("--find-links" in c for c in fake.pip_calls)
    (tmp_path / "wheels" / "2.13.1").mkdir(parents=True)
    monkeypatch.setenv(venvs.WHEELS_ENV, str(tmp_path / "wheels"))
    fake = FakeCommands()
    venvs.ensure("2.13.1", tmp_path / "b", run=fake, log=lambda m: None)
    assert all(str(tmp_path / "wheels" / "2.13.1") in c for c in fake.pip_calls)


def test_no_venv_without_tf_or_for_the_installed_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's commands (no --tf) and --tf with the TensorFlow installed here use this
    interpreter: no venv, no pip."""
    monkeypatch.setattr(venvs, "project_tensorflow", lambda: "2.21.0")
    fake = FakeCommands()
    assert venvs.interpreter(None, tmp_path, run=fake) is None
    assert venvs.interpreter("2.21.0", tmp_path, run=fake) is None
    assert fake.calls == [] and not any(tmp_path.iterdir())
    with pytest.raises(venvs.VenvError, match="expected a full TensorFlow release"):
        venvs.interpreter("2.15", tmp_path, run=fake)


def test_runtimes_are_the_projects(tmp_path: Path) -> None:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["tf"]
    names = {venvs.requirement_name(r) for r in extra}
    assert set(venvs.RUNTIMES) == {r for r in extra if venvs.requirement_name(r) in names - {"tensorflow", "tf-keras"}}


def test_venv_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeCommands(lambda reqs: "no wheel for this platform" if any("ai-edge-litert" in r for r in reqs) else None)
    monkeypatch.setattr(venvs, "run_command", fake)
    monkeypatch.setattr(venvs, "project_tensorflow", lambda: "2.21.0")
    assert cli.main(["venv", "2.17.1", "2.21.0", "--venvs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "TensorFlow 2.17.1:" in out and "runtimes not installed: ai-edge-litert" in out
    assert "TensorFlow 2.21.0: the TensorFlow installed here" in out
    assert cli.main(["venv", "2.17.1", "--venvs", str(tmp_path)]) == 0
    assert "ready (reused)" in capsys.readouterr().out


def test_onnx_is_held_below_1_18_where_tensorflow_pins_an_old_ml_dtypes() -> None:
    """TF 2.14-2.17 pin ml_dtypes < 0.5; onnx 1.18+ needs 0.5 without declaring it, so
    tf2onnx would install and then fail to import (measured: AttributeError float4_e2m1fn)."""
    assert venvs.ONNX_FOR_OLD_ML_DTYPES not in venvs.recipe_for("2.13.1").runtimes
    for v in ("2.14.1", "2.15.1", "2.16.2", "2.17.1"):
        assert venvs.ONNX_FOR_OLD_ML_DTYPES in venvs.recipe_for(v).runtimes, v
    assert venvs.ONNX_FOR_OLD_ML_DTYPES not in venvs.recipe_for("2.18.1").runtimes
