"""A run with ``--tf`` keys its results by the versions installed in that TensorFlow's venv
(what its workers import), not by this interpreter's; the runner stays the machine's."""

from __future__ import annotations

import json
from pathlib import Path

from tfperf.measure import envinfo
from tfperf.measure.supervise.orchestrate import RunOptions, plan

TOPIC = {"topic": "keys", "snippet": "keys.py", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}},
         "profiles": {"history": {"params": {"n": [1]}, "settings": {"keras": ["2", "3"]}}}}


def _site(tmp_path: Path, dists: dict[str, str]) -> Path:
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    for name, version in dists.items():
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return site


def test_keys_carry_the_venvs_versions(tmp_path: Path) -> None:
    site = _site(tmp_path, {"tensorflow-cpu": "2.15.1", "keras": "2.15.0", "tf-keras": "2.15.1", "numpy": "1.26.4"})
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "keys.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n")
    (tmp_path / "snippets" / "keys.yaml").write_text(json.dumps(TOPIC))
    options = RunOptions(profile="history", runner="box", data_root=tmp_path / "data",
                         snippets_dir=tmp_path / "snippets", package_path=[str(site)])
    keys = {t.case.settings["keras"]: t.key for sc in plan(options).scenarios for t in sc.tasks}
    assert keys["2"]["tensorflow"] == keys["3"]["tensorflow"] == "2.15.1"
    assert keys["2"]["keras"] == "2.15.1" and keys["3"]["keras"] == "2.15.0"
    assert keys["2"]["runner"] == "box"


def test_keras_of_a_settings_group_before_and_after_2_16() -> None:
    before = {"tensorflow": "2.14.1", "keras3": "2.14.0", "tf_keras": None}
    assert envinfo.keras_version_for({"keras": "2"}, before) == "2.14.0"
    after = {"tensorflow": "2.17.1", "keras3": "3.5.0", "tf_keras": "2.17.0"}
    assert envinfo.keras_version_for({"keras": "2"}, after) == "2.17.0"
    assert envinfo.keras_version_for({"keras": "3"}, after) == "3.5.0"
    assert envinfo.keras_version_for({"keras": "2"}, {**after, "tf_keras": None}) is None
