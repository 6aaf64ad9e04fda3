"""``tfperf advise`` without TensorFlow: the model path's checks, the options, the probe's
answer, the generated topics (loaded by the guide's own loader), the budget and Ctrl-C of
the session, and the command end to end with the probe faked and the fake worker measuring
(tests/fake_worker.py). Every bad input is one line naming the path, never a traceback."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from tfperf import cli
from tfperf.cases import expand, load
from tfperf.cli.guide import DEFAULT_BUDGET_S
from tfperf.measure.advise import model as probe_mod
from tfperf.measure.advise import topics as session_mod
from tfperf.measure.advise.model import (
    AdviseError,
    ModelFile,
    ModelSpec,
    answer,
    check_dtype,
    check_model_path,
    parse_shape,
)
from tfperf.measure.advise.topics import ROUNDS_SHARE, ROUNDS_USED, WORKER_IMPORTS, generate
from tfperf.measure.supervise.orchestrate import Report, RunOptions

TESTS = Path(__file__).resolve().parents[2]
BENCH = TESTS.parent / "bench"
RUNNER = "test-advise-x86_64"


def keras_file(path: Path) -> Path:
    """A file that passes for a .keras file on the file system (a zip holding config.json)."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("config.json", "{}")
    return path


def spec_for(path: Path) -> ModelSpec:
    return ModelSpec(ModelFile(path, "keras", "0123456789abcdef"), "image", (8, 8, 3), "float32", ((1, 5),),
                     weights=1234)


def one_error_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("tfperf: error:")]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in err, err
    return errors[0]


# -- the path and the options ------------------------------------------------------------------

def test_a_missing_path_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.keras"
    assert one_error_line(capsys, ["advise", str(missing)]) == f"tfperf: error: {missing}: no such file or directory"


@pytest.mark.parametrize(("name", "content", "problem"), [
    ("notes.keras", b"hello", "not a Keras model file"),
    ("model.h5", b"\x89HDF", "a legacy HDF5 model"),
    ("empty.keras", b"", "not a Keras model file"),
])
def test_a_file_that_is_not_a_model_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                                content: bytes, problem: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    line = one_error_line(capsys, ["advise", str(path)])
    assert line.startswith(f"tfperf: error: {path}: {problem}"), line


def test_a_zip_without_config_is_not_a_keras_model(tmp_path: Path) -> None:
    path = tmp_path / "weights.keras"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("model.weights.h5", "x")
    with pytest.raises(AdviseError, match="not a Keras model file"):
        check_model_path(str(path))


def test_a_directory_must_hold_a_saved_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_error_line(capsys, ["advise", str(tmp_path)])
    assert f"{tmp_path}: a directory, but not a SavedModel (no saved_model.pb in it)" in line
    (tmp_path / "saved_model.pb").write_bytes(b"proto")
    got = check_model_path(str(tmp_path))
    assert got.kind == "saved_model" and len(got.fingerprint) == 16


def test_a_keras_file_is_recognised_and_named(tmp_path: Path) -> None:
    got = check_model_path(str(keras_file(tmp_path / "my convnet!.keras")))
    assert got.kind == "keras" and got.path.is_absolute()
    assert got.name == "my_convnet_"


@pytest.mark.parametrize(("text", "dims"), [("32,32,3", (32, 32, 3)), ("(12, 8)", (12, 8)), ("32x32x3", (32, 32, 3)),
                                            ("20", (20,)), ("(20,)", (20,))])
def test_input_shapes_are_read(text: str, dims: tuple[int, ...]) -> None:
    assert parse_shape(text) == dims


@pytest.mark.parametrize("text", ["", "a,b", "0,3", "-1", "32,,x"])
def test_bad_input_shapes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    model = keras_file(tmp_path / "m.keras")
    line = one_error_line(capsys, ["advise", str(model), "--input-shape", text])
    assert line.startswith("tfperf: error: --input-shape: "), line


def test_a_bad_dtype_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = keras_file(tmp_path / "m.keras")
    line = one_error_line(capsys, ["advise", str(model), "--dtype", "float8"])
    assert line.startswith("tfperf: error: --dtype: 'float8' is not one of float32"), line
    assert check_dtype("int32") == "int32"


# -- the probe's answer ------------------------------------------------------------------------

def test_the_probe_answer_becomes_a_spec(tmp_path: Path) -> None:
    model = ModelFile(tmp_path / "m.keras", "keras", "f" * 16)
    line = "PROBE " + json.dumps({"input": {"name": "image", "shape": [8, 8, 3], "dtype": "float32"},
                                  "outputs": [[1, 5], [1, 1]], "int_high": 50, "params": 1477,
                                  "load_s": 0.5, "call_s": {"1": 0.1}})
    spec = answer(model, "TensorFlow says hello\n" + line + "\n", "", 0)
    assert spec.shape == (8, 8, 3) and spec.outputs == ((1, 5), (1, 1)) and spec.int_high == 50
    assert spec.describe() == "one input 'image' of 8x8x3 float32, 2 outputs, 1,477 weights"


def test_a_problem_the_probe_found_is_one_line_naming_the_path(tmp_path: Path) -> None:
    model = ModelFile(tmp_path / "m.keras", "keras", "f" * 16)
    with pytest.raises(AdviseError) as exc:
        answer(model, 'PROBE {"problem": "a model with several inputs (a, b): tfperf advise measures models of one input"}\n',
               "", 0)
    assert str(exc.value) == f"{model.path}: a model with several inputs (a, b): tfperf advise measures models of one input"


def test_a_probe_that_dies_is_one_line_with_its_last_words(tmp_path: Path) -> None:
    model = ModelFile(tmp_path / "m.keras", "keras", "f" * 16)
    with pytest.raises(AdviseError) as exc:
        answer(model, "", "Traceback (most recent call last):\n  ...\nMemoryError: out of memory\n", -9)
    assert "\n" not in str(exc.value)
    assert str(exc.value).endswith("ended without an answer (MemoryError: out of memory)")


def test_the_probe_runs_a_fresh_process_and_reads_its_line(tmp_path: Path) -> None:
    """The whole round trip, with a stand-in for Python that answers as the probe worker would."""
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\ncat > /dev/null\n"
                    "echo 'PROBE {\"problem\": \"calling the model on a batch of 1 raised ValueError: boom\"}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    model = ModelFile(tmp_path / "m.keras", "keras", "f" * 16)
    with pytest.raises(AdviseError, match="calling the model on a batch of 1 raised ValueError: boom"):
        probe_mod.probe(model, None, None, [1, 8], python=str(fake))


# -- the generated topics ----------------------------------------------------------------------

def test_the_generated_topics_load_as_the_guides_do(tmp_path: Path) -> None:
    spec = spec_for(keras_file(tmp_path / "m.keras"))
    topics = generate(spec, tmp_path / "topics", [1, 16], 120.0, runtimes=("tflite",))
    assert [t.name for t in topics] == ["advise_predict", "advise_xla", "advise_serving", "advise_threads"]
    config = json.loads((tmp_path / "topics" / "advise_model.json").read_text())
    assert config["input"] == {"name": "image", "shape": [8, 8, 3], "dtype": "float32"}
    loaded = {t.name: load(t.path) for t in topics}
    serving = loaded["advise_serving"]
    assert set(serving.variants) == {"tf_function", "saved_model", "tflite", "tflite_plain"}   # no ONNX here
    assert all(c["expect"] == "none" for c in serving.claims)
    cases = expand(loaded["advise_threads"], "quick", cores=2)
    assert sorted({c.settings_id for c in cases}) == ["onednn=0,threads=default", "onednn=1,threads=1",
                                                      "onednn=1,threads=default"]
    predict = expand(loaded["advise_predict"], "quick", cores=2)
    assert sorted({int(c.params["batch"]) for c in predict}) == [1, 16] and len(predict) == 6
    # The rounds of all topics share ROUNDS_SHARE of the budget: budget_s is per slot (cases + the A/A).
    rounds = sum(expand(t, "quick", cores=2)[0].budget.budget_s * 2 * (len(expand(t, "quick", cores=2)) // 2 + 1)
                 for t in loaded.values())
    assert rounds == pytest.approx(ROUNDS_SHARE * 120.0, rel=0.01)


def test_onnx_is_a_format_only_where_it_is_installed(tmp_path: Path) -> None:
    spec = spec_for(keras_file(tmp_path / "m.keras"))
    (serving,) = generate(spec, tmp_path / "t", [1], 60.0, runtimes=("tflite", "onnx"), only=("advise_serving",))
    assert "onnx" in load(serving.path).variants
    assert session_mod.runtimes(lambda name: None) == ["tflite"]
    assert session_mod.runtimes(lambda name: object()) == ["tflite", "onnx"]


# -- the session: budget and Ctrl-C ------------------------------------------------------------

def fake_runs(reports: list[Report], seconds: float = 0.0):  # type: ignore[no-untyped-def]
    seen: list[str] = []

    def run(options: RunOptions) -> Report:
        seen.extend(options.topics or [])
        time.sleep(seconds)
        return reports.pop(0) if reports else Report(ran=3)
    return run, seen


def test_topics_whose_estimate_does_not_fit_the_budget_left_are_left_out_and_said(tmp_path: Path) -> None:
    """The first topic always runs; each later one is estimated (scaled by how long those
    before took against their estimates) and left out where it does not fit, with the
    budget that would measure it."""
    spec = spec_for(keras_file(tmp_path / "m.keras"))
    run, seen = fake_runs([], seconds=0.3)
    s = session_mod.measure(spec, tmp_path / "out", [1], 0.5, RUNNER, run_topic=run, log=lambda m: None,
                            bar=session_mod.TopicBar(4, 0.5, enabled=False))
    assert seen == ["advise_predict"]
    assert [n for n, _ in s.skipped] == ["advise_xla", "advise_serving", "advise_threads"] == \
        [n for n, _ in s.not_measured]
    why = s.skipped[0][1]
    assert why.startswith("not enough budget left: it needs about ") and "--budget " in why and s.exit_status == 0


def test_a_later_topic_that_fits_is_still_measured(tmp_path: Path) -> None:
    """Topics that ran in a tenth of their estimate scale the next estimates down (by at
    most MIN_SCALE): with a budget a little over half the estimates, the rest fit."""
    spec = spec_for(keras_file(tmp_path / "m.keras"))
    run, seen = fake_runs([], seconds=0.0)
    topics = generate(spec, tmp_path / "t", [1], 60.0, runtimes=("tflite",))
    total = sum(t.estimate_s(spec, 1) for t in topics)
    s = session_mod.measure(spec, tmp_path / "out", [1], total * 0.6, RUNNER, run_topic=run, log=lambda m: None,
                            bar=session_mod.TopicBar(4, 1.0, enabled=False))
    assert seen == ["advise_predict", "advise_xla", "advise_serving", "advise_threads"] and not s.skipped


def test_the_cost_estimate_counts_workers_setups_conversions_and_rounds(tmp_path: Path) -> None:
    small = ModelSpec(ModelFile(tmp_path / "m.keras", "keras", "f" * 16), "x", (8,), "float32", ((1, 2),),
                      load_s=0.5, call_s={"1": 0.2, "32": 0.1}, import_s=4.0)
    big = ModelSpec(small.model, "x", (8,), "float32", ((1, 2),), load_s=5.0, call_s={"1": 2.0}, import_s=4.0)
    topics = {t.name: t for t in generate(small, tmp_path / "t", [1, 32], 120.0, runtimes=("tflite", "onnx"))}
    serving, threads = topics["advise_serving"], topics["advise_threads"]
    assert (serving.converts, serving.groups, threads.groups, threads.converts) == (4, 1, 3, 0)
    for t in topics.values():
        assert t.estimate_s(big, 2) > t.estimate_s(small, 2) > ROUNDS_USED * t.rounds_s > 0
    # A slower TensorFlow import costs WORKER_IMPORTS of it for every worker process: one per
    # settings group in every scenario, whatever the cases it measures.
    slow = dataclasses.replace(small, import_s=14.0)
    for t in (serving, threads):
        assert t.estimate_s(slow, 2) - t.estimate_s(small, 2) == pytest.approx(2 * t.groups * WORKER_IMPORTS * 10.0)
    # A conversion costs in proportion to the model's load time; other setups, a load and a call.
    heavy = dataclasses.replace(small, load_s=1.5)
    assert (serving.estimate_s(heavy, 2) - serving.estimate_s(small, 2)) > 2 * serving.cases * 1.0
    assert (serving.cases, threads.cases) == (5, 3)
    # A small model's four topics fit the default budget where TensorFlow imports in 2 s (it
    # took 1.7-2.0 s on the 2-core machines this was fitted on).
    default = generate(small, tmp_path / "d", [1, 32], DEFAULT_BUDGET_S, runtimes=("tflite", "onnx"))
    here = dataclasses.replace(small, import_s=2.0)
    assert sum(t.estimate_s(here, 2) for t in default) < DEFAULT_BUDGET_S


def test_the_progress_across_topics_is_a_bar_on_a_terminal_and_plain_lines_elsewhere() -> None:
    import io

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, plain = Tty(), io.StringIO()
    for stream in (tty, plain):
        bar = session_mod.TopicBar(4, 120.0, stream=stream)
        bar.show(1, 30.4, "XLA")
        bar.show(4, 118.0, "done")
    assert tty.getvalue().splitlines() == ["[#####...............] topic 2 of 4, 30 s of 120 s: XLA",
                                           "[####################] topic 4 of 4, 118 s of 120 s: done"]
    assert plain.getvalue().splitlines() == ["topic 2 of 4, 30 s of 120 s: XLA", "topic 4 of 4, 118 s of 120 s: done"]


def test_an_interrupted_topic_keeps_what_was_measured_and_stops(tmp_path: Path) -> None:
    spec = spec_for(keras_file(tmp_path / "m.keras"))
    run, seen = fake_runs([Report(ran=6), Report(ran=2, signum=signal.SIGINT)])
    s = session_mod.measure(spec, tmp_path / "out", [1], 600.0, RUNNER, run_topic=run, log=lambda m: None)
    assert seen == ["advise_predict", "advise_xla"]
    assert s.measured == ["advise_predict", "advise_xla"]
    assert s.not_measured == [("advise_serving", "interrupted"), ("advise_threads", "interrupted")]
    assert s.exit_status == 130


def test_ctrl_c_between_topics_is_an_interruption_too(tmp_path: Path) -> None:
    spec = spec_for(keras_file(tmp_path / "m.keras"))
    calls = []

    def run(options: RunOptions) -> Report:
        calls.append(options.topics)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return Report(ran=3)

    s = session_mod.measure(spec, tmp_path / "out", [1], 600.0, RUNNER, run_topic=run, log=lambda m: None)
    assert s.measured == ["advise_predict"] and s.exit_status == 130
    assert [n for n, _ in s.not_measured] == ["advise_xla", "advise_serving", "advise_threads"]


# -- end to end, the fake worker measuring -----------------------------------------------------

def fake_python(tmp_path: Path) -> Path:
    python = tmp_path / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python


def test_advise_answers_in_the_guides_words_and_writes_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    model = keras_file(tmp_path / "m.keras")
    python = str(fake_python(tmp_path))
    real_measure = session_mod.measure
    monkeypatch.setattr(probe_mod, "probe", lambda m, shape, dtype, batches, **kw: spec_for(m.path))
    monkeypatch.setattr(session_mod, "measure", lambda *a, **kw: real_measure(*a, **{**kw, "python": python}))
    monkeypatch.setenv("FAKE_WORKER_DELAY_S", "0.001")
    out = tmp_path / "out"
    status = cli.main(["advise", str(model), "--batch", "4", "--budget", "60", "--out", str(out), "--runner", RUNNER,
                       "--topic", "advise_predict", "--topic", "advise_threads", "--no-progress"])
    got = capsys.readouterr()
    assert status == 0, got.err
    text = got.out
    assert "Q: Your code calls model.predict(x): what should it call instead?" in text
    assert "a tf.function forward pass at batch 1 is as fast as model.predict(x) in the one scenario measured (1×)" \
        in text
    assert "Q: Does one intra-op thread serve your model faster than TensorFlow's default?" in text
    assert "A: No." in text
    results = out / "results" / RUNNER / "quick.json"
    assert results.exists() and f"Results (the results schema): {results}" in text
    from tfperf.store import read
    doc = read(results)                       # validated against the results schema
    assert {r["topic"] for r in doc["results"]} == {"advise_predict", "advise_threads"}
    data = json.loads((out / "answers.json").read_text())
    assert [q["id"] for q in data["questions"]] == ["predict", "tf_function", "threads", "onednn"]
    claim = data["questions"][0]["claims"][0]
    assert claim["finding"] == "the same" and claim["scenarios"][0]["speedup"] == pytest.approx(1.0)
    assert data["input"] == {"name": "image", "shape": [8, 8, 3], "dtype": "float32"} and data["batches"] == [1, 4]
    assert [r["params"] for r in data["do_this"]["advise_predict"]] == [{"batch": 1}, {"batch": 4}]
    assert "   Do this at batch 1: " in text
    page = (out / "answers.html").read_text(encoding="utf-8")          # written beside answers.json by default
    assert f"Answers as a web page: {out / 'answers.html'}" in text
    assert "<h3>Your code calls model.predict(x): what should it call instead?</h3>" in page
    assert page.count("data-tfperf-chart=") == 2 and "vegaEmbed" in page
    assert "No published runner has this machine's CPU (test-advise-x86_64; published: " in got.err


CLI = textwrap.dedent("""
    import sys
    from tfperf import cli
    from tfperf.measure.supervise import orchestrate
    from tfperf.measure.advise import model as probe
    from tfperf.measure.advise.model import ModelFile
    python, *argv = sys.argv[1:]
    real_run = orchestrate.run

    def run(options):
        options.python = python
        return real_run(options)

    def fake_probe(model, shape, dtype, batches, **kw):
        return probe.ModelSpec(model, "x", (4,), "float32", ((1, 2),))

    orchestrate.run = run
    probe.probe = fake_probe
    sys.exit(cli.main(argv))
""")


def test_sigint_keeps_what_was_measured_and_answers_it(tmp_path: Path) -> None:
    """Ctrl-C while the second topic is measured: exit status 130, the first topic answered,
    the others reported as not measured, no traceback."""
    model = keras_file(tmp_path / "m.keras")
    env = {**os.environ, "PYTHONPATH": str(BENCH), "FAKE_WORKER_DELAY_S": "0.05"}
    proc = subprocess.Popen([sys.executable, "-c", CLI, str(fake_python(tmp_path)), "advise", str(model),
                             "--budget", "600", "--out", str(tmp_path / "out"), "--runner", RUNNER, "--no-progress"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = tmp_path / "out" / "results" / RUNNER / "quick.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and '"advise_xla"' in results.read_text()):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "Q: Your code calls model.predict(x): what should it call instead?" in out
    assert "not measured: interrupted" in out
    assert "Interrupted: the answers above are what was measured before" in out
