"""``tfperf advise`` with real TensorFlow, at tiny sizes (under a minute): models it did not
ship with (tests/advise_models.py) read by the probe, the bad ones refused in one line each,
and one question measured end to end on a functional model with two outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfperf import cli
from tfperf.measure.advise.model import AdviseError, check_model_path, probe

pytestmark = pytest.mark.tf

TESTS = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("advise-models")
    subprocess.run([sys.executable, str(TESTS / "advise_models.py"), str(folder)], check=True, capture_output=True,
                   env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"}, timeout=300)
    return folder


@pytest.mark.parametrize(("name", "problem"), [
    ("two_inputs.keras", "a model with several inputs (a, b): tfperf advise measures models of one input"),
    ("dynamic.keras", "its input 'sequence' has shape (None, None, 8): a dimension besides the batch is not fixed"),
    ("raises_savedmodel", ("calling the model on a batch of 1 of shape (1, 4) float32 raised InvalidArgumentError: "
                           "assertion failed: [this model refuses every input]")),
])
def test_the_probe_refuses_a_model_it_cannot_measure_in_one_line(models: Path, name: str, problem: str) -> None:
    with pytest.raises(AdviseError) as exc:
        probe(check_model_path(str(models / name)), None, None, [4])
    assert str(exc.value).startswith(f"{models / name}: {problem}"), str(exc.value)
    assert "\n" not in str(exc.value)


def test_the_probe_reads_a_saved_model_and_takes_a_given_shape(models: Path) -> None:
    spec = probe(check_model_path(str(models / "convnet_savedmodel")), None, None, [4])
    assert (spec.shape, spec.dtype, spec.outputs) == ((16, 16, 3), "float32", ((1, 5),))
    spec = probe(check_model_path(str(models / "dynamic.keras")), (12, 8), None, [4])
    assert spec.shape == (12, 8) and spec.input_name == "sequence"


def test_advise_measures_a_two_output_model(models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    status = cli.main(["advise", str(models / "two_outputs.keras"), "--topic", "advise_predict", "--batch", "4",
                       "--budget", "8", "--out", str(out), "--no-progress"])
    got = capsys.readouterr()
    assert status == 0, got.err
    assert "one input 'features' of 20 float32, 2 outputs" in got.out
    assert "Q: Your code calls model.predict(x): what should it call instead?" in got.out
    data = json.loads((out / "answers.json").read_text())
    claims = [c for q in data["questions"] for c in q["claims"]]
    assert len(claims) == 6 and all(c["finding"] in ("faster", "slower", "the same", "unclear") for c in claims)
    assert not data["failed"] and not data["wrong_output"]      # both outputs checked against model(x)
