"""The cpu_threads topic: its settings grid (which knobs reach which process, how the
thread curve grows with the runner's cores) and, with TensorFlow, that the knobs really
are in force inside the worker."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tfperf.cases import expand
from tfperf.cases.topic import load_topic

ROOT = Path(__file__).resolve().parents[3]
YAML = ROOT / "snippets" / "cpu_threads.yaml"


def _threads(cases, onednn: str = "1") -> list[str]:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    for c in cases:
        if c.settings["onednn"] == onednn and c.settings["threads"] not in seen:
            seen.append(c.settings["threads"])
    return seen


@pytest.mark.parametrize("cores, numeric", [(1, ["1"]), (2, ["1", "2"]), (6, ["1", "2", "4", "6"]),
                                            (64, ["1", "2", "4", "8", "16", "32", "64"])])
def test_the_thread_curve_grows_with_the_runners_cores(cores: int, numeric: list[str]) -> None:
    cases = expand(load_topic(YAML), "full", cores=cores)
    for onednn in ("1", "0", "avx2"):
        got = [t for t in _threads(cases, onednn) if t.isdigit()]
        assert got == numeric, onednn
    assert set(_threads(cases, "1")) == {"default", "inter1", "omp1", *numeric}
    # OpenMP and inter-op are measured with oneDNN on only.
    assert "omp1" not in _threads(cases, "0") and "inter1" not in _threads(cases, "avx2")


def test_each_setting_reaches_its_process() -> None:
    cases = {c.settings_id: c.process for c in expand(load_topic(YAML), "full", cores=4)}
    assert cases["onednn=1,threads=default"] == {"env": {"TF_ENABLE_ONEDNN_OPTS": "1"}}
    assert cases["onednn=1,threads=4"]["intra_op_threads"] == 4
    assert "inter_op_threads" not in cases["onednn=1,threads=4"]
    assert cases["onednn=1,threads=inter1"]["inter_op_threads"] == 1
    assert "intra_op_threads" not in cases["onednn=1,threads=inter1"]
    assert cases["onednn=1,threads=omp1"]["env"]["OMP_NUM_THREADS"] == "1"
    assert cases["onednn=0,threads=2"]["env"]["TF_ENABLE_ONEDNN_OPTS"] == "0"
    assert cases["onednn=avx2,threads=default"]["env"] == {"TF_ENABLE_ONEDNN_OPTS": "1", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    # Distinct settings never share a worker process.
    assert len({repr(sorted(p.items())) for p in cases.values()}) == len(cases)


def test_every_scenario_has_its_baseline() -> None:
    """Speedups are relative to baseline_settings: every parameter combination measured
    under any settings is also measured under the baseline, in every profile."""
    topic = load_topic(YAML)
    base = {k: str(v) for k, v in topic.baseline_settings.items()}
    for profile in ("quick", "full"):
        cases = expand(topic, profile, cores=8)
        with_base = {c.params_id for c in cases if c.settings == base}
        assert with_base == {c.params_id for c in cases}, profile


def test_claims_compare_settings_that_are_measured() -> None:
    topic = load_topic(YAML)
    ids = {c.settings_id for c in expand(topic, "full", cores=2)}
    assert not topic.claims, "variant claims make no sense with one variant: use settings_claims"
    assert topic.settings_claims
    for claim in topic.settings_claims:
        where = claim.get("where", {})
        for side in ("candidate_settings", "baseline_settings"):
            s = {**{k: str(v[0]) for k, v in where.items() if k in ("threads", "onednn")},
                 **{k: str(v) for k, v in claim[side].items()}}
            s = {"threads": "default", "onednn": "1", **s}
            sid = ",".join(f"{k}={v}" for k, v in sorted(s.items()))
            assert sid in ids, f"{claim['id']}: {side} {sid} is never measured"


def test_quick_profile_is_three_processes() -> None:
    # Budget: ~45 s here for three TensorFlow imports and 18 small cases.
    cases = expand(load_topic(YAML), "quick", cores=64)
    assert len({c.group_key for c in cases}) == 3
    assert len(cases) == 18


def test_variants_and_setup_exist_in_the_snippet() -> None:
    topic = load_topic(YAML)
    tree = ast.parse(topic.snippet.read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert topic.setup in defined
    assert all(v["fn"] in defined for v in topic.variants.values())


@pytest.mark.tf
def test_the_knobs_are_in_force_inside_the_worker(tmp_path: Path) -> None:
    """Run the real snippet under two settings and read back what the worker's
    TensorFlow says about threads and oneDNN."""
    import shutil
    import textwrap

    from tfperf import store
    from tfperf.measure.supervise.orchestrate import RunOptions, run

    snippets = tmp_path / "snippets"
    snippets.mkdir()
    shutil.copy(ROOT / "snippets" / "cpu_threads.py", snippets)
    shutil.copy(ROOT / "snippets" / "_standalone.py", snippets)
    text = YAML.read_text(encoding="utf-8")
    head = text.split("profiles:")[0]
    (snippets / "cpu_threads.yaml").write_text(head + textwrap.dedent("""
        profiles:
          quick:
            params: {model: [rnn], batch: [1]}
            settings: {threads: ["1", "inter1"], onednn: ["0"]}
            budget: {min_samples: 5, max_samples: 6, budget_s: 0.1, warmup_s: 0.01, min_sample_s: 0.002}
            timeout_s: 60
    """))
    report = run(RunOptions(profile="quick", data_root=tmp_path / "data", snippets_dir=snippets,
                            runner="test-runner", progress=False))
    doc = store.load(report.path)
    assert {r["status"] for r in doc["results"]} == {"ok"}
    envs = {r["settings"]["threads"]: doc["environments"][r["env_id"]] for r in doc["results"]}
    assert envs["1"]["threads"]["intra_op"] == 1
    assert envs["inter1"]["threads"]["inter_op"] == 1
    assert envs["inter1"]["threads"]["intra_op"] == 0      # left at TensorFlow's default
    assert all(e["onednn"] is False for e in envs.values())
    assert envs["1"]["settings"] == {"threads": "1", "onednn": "0"}


def test_the_rounds_tighten_each_control_pair_of_a_scenario() -> None:
    """threads={cores} against the default, per oneDNN value: the orchestrator hands the
    pairs to the round rule, so those two slots stay until their own ratio is tight."""
    from tfperf.measure.supervise.orchestrate import control_pairs
    from tfperf.measure.supervise.records import Task

    topic = load_topic(YAML)
    cases = [c for c in expand(topic, "full", cores=2) if c.params == {"batch": 1, "model": "rnn"}]
    tasks = [Task(c.case_id, "case", c, {}, {}) for c in cases]
    pairs = control_pairs(topic, tasks, cores=2)
    assert sorted(pairs) == sorted(
        (f"cpu_threads/batch=1,model=rnn/onednn={o},threads=2/call",
         f"cpu_threads/batch=1,model=rnn/onednn={o},threads=default/call") for o in ("0", "1", "avx2"))
    assert control_pairs(topic, tasks, cores=None) == ()
    # On a 4-core runner the control names threads=4; a grid without it has no pair.
    assert control_pairs(topic, [t for t in tasks if t.case.settings["threads"] != "4"], cores=4) == ()


def test_the_rounds_tighten_every_published_pair_once() -> None:
    """predict_vs_call's recommendations compare with its default (predict), not with the
    baseline (the reference): those pairs, the claims' pairs and the controls, no pair twice."""
    from tfperf.measure.supervise.orchestrate import claim_pairs, default_pairs, published_pairs
    from tfperf.measure.supervise.records import Task

    topic = load_topic(ROOT / "snippets" / "predict_vs_call.yaml")
    cases = [c for c in expand(topic, "full", cores=2) if c.scenario_id == expand(topic, "full", cores=2)[0].scenario_id]
    tasks = [Task(c.case_id, "case", c, {}, {}) for c in cases]
    defaults = default_pairs(topic, tasks)
    groups = {t.case.settings_id for t in tasks}
    assert len(groups) == 2 and len(defaults) == len(tasks) - len(groups) and {a for a, _ in defaults} == {t.id for t in tasks if t.case.variant == "predict"}
    pairs = published_pairs(topic, tasks, cores=2)
    unordered = {frozenset(p) for p in pairs}
    assert len(unordered) == len(pairs)
    assert unordered == {frozenset(p) for p in (*claim_pairs(topic, tasks), *defaults)}
    assert default_pairs(load_topic(YAML), tasks) == ()          # cpu_threads: default is the reference


def test_a_control_holds_only_where_its_scenarios_are() -> None:
    """serving_formats' ONNX control is for the convnet only (the g2p model's Keras 2 and
    Keras 3 builds export different ONNX graphs): no pair in a g2p scenario, a pair in the
    convnet's, and one in history's scenarios, which do not vary the model."""
    from tfperf.cases.topic_schema import control_applies
    from tfperf.measure.supervise.orchestrate import control_pairs
    from tfperf.measure.supervise.records import Task

    topic = load_topic(ROOT / "snippets" / "serving_formats.yaml")
    (control,) = topic.controls
    assert control_applies(control, {"model": "convnet", "batch": 1})
    assert not control_applies(control, {"model": "g2p_gru", "batch": 1})
    assert control_applies(control, {"batch": 1})                      # history: no model parameter
    for profile, params, want in (("full", {"batch": 1, "model": "g2p_gru"}, 0),
                                  ("full", {"batch": 1, "model": "convnet"}, 1), ("history", {"batch": 1}, 1)):
        tasks = [Task(c.case_id, "case", c, {}, {}) for c in expand(topic, profile, cores=2) if c.params == params]
        assert tasks and len(control_pairs(topic, tasks, cores=2)) == want, (profile, params)
