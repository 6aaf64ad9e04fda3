"""One home for identities: names are checked by the schema's fullmatch rule everywhere, and
the harness and the analysis build params/settings/case ids with the same functions, which
still reproduce every stored case id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfperf import cases, store
from tfperf.analyse import records
from tfperf.cases import topic as topic_module
from tfperf.cases.topic import Topic, load_topic
from tfperf.errors import CaseGridError, TfperfError
from tfperf.store import record_types as ids
from tfperf.store import schema

ROOT = Path(__file__).resolve().parents[2]

TOPIC: dict[str, Any] = {"topic": "t", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}},
                         "profiles": {"quick": {"params": {"n": [1]}}}}


def _load(tmp_path: Path, data: dict[str, Any]) -> Topic:
    (tmp_path / "t.py").write_text("def setup(p):\n    return {}\n")
    (tmp_path / "t.yaml").write_text(json.dumps(data))
    return load_topic(tmp_path / "t.yaml")


def test_cases_uses_the_schema_names() -> None:
    assert topic_module.PROFILES is schema.PROFILES
    for module in (cases, topic_module):
        assert not hasattr(module, "NAME_RE"), "one NAME_RE, in store/schema.py"


@pytest.mark.parametrize("change, field", [
    ({"topic": "foo\n"}, "topic"),
    ({"variants": {"a\n": {"fn": "f"}}, "reference": "a\n", "default": "a\n"}, "variants.a\n"),
])
def test_a_trailing_newline_is_not_a_name(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    with pytest.raises(CaseGridError) as err:
        _load(tmp_path, {**TOPIC, **change})
    assert err.value.field == field


def test_a_parameter_value_with_a_trailing_newline_is_rejected(tmp_path: Path) -> None:
    _load(tmp_path, {**TOPIC, "profiles": {"quick": {"params": {"n": ["x\n"]}}}})
    with pytest.raises(CaseGridError) as err:
        cases.load(tmp_path / "t.yaml")
    assert err.value.field == "params"


def test_harness_and_analysis_share_one_definition() -> None:
    assert records.params_id is ids.params_id and records.settings_id is ids.settings_id


def test_ids_of_the_harness_and_the_analysis_agree(tmp_path: Path) -> None:
    topic = _load(tmp_path, {**TOPIC, "profiles": {"quick": {"params": {}, "settings": {"keras": ["3"]}}}})
    case = cases.expand(topic, "quick")[0]
    assert case.params_id == "" and case.case_id == "t//keras=3/a"
    assert records.params_id(case.params) == case.params_id
    assert records.settings_id(case.settings) == case.settings_id
    assert ids.params_id({"flag": True, "b": 2}) == "b=2,flag=true"
    assert ids.settings_id({}) == "default"
    assert ids.case_id("t", {"n": 1}, {}, "a", aa=True) == "t/n=1/default/a#aa"


def _stored_results() -> list[tuple[str, dict[str, Any]]]:
    paths = sorted((ROOT / "data" / "results").glob("*/*.json")) + sorted((ROOT / "tests" / "fixtures").rglob("*.json"))
    out = []
    for p in paths:
        try:
            doc = store.load(p)      # the malformed fixtures (a traversing case id...) are refused here
        except (TfperfError, ValueError):
            continue
        out += [(p.name, r) for r in doc["results"]]
    return out


def test_every_stored_case_id_is_rebuilt_unchanged() -> None:
    """Case ids are keys in committed data: the shared definition must reproduce each."""
    stored = _stored_results()
    assert len({name for name, _ in stored}) >= 2, "the committed data and the fixtures hold results"
    wrong = [(name, r["case_id"]) for name, r in stored
             if ids.case_id(r["topic"], r["params"], r["settings"], r["variant"],
                            arrival=(r.get("arrival") or {}).get("id", "back_to_back")) != r["case_id"]]
    assert not wrong, wrong[:5]
