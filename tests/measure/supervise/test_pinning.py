"""The `cpus` process setting: a worker pinned to some CPUs before TensorFlow is imported
(scripts/selfcheck.py uses it to keep the machine's spread out of its comparison)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfperf import store
from tfperf.cases import expand, load
from tfperf.cases.topic import load_topic
from tfperf.errors import CaseGridError
from tfperf.measure.supervise.orchestrate import RunOptions, run

BENCH = Path(__file__).resolve().parents[3] / "bench"
ALLOWED = sorted(os.sched_getaffinity(0))


def _write(tmp_path: Path, cpus_map: dict[str, object]) -> Path:
    d = tmp_path / "snippets"
    d.mkdir(exist_ok=True)
    (d / "pin.py").write_text(textwrap.dedent("""
        import os
        import numpy as np


        def setup(params):
            with open(os.path.join(os.environ["PIN_OUT"], str(os.getpid())), "w") as f:
                f.write(repr(sorted(os.sched_getaffinity(0))))
            return {"x": np.ones(3, dtype="float32")}


        def affinity(x):
            return x * 2.0
    """))
    (d / "pin.yaml").write_text(json.dumps({
        "topic": "pin", "snippet": "pin.py", "reference": "affinity", "default": "affinity",
        "variants": {"affinity": {"fn": "affinity"}},
        "settings_map": {"cpus": cpus_map},
        "profiles": {"quick": {
            "params": {"n": [1]}, "settings": {"cpus": list(cpus_map)},
            "budget": {"min_samples": 3, "max_samples": 4, "budget_s": 0.05, "warmup_s": 0.0, "min_sample_s": 0.001},
        }},
    }))
    return d


def test_cpus_are_parsed_from_a_list_or_a_string(tmp_path: Path) -> None:
    d = _write(tmp_path, {"one": {"cpus": [1]}, "two": {"cpus": "1, 0", "intra_op_threads": 2}, "all": {}})
    process = {c.settings["cpus"]: c.process for c in expand(load_topic(d / "pin.yaml"), "quick")}
    assert process["one"] == {"env": {}, "cpus": [1]}
    assert process["two"] == {"env": {}, "cpus": [0, 1], "intra_op_threads": 2}
    assert "cpus" not in process["all"]
    assert len({json.dumps(p, sort_keys=True) for p in process.values()}) == 3  # never one worker


@pytest.mark.parametrize("bad", ["x", [], [-1], ["a"], {"0": 1}])
def test_a_bad_cpu_list_names_the_file_and_field(tmp_path: Path, bad: object) -> None:
    d = _write(tmp_path, {"odd": {"cpus": bad}})
    with pytest.raises(CaseGridError) as err:
        load(d / "pin.yaml")
    assert "pin.yaml" in str(err.value) and "settings_map.cpus.odd.cpus" in str(err.value)


def _pin_in_child(cpus: list[int]) -> subprocess.CompletedProcess[str]:
    code = ("import os, sys; from tfperf.measure.worker.serve import pin; "
            f"pin({cpus!r}); print(sorted(os.sched_getaffinity(0)))")
    return subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(BENCH)})


def test_pin_restricts_the_process_and_refuses_a_cpu_it_may_not_use() -> None:
    out = _pin_in_child([ALLOWED[-1]])
    assert out.returncode == 0 and out.stdout.strip() == str([ALLOWED[-1]]), out.stderr
    out = _pin_in_child([max(ALLOWED) + 1])
    assert out.returncode != 0
    assert f"cpus=[{max(ALLOWED) + 1}]" in out.stderr and "does not let the worker use" in out.stderr


@pytest.mark.tf
def test_a_pinned_worker_runs_on_its_cpu_and_records_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = tmp_path / "seen"
    seen.mkdir()
    monkeypatch.setenv("PIN_OUT", str(seen))
    d = _write(tmp_path, {"last": {"cpus": [ALLOWED[-1]]}, "all": {}})
    report = run(RunOptions(profile="quick", data_root=tmp_path / "data", snippets_dir=d,
                            runner="pin-box", progress=False))
    doc = store.load(report.path)
    by = {r["settings"]["cpus"]: r for r in doc["results"]}
    assert by["last"]["status"] == by["all"]["status"] == "ok"
    envs = {k: doc["environments"][r["env_id"]] for k, r in by.items()}
    assert envs["last"]["threads"]["cpu_affinity"] == [ALLOWED[-1]]
    assert envs["all"]["threads"]["cpu_affinity"] is None
    assert envs["last"]["cores"] == envs["all"]["cores"] == len(ALLOWED)  # the machine's, not the worker's
    # What the snippet itself saw, one worker per setting.
    assert sorted(p.read_text() for p in seen.iterdir()) == sorted([str([ALLOWED[-1]]), str(ALLOWED)])
