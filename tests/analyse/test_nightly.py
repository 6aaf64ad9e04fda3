"""tf-nightly as a column apart from the releases: ``tfperf run --tf nightly`` builds the
venv of the newest development build (a fake pip), and the analysis orders it last, names
it by its date, never counts it among the releases a finding holds in nor shows it as a
page's current results, and names a finding it changes "changes in the next release
(nightly of DATE)". No TensorFlow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_venvs import FakeCommands
from test_version_changes import cell, check

from tfperf.analyse.judge.effects import Finding
from tfperf.analyse.judge.version_verdicts import VersionStrip, _cell, steady_text, strip_text
from tfperf.analyse.versions import build_date, is_development, short_labels, sort_versions
from tfperf.measure import venvs
from tfperf.render.blocks.version_blocks import _verdict

NIGHTLY = "2.23.0-dev20261125"        # as tf.__version__ reports a tf-nightly build


def test_a_development_build_sorts_last_and_is_named_by_its_date() -> None:
    versions = [NIGHTLY, "2.21.0", "2.12.1", "2.16.0rc1"]
    assert sort_versions(versions) == ["2.12.1", "2.16.0rc1", "2.21.0", NIGHTLY]
    assert is_development(NIGHTLY) and is_development("2.23.0.dev20261125") and not is_development("2.21.0")
    assert build_date(NIGHTLY) == "2026-11-25" and build_date("2.21.0") is None
    assert short_labels(versions)[NIGHTLY] == "nightly of 2026-11-25"
    # Of two nightlies, the newer build is the later column.
    assert sort_versions(["2.23.0-dev20261125", "2.22.0-dev20261001"])[-1] == NIGHTLY


def _strip(nightly_low: float, nightly_high: float) -> VersionStrip:
    return VersionStrip("t", {"id": "c"}, "box", [cell("2.20.0", check(1, 1.10, 1.20)),
                                                  cell("2.21.0", check(1, 1.12, 1.22)),
                                                  cell(NIGHTLY, check(1, nightly_low, nightly_high))])


def test_a_finding_that_changes_in_the_nightly_is_the_next_release_not_a_release() -> None:
    strip = _strip(0.70, 0.80)                                   # slower in the nightly, apart from 2.21
    assert strip.changes == [] and not strip.changed              # no release changed it
    ahead = strip.next_release
    assert ahead is not None and (ahead.before, ahead.after) == (Finding.FASTER, Finding.SLOWER)
    assert [c.version for c in strip.releases] == ["2.20.0", "2.21.0"] and strip.nightly is not None
    text = strip_text(strip)
    assert "changes in the next release (nightly of 2026-11-25): slower (was: faster in 2.21)" in text
    # The releases it holds in are counted without the nightly.
    assert "faster in every release with results (2.20–2.21)" in steady_text(strip, short_labels(strip.versions))
    kind, said = _verdict(strip, short_labels(strip.versions))
    assert kind == "Changes in the next release" and said.startswith("changes in the next release (nightly of")


def test_a_nightly_with_the_same_finding_changes_nothing() -> None:
    strip = _strip(1.11, 1.21)
    assert strip.next_release is None and not strip.changed
    said = steady_text(strip, short_labels(strip.versions))
    assert said == ("faster in every release with results (2.20–2.21); "
                    "faster in the nightly of 2026-11-25 (a development build)")
    assert _verdict(strip, short_labels(strip.versions))[0] == "No change"


class NightlyPip(FakeCommands):
    """FakeCommands that also answers ``pip index versions tf-nightly`` with ``listing``."""

    def __init__(self, listing: str) -> None:
        super().__init__()
        self.listing = listing

    def __call__(self, argv: list[str]) -> tuple[int, str]:
        if "index" in argv:
            self.calls.append(argv)
            return (0, self.listing) if self.listing else (1, "ERROR: No matching distribution found for tf-nightly")
        return super().__call__(argv)


@pytest.fixture(autouse=True)
def _no_wheels(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(venvs.WHEELS_ENV, str(tmp_path / "no-wheels"))


def test_tf_nightly_builds_the_newest_development_build(tmp_path: Path) -> None:
    pip = NightlyPip("tf-nightly (2.23.0.dev20261125)\nAvailable versions: 2.23.0.dev20261125, 2.23.0.dev20261124\n")
    made = venvs.interpreter("nightly", tmp_path, run=pip, log=lambda m: None)
    assert made is not None and made.version == "2.23.0.dev20261125"
    assert made.python.parent.parent == tmp_path / "tf-2.23.0.dev20261125"
    installs = [" ".join(c) for c in pip.pip_calls if "install" in c]
    assert any("tf-nightly==2.23.0.dev20261125" in c for c in installs)
    assert not any("tensorflow-cpu" in c for c in installs)
    assert any("--no-deps tf-keras-nightly --pre" in c for c in installs)
    assert made.stamp["installed"]["tf-nightly"] == "2.23.0.dev20261125"


def test_tf_nightly_without_a_version_on_the_index_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(venvs.VenvError) as err:
        venvs.interpreter("nightly", tmp_path, run=NightlyPip(""), log=lambda m: None)
    assert str(err.value).startswith("--tf nightly: pip found no tf-nightly version")
    with pytest.raises(venvs.VenvError, match="or nightly"):
        venvs.check_version("tomorrow")


def test_a_nightly_is_never_current_and_is_the_versions_tables_last_column() -> None:
    """On the frozen history fixture, the 2.21 history results relabelled as a nightly:
    the page's current results stay 2.21 (from the full profile) and, without any release
    result for a case, the nightly still never becomes current; the claims x releases
    table puts the nightly last."""
    from dataclasses import replace

    from history_data import TOPIC, dataset

    from tfperf.analyse.records import current

    ds = dataset()
    as_nightly = [replace(m, key={**m.key, "tensorflow": NIGHTLY}) if m.source.profile == "history" and m.tensorflow == "2.21.0" else m
                  for m in ds.measurements]
    assert {m.tensorflow for m in current(as_nightly)} == {"2.21.0"}
    only_nightly = [m for m in as_nightly if m.tensorflow == NIGHTLY]
    assert only_nightly and current(only_nightly) == []
    strips = replace(ds, measurements=as_nightly).version_strips(TOPIC)
    assert strips and all(s.versions[-1] == NIGHTLY and not is_development(s.versions[-2]) for s in strips)
    # The claims x releases table: the nightly's column is labelled a development build and
    # not counted among the releases.
    from tfperf.render.blocks.blocks import Context, render_block
    from tfperf.render.page.context import parse_block
    from tfperf.render.page.embed import SvgCache

    html = str(render_block(parse_block("versions"), Context(replace(ds, measurements=as_nightly), prefix="",
                                                              svgs=SvgCache(None))))
    assert "<th scope=\"col\">nightly of 2026-11-25 (development build)</th>" in html
    n = len([v for v in strips[0].versions if not is_development(v)])
    assert f"across {n} TensorFlow releases" in html and "never counted among the releases" in html


def _dist(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_a_nightly_venv_records_its_tensorflow_and_keras_versions(tmp_path: Path) -> None:
    """tf-nightly, keras-nightly and tf-keras-nightly are distributions of their own: a
    run under a nightly recorded TensorFlow and Keras as None until they were looked for."""
    from tfperf.measure.envinfo import keras_version_for, package_versions

    _dist(tmp_path, "tf-nightly", "2.23.0.dev20261026")
    _dist(tmp_path, "keras-nightly", "3.16.0.dev2026102704")
    _dist(tmp_path, "tf-keras-nightly", "2.23.0.dev2026102618")
    vs = package_versions([str(tmp_path)])
    assert vs["tensorflow"] == "2.23.0.dev20261026" and is_development(vs["tensorflow"])
    assert keras_version_for({"keras": "2"}, vs) == "2.23.0.dev2026102618"
    assert keras_version_for({"keras": "3"}, vs) == "3.16.0.dev2026102704"


def test_versions_a_run_did_not_record_are_filled_with_every_reference_kept() -> None:
    from tfperf import store
    from tfperf.measure.envinfo import keras_version_for
    from tfperf.store import record_types as ids
    from tfperf.store.relabel import declared, fill_versions, rewrite

    def unrecorded_env(_: str, env: dict[str, Any]) -> None:     # as the nightly run wrote them
        env["versions"] = {**env["versions"], "tensorflow": None, "keras": None, "keras3": None, "tf_keras": None}

    def unrecorded_key(_: str | None, key: dict[str, Any]) -> None:
        key["tensorflow"] = key["keras"] = None

    doc = rewrite(store.load(Path(__file__).parents[1] / "fixtures" / "results" / "valid.json"),
                  unrecorded_env, unrecorded_key)
    chosen = set(doc["environments"])
    vs = {"tensorflow": "2.23.0.dev20261026", "keras3": "3.16.0.dev2026102704", "tf_keras": "2.23.0.dev2026102618"}
    new = fill_versions(doc, chosen, vs, keras_version_for)
    assert len(new["results"]) == len(doc["results"])
    for r in new["results"]:
        if r["env_id"] is None:
            continue
        assert r["env_id"] in new["environments"]
        assert r["key"]["tensorflow"] == "2.23.0.dev20261026"
        assert r["key"]["keras"] == keras_version_for(declared(r["key"]), vs)
        assert r["key_hash"] == ids.key_hash(r["key"])
    before = {r["key_hash"]: r["case_id"] for r in doc["results"]}
    after = {r["case_id"]: r["key_hash"] for r in new["results"]}
    for old_n, new_n in zip(doc["noise"], new["noise"]):      # a pair follows its result's new hash
        if old_n["key_hash"] in before:
            assert new_n["key_hash"] == after[before[old_n["key_hash"]]]
    with pytest.raises(Exception, match="no environment"):
        fill_versions(doc, {"0000000000000000"}, vs, keras_version_for)


def test_the_scenario_count_names_the_nightly_apart_from_the_releases_range() -> None:
    head = _cell("2.21.0", [check(1, 1.12, 1.22), check(64, 1.12, 1.22)], Finding.FASTER,
                 lambda k, v: f"{k} {v}", headline=True)
    strip = VersionStrip("t", {"id": "c"}, "box", [cell("2.19.1", check(1, 1.10, 1.20)),
                                                  cell("2.20.0", check(1, 1.10, 1.20)), head,
                                                  cell(NIGHTLY, check(1, 1.11, 1.21))])
    # Not "2.19–nightly of ...": a range of releases never runs into the development build.
    assert strip.grid_note == ("2.19–2.20 and the nightly of 2026-11-25: 1 scenario each (the smaller grid "
                               "measured for every release); 2.21: 2 (the full grid of this page)")


def test_the_versions_measured_never_count_the_nightly_as_a_release() -> None:
    from tfperf.render.blocks.version_blocks import _measured_text

    versions = ["2.20.0", "2.21.0", NIGHTLY]
    text = _measured_text({"r": versions}, short_labels(versions))
    # Not "2.20, 2.21 and nightly of 2026-11-25 (3 releases)".
    assert text == "runner r with TensorFlow 2.20 and 2.21 (2 releases) and the nightly of 2026-11-25 (a development build)"
