"""The runners page names the Keras each kind of worker process really used (Keras 3 and
tf_keras processes record their own) and the serving runtimes, from the newest release's
environments only; and how much time a runner's scenarios were given."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tfperf.analyse.records import Runner, read_documents
from tfperf.render.blocks.blocks import _budget_text, _keras_in_use


def _env(tf: str, keras: str, t: str, **more: str) -> dict:
    return {"time": t, "versions": {"tensorflow": tf, "keras": keras, "keras3": "3.15.1", "tf_keras": "2.21.0",
                                    **more}}


def test_both_kerases_of_the_newest_release_are_listed_not_one_environment() -> None:
    r = Runner("box", environments={
        "a": _env("2.21.0", "3.15.1", "2026-11-23T10:00:00+00:00", onnxruntime="1.23.2"),
        "b": _env("2.21.0", "2.21.0", "2026-11-23T11:00:00+00:00"),            # the latest: a Keras 2 process
        "c": _env("2.12.1", "2.12.0", "2026-11-23T12:00:00+00:00")})           # an older release: left out
    in_use = r.versions_in_use()
    assert in_use["keras"] == ["2.21.0", "3.15.1"] and in_use["onnxruntime"] == ["1.23.2"]
    assert in_use["tensorflow"] == ["2.21.0"]
    text = _keras_in_use(in_use, r.latest_environment()["versions"])
    assert text == "tf_keras 2.21.0 (TF_USE_LEGACY_KERAS=1); Keras 3.15.1"


def test_a_runner_with_one_keras_says_just_that() -> None:
    r = Runner("box", environments={"a": _env("2.21.0", "3.15.1", "2026-11-23T10:00:00+00:00")})
    assert _keras_in_use(r.versions_in_use(), {}) == "Keras 3.15.1"
    assert _keras_in_use({}, {}) == "–"


def test_a_runner_given_more_time_says_in_how_many_of_its_shown_scenarios() -> None:
    doc = {"runner": {"label": "box"}, "profile": "full", "results": [], "scenarios": [
        {"id": "s1", "budget_scale": 2.0}, {"id": "s2"}, {"id": "s3", "budget_scale": 1}, {"id": "s4", "budget_scale": 2.0}]}
    _, _, runners, _ = read_documents([(Path("full.json"), doc)])  # type: ignore[list-item]
    r = runners["box"]
    assert r.budget_scales == {"s1": 2.0, "s4": 2.0}
    total, scaled = r.scaled_scenarios(["s1", "s2", "s3"])        # s4 is not shown: measured again since
    assert (total, dict(scaled)) == (3, {2.0: 1})
    ctx = SimpleNamespace(prefix="../")
    assert str(_budget_text(ctx, total, scaled)) == (  # type: ignore[arg-type]
        '2&times; the usual time in 1 of its 3 scenarios; the usual time in the other 2 '
        '(<a href="../how-we-measure/#time-per-scenario">why</a>)')
    assert str(_budget_text(ctx, *r.scaled_scenarios(["s2", "s3"]))) == "the usual time"  # type: ignore[arg-type]
