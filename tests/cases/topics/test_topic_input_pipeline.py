"""The input_pipeline topic: its case grid, the functions and page sections its YAML names,
its analysis from a frozen quick run (no TensorFlow), the input-bound share, the page of a
topic without results, and with TensorFlow at a tiny size that the output gate passes for
every pipeline (also one that reorders the examples) and fails for a wrong one."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from tfperf.analyse import analyse, question_answers
from tfperf.analyse.origins import load_sources
from tfperf.cases import expand
from tfperf.cases.topic import load_topic
from tfperf.render.page.context import no_results, parse_inline
from tfperf.render.site.inline import _share, render_inline
from tfperf.render.site.site import Site

ROOT = Path(__file__).resolve().parents[3]
YAML = ROOT / "snippets" / "input_pipeline.yaml"
SNIPPET = ROOT / "snippets" / "input_pipeline.py"
PAGE = ROOT / "docs" / "topics" / "input_pipeline.md"
FIX = Path(__file__).parents[2] / "fixtures" / "input_pipeline" / "results"   # a quick run, TF 2.21, busy 2-core AMD
OTHER = Path(__file__).parents[2] / "fixtures" / "site" / "analysis"
VARIANTS = {"in_memory", "naive", "prefetch", "parallel_map", "interleave", "cache", "vectorised",
            "all_together", "fit"}


def test_every_profile_measures_every_pipeline_in_each_scenario() -> None:
    topic = load_topic(YAML)
    sizes = {}
    for profile in ("quick", "full", "history"):
        cases = expand(topic, profile, cores=2)
        by_params: dict[str, set[str]] = {}
        for c in cases:
            by_params.setdefault(c.params_id, set()).add(c.variant)
        assert all(v == VARIANTS for v in by_params.values()), profile
        sizes[profile] = len(by_params)
    # The quick run is one scenario (it must fit the README's quick run); full: 2 models x 2 data.
    assert sizes == {"quick": 1, "full": 4, "history": 1}
    assert topic.reference == "naive" and topic.default == "naive"


@pytest.mark.parametrize(("bounds", "problem"), [("[no_such]", "'no_such' is not a declared variant"),
                                                  ("[naive]", "'naive' is the default or the reference")])
def test_a_bad_bound_is_one_line_naming_the_file_and_field(tmp_path: Path, bounds: str, problem: str) -> None:
    from tfperf.errors import CaseGridError

    bad = tmp_path / YAML.name
    bad.write_text(YAML.read_text().replace("bounds: [in_memory]", f"bounds: {bounds}"))
    shutil.copy(SNIPPET, tmp_path / SNIPPET.name)
    with pytest.raises(CaseGridError) as err:
        load_topic(bad)
    assert str(err.value).startswith(f"{bad}: bounds.0: {problem}") and "\n" not in str(err.value)


def test_the_yaml_names_functions_that_exist() -> None:
    data = yaml.safe_load(YAML.read_text())
    tree = ast.parse(SNIPPET.read_text())
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    for name, v in data["variants"].items():
        assert v["fn"] in names and v.get("setup", data["setup"]) in names, name
    for claim in data["claims"]:
        assert {claim["candidate"], claim["baseline"]} <= set(data["variants"]), claim["id"]
    for q in data["questions"]:
        assert set(q["claims"]) <= {c["id"] for c in data["claims"]}, q["id"]


def test_every_source_figure_tests_a_claim_of_the_topic() -> None:
    data = yaml.safe_load(YAML.read_text())
    sources, errors = load_sources(ROOT / "docs" / "sources", {"input_pipeline": {c["id"] for c in data["claims"]}})
    assert not [e for e in errors if "input_pipeline" in str(e)]
    figures = sources["input_pipeline"]
    # Every option the guide recommends is credited with its figure.
    assert {f.claim for f in figures} >= {"prefetch_beats_naive", "parallel_map_beats_naive", "interleave_beats_naive",
                                          "cache_beats_naive", "vectorised_beats_naive"}


def test_snippet_sections_are_balanced_and_used_by_the_page() -> None:
    text = SNIPPET.read_text()
    starts = re.findall(r"# --8<-- \[start:(\w+)\]", text)
    assert starts == re.findall(r"# --8<-- \[end:(\w+)\]", text) and len(set(starts)) == len(starts)
    used = set(re.findall(r'--8<-- "input_pipeline\.py:(\w+)"', PAGE.read_text()))
    assert used == set(starts)


def test_the_quick_run_is_analysed_and_every_pipeline_passed_the_gate() -> None:
    ds = analyse(FIX, ROOT / "snippets")
    ms = [m for m in ds.current if m.topic == "input_pipeline"]
    assert {m.variant for m in ms} == VARIANTS and all(m.ok for m in ms)
    answers = question_answers(ds, "input_pipeline")
    assert [qa.id for qa in answers] == ["options", "input_bound", "fit"]
    assert all(c.runners for qa in answers for c in qa.claims)
    # "Which options ... and by how much" is answered by its findings, with no "Yes."/"No." lead.
    assert answers[0].lead == "" and answers[0].lead_text() == ""
    assert answers[1].lead != ""
    # The bound is never recommended, whatever its speed; the options are.
    rec = ds.recommendations("input_pipeline")[0]
    assert rec.excluded == {"in_memory": "a limit to compare with, not an option"} and rec.best != "in_memory"
    # The bound's speedup over the naive pipeline is the ratio of their times (1.21x in that
    # run, on a machine others kept busy: unclear), not the reverse.
    med = {m.variant: m.median for m in ms}
    cr = ds.claim_result("input_pipeline", "memory_beats_naive")
    assert cr is not None and cr.checks[0].ratio is not None
    assert cr.checks[0].ratio.point == pytest.approx(med["naive"] / med["in_memory"], rel=0.15)


def _check(point: float, low: float, high: float) -> Any:
    return SimpleNamespace(ratio=SimpleNamespace(point=point, low=low, high=high),
                           scenario=SimpleNamespace(runner="r", key=("t", "s", "p")))


def test_the_input_bound_share_is_one_minus_the_inverse_speedup() -> None:
    # The bound twice as fast: half of the step is waiting for input; its CI from the ratio's.
    assert "50% (95% CI 20% to 75%)" in str(_share([_check(2.0, 1.25, 4.0)]))
    # The pipeline faster than the bound (noise): a negative share, shown as such, not hidden.
    assert "−" in str(_share([_check(0.8, 0.7, 1.1)]))
    assert "0% to 50%" in str(_share([_check(1.0, 0.9, 1.1), _check(2.0, 1.5, 2.5)]))
    ds = analyse(FIX, ROOT / "snippets")
    shown = str(render_inline(parse_inline('share("input_pipeline", "memory_beats_naive")'), ds))
    cr = ds.claim_result("input_pipeline", "memory_beats_naive")
    assert cr is not None and cr.checks[0].ratio is not None
    assert f"{round(100 * (1 - 1 / cr.checks[0].ratio.point))}%" in shown


def test_a_topic_not_measured_yet_says_so_in_one_plain_sentence(tmp_path: Path) -> None:
    """Other topics have results, this one none: the page says it is not measured yet, in the
    reader's words (no results folder, no command); a site with no results at all still
    says where they go."""
    snippets = tmp_path / "snippets"
    shutil.copytree(OTHER / "snippets", snippets)
    for f in (YAML, SNIPPET):
        shutil.copy(f, snippets / f.name)
    site = Site(tmp_path, OTHER / "data" / "results", snippets, tmp_path / "cache")
    site.prepare()
    md = ("# T\n\n<!-- tfperf:answers input_pipeline -->\n\n<!-- tfperf:chart input_pipeline view=latency -->\n\n"
          'Share: {{ tfperf.share("input_pipeline", "memory_beats_naive") }}.\n')
    html = site.page_content("<p>" + site.page_markdown(md, "topics/x.md", "topics/x/").replace("\n\n", "</p><p>")
                             + "</p>", "topics/x.md")
    assert html.count("Not measured yet.") == 1 + 3          # once for the page, once per question
    assert "(not measured yet)" in html and "not measured yet. It appears here once" in html
    assert "data/results" not in html and "tfperf run" not in html
    assert site.ds is not None and "tfperf run" in str(no_results(analyse(tmp_path / "none", snippets), "Chart"))


def _snippet() -> Any:
    sys.path.insert(0, str(SNIPPET.parent))
    spec = importlib.util.spec_from_file_location("input_pipeline_under_test", SNIPPET)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.tf
def test_the_gate_passes_every_pipeline_and_fails_a_wrong_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny run: 2 steps of the small model on small data, files in a temporary cache. Every
    variant's first epoch yields the naive pipeline's fingerprint within the tolerance, and
    so does a pipeline that shuffles the examples; one that augments every example alike,
    or drops an example for a repeated one, does not."""
    import tensorflow as tf

    from tfperf.measure.worker.outputs import compare

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    mod = _snippet()
    data = yaml.safe_load(YAML.read_text())
    tol = data["tolerance"]
    params = {"model": "small", "data": "small", "steps": 2}
    outputs = {name: getattr(mod, v["fn"])(**getattr(mod, v["setup"])(params)).numpy()
               for name, v in data["variants"].items()}
    assert outputs["naive"][0] == 2 * mod.BATCH
    assert list((tmp_path / "tfperf" / "input_pipeline").iterdir())      # the files went to the cache
    for name, out in outputs.items():
        assert compare(out, outputs["naive"], **tol)["within_tolerance"], name

    def wrong(pipeline: Any) -> Any:
        kw = mod.setup(params)
        dataset = pipeline(kw["files"], kw["length"]).map(mod.fingerprint_map(kw["total"]))
        return mod.train_epoch(kw["train_step"], dataset, kw["total"]).numpy()

    def shuffled(files: Any, length: int) -> Any:
        return (tf.data.TFRecordDataset(files).map(mod.decode).map(mod.make_augment(length))
                .shuffle(64, seed=1).batch(mod.BATCH))

    def one_augmentation(files: Any, length: int) -> Any:
        augment = mod.make_augment(length)        # every example cropped, flipped, shifted as example 0
        return (tf.data.TFRecordDataset(files).map(mod.decode)
                .map(lambda image, index, label: augment(image, index * 0, label)).batch(mod.BATCH))

    def repeated(files: Any, length: int) -> Any:
        records = tf.data.TFRecordDataset(files)  # the last example dropped, the first one twice
        return (records.take(2 * mod.BATCH - 1).concatenate(records.take(1))
                .map(mod.decode).map(mod.make_augment(length)).batch(mod.BATCH))

    assert compare(wrong(shuffled), outputs["naive"], **tol)["within_tolerance"]
    for bad in (one_augmentation, repeated):
        assert not compare(wrong(bad), outputs["naive"], **tol)["within_tolerance"], bad.__name__


def test_an_answer_after_its_lead_starts_a_sentence() -> None:
    """"Unclear. Whether fit() ...", not "Unclear. whether fit() ..." (the fixture's fit()
    answer is unclear on its one runner)."""
    from tfperf.render.blocks.answers_block import _answer

    fit = next(qa for qa in question_answers(analyse(FIX, ROOT / "snippets"), "input_pipeline") if qa.id == "fit")
    html = str(_answer(fit, "input_pipeline"))
    assert fit.lead == "Unclear" and re.search(r"Unclear\.</strong> (<[^>]+>)*Whether fit\(\)", html), html
