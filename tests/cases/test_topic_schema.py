"""Topic YAML schema: a misspelled key or a claim naming no variant fails at load, naming
the file and the key path; every topic the project and its tests use still loads, its case
grid included (what `tfperf run` and the analysis both accept)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfperf import cases
from tfperf.cases.topic import Topic, load_topic
from tfperf.errors import CaseGridError

ROOT = Path(__file__).resolve().parents[2]

TOPIC: dict[str, Any] = {
    "topic": "t", "reference": "a", "default": "a",
    "variants": {"a": {"fn": "f"}, "b": {"fn": "g", "label": "b way"}},
    "profiles": {"quick": {"params": {"n": [1, 2]}, "settings": {"keras": ["3"]}, "timeout_s": 10,
                           "budget": {"min_samples": 3}}},
    "claims": [{"id": "b_beats_a", "text": "b is faster", "candidate": "b", "baseline": "a", "where": {"n": [1]}}],
}


def _load(tmp_path: Path, data: dict[str, Any]) -> Topic:
    (tmp_path / "t.py").write_text("def setup(p):\n    return {}\n")
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(data))
    return load_topic(path)


def _rejected(tmp_path: Path, data: dict[str, Any]) -> CaseGridError:
    with pytest.raises(CaseGridError) as err:
        _load(tmp_path, data)
    assert err.value.path == str(tmp_path / "t.yaml")
    return err.value


@pytest.mark.parametrize("path", sorted((ROOT / "snippets").glob("*.yaml"))
                         + sorted((ROOT / "tests" / "fixtures").rglob("snippets/*.yaml")), ids=lambda p: p.name)
def test_every_topic_of_the_project_and_its_fixtures_loads(path: Path) -> None:
    assert cases.load(path).name == path.stem


def test_the_valid_example_loads(tmp_path: Path) -> None:
    assert _load(tmp_path, TOPIC).name == "t"
    every_section = {
        **TOPIC, "title": "T", "snippet": "t.py", "setup": "setup", "timeout_s": 5,
        "tolerance": {"rtol": 1e-4, "atol": 1e-5}, "per_call": {"divide_by": "n", "unit": "item"},
        "baseline_settings": {"keras": "3"}, "settings_labels": {"keras": {"3": "Keras 3"}},
        "settings_map": {"flavor": {"x": {"env": {"F": "x"}, "intra_op_threads": 1, "inter_op_threads": 1,
                                          "eager": True, "cpus": [0]}}},
        "exclude": [{"n": 2, "variant": "b"}], "breakdown_categories": [{"name": "x", "match": ["y"]}],
        "breakdowns": [{"variant": "b", "params": {"n": 1}, "settings": {"keras": "3"}, "calls": 5,
                        "profiles": ["quick"]}],
        "settings_claims": [{"id": "s", "text": "s", "candidate": "a", "baseline": "a", "candidate_settings": {"keras": "3"},
                             "baseline_settings": {"keras": "2"}, "where": {"n": [1]}, "min_effect": 0.1}],
    }
    topic = _load(tmp_path, every_section)
    assert topic.name == "t" and topic.timeout_s == 5.0 and topic.profiles["quick"].timeout_s == 10.0
    assert topic.tolerance == {"rtol": 1e-4, "atol": 1e-5}, "YAML reads 1e-05 as a string: still a number"
    assert topic.per_call is not None and (topic.per_call.divide_by, topic.per_call.unit) == ("n", "item")
    assert topic.breakdown_categories == [{"name": "x", "match": ["y"]}]


@pytest.mark.parametrize("change, field, hint", [
    ({"exlude": [{"n": 1}]}, "exlude", "did you mean 'exclude'"),
    ({"timout_s": 5}, "timout_s", "did you mean 'timeout_s'"),
    ({"profiles": {"quick": {**TOPIC["profiles"]["quick"], "timout_s": 5}}}, "profiles.quick.timout_s", "timeout_s"),
    ({"profiles": {"quick": {**TOPIC["profiles"]["quick"], "budget": {"budget": 1}}}},
     "profiles.quick.budget.budget", "budget_s"),
    ({"variants": {"a": {"fn": "f", "setpu": "s"}, "b": {"fn": "g"}}}, "variants.a.setpu", "setup"),
    ({"claims": [{**TOPIC["claims"][0], "were": {"n": [1]}}]}, "claims.0.were", "where"),
    ({"settings_map": {"flavor": {"x": {"envv": {}}}}}, "settings_map.flavor.x.envv", "env"),
    ({"tolerance": {"rtoll": 1e-3}}, "tolerance.rtoll", "rtol"),
])
def test_a_misspelled_key_is_rejected_with_its_path(tmp_path: Path, change: dict[str, Any], field: str,
                                                    hint: str) -> None:
    err = _rejected(tmp_path, {**TOPIC, **change})
    assert err.field == field and hint in err.problem and "unknown key" in err.problem
    assert str(tmp_path / "t.yaml") in str(err) and field in str(err)


@pytest.mark.parametrize("change, field", [
    ({"claims": [{**TOPIC["claims"][0], "candidate": "c"}]}, "claims.0.candidate"),
    ({"claims": [{**TOPIC["claims"][0], "baseline": "predcit"}]}, "claims.0.baseline"),
    ({"settings_claims": [{"id": "s", "candidate": "a", "baseline": "nope", "candidate_settings": {"keras": "3"},
                           "baseline_settings": {"keras": "2"}}]}, "settings_claims.0.baseline"),
    ({"breakdowns": [{"variant": "z", "calls": 3}]}, "breakdowns.0.variant"),
    ({"controls": [{"id": "c", "variant": "z", "settings": {"keras": "2"}, "same_as": {"keras": "3"}}]},
     "controls.0.variant"),
])
def test_a_claim_naming_an_unknown_variant_is_rejected(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    err = _rejected(tmp_path, {**TOPIC, **change})
    assert err.field == field and "not a declared variant" in err.problem


@pytest.mark.parametrize("change, field", [
    ({"claims": [{**TOPIC["claims"][0], "where": {"m": [1]}}]}, "claims.0.where.m"),
    ({"exclude": [{"n": 1, "varient": "b"}]}, "exclude.0.varient"),
    ({"profiles": {"quick": {**TOPIC["profiles"]["quick"], "exclude": [{"keras": "3", "nn": 1}]}}},
     "profiles.quick.exclude.0.nn"),
    ({"baseline_settings": {"kears": "3"}}, "baseline_settings.kears"),
    ({"settings_claims": [{"id": "s", "candidate": "a", "baseline": "a", "candidate_settings": {"keras": "3"},
                           "baseline_settings": {"kras": "2"}}]}, "settings_claims.0.baseline_settings.kras"),
    ({"controls": [{"id": "c", "variant": "a", "settings": {"thread": "{cores}"}, "same_as": {"keras": "3"}}]},
     "controls.0.settings.thread"),
])
def test_a_scope_naming_no_parameter_or_setting_is_rejected(tmp_path: Path, change: dict[str, Any],
                                                            field: str) -> None:
    err = _rejected(tmp_path, {**TOPIC, **change})
    assert err.field == field and "names no parameter" in err.problem


@pytest.mark.parametrize("change, field", [
    ({"claims": {"id": "x"}}, "claims"),
    ({"claims": [{"candidate": "a", "baseline": "b"}]}, "claims.0.id"),
    ({"variants": {"a": "f"}}, "variants.a"),
    ({"tolerance": {"rtol": "tight"}}, "tolerance.rtol"),
    ({"timeout_s": -1}, "timeout_s"),
    ({"profiles": {"quick": {"params": {"n": [1]}, "timeout_s": "long"}}}, "profiles.quick.timeout_s"),
    ({"profiles": {"quick": {"params": {"n": [1]}, "budget": [3]}}}, "profiles.quick.budget"),
    ({"settings_claims": [{"id": "s", "candidate": "a", "baseline": "a", "candidate_settings": {"keras": "3"}}]},
     "settings_claims.0.baseline_settings"),
    ({"per_call": {"unit": "step"}}, "per_call.divide_by"),
    ({"breakdown_categories": {"x": "y"}}, "breakdown_categories"),
    ({"breakdown_categories": [{"name": "x", "match": "y"}]}, "breakdown_categories.0.match"),
])
def test_a_value_of_the_wrong_shape_is_rejected(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    assert _rejected(tmp_path, {**TOPIC, **change}).field == field


def test_display_names_default_to_labels_and_fit_a_legend(tmp_path: Path) -> None:
    """A variant's display name (legends, tables, tooltips) is its ``display:`` entry, else
    its label, else its id; one longer than a legend line, or shared by two variants, is
    refused with the field named. The label stays as measured (it is part of a result's key)."""
    topic = _load(tmp_path, {**TOPIC, "display": {"a": "the a way"}})
    assert topic.display == {"a": "the a way", "b": "b way"}
    long = "x" * 37
    err = _rejected(tmp_path, {**TOPIC, "variants": {**TOPIC["variants"], "b": {"fn": "g", "label": long}}})
    assert err.field == "variants.b.label" and "37 characters" in str(err) and "`display:`" in str(err)
    assert _load(tmp_path, {**TOPIC, "variants": {**TOPIC["variants"], "b": {"fn": "g", "label": long}},
                            "display": {"b": "b"}}).display["b"] == "b"
    err = _rejected(tmp_path, {**TOPIC, "display": {"a": "b way"}})
    assert err.field == "variants.b.label" and "also the display name of 'a'" in str(err)
    assert _rejected(tmp_path, {**TOPIC, "display": {"c": "c"}}).field == "display.c"


def test_groups_name_variants_and_leave_none_out(tmp_path: Path) -> None:
    three = {**TOPIC, "variants": {**TOPIC["variants"], "c": {"fn": "h"}}}
    assert _load(tmp_path, {**three, "groups": {"one": ["b"], "two": ["c"]}}).groups == {"one": ["b"], "two": ["c"]}
    assert _rejected(tmp_path, {**three, "groups": {"one": ["b", "z"]}}).field == "groups.one"
    err = _rejected(tmp_path, {**three, "groups": {"one": ["b"]}})     # c in no group; a is the default
    assert err.field == "groups" and "'c'" in str(err)
