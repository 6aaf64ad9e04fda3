"""scripts/self_compared.py: a reference compared only with itself is listed unless it is
the scenario's baseline (the output gate across settings groups)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "self_compared.py"


def _module():
    spec = importlib.util.spec_from_file_location("self_compared", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _result(case_id: str, note: str | None, baseline: str) -> dict:
    return {"case_id": case_id, "topic": "t", "key_hash": "k", "output": {"note": note},
            "interleave": {"baseline": baseline}}


def test_only_references_outside_the_baseline_group_are_listed() -> None:
    mod = _module()
    base = "t/batch=1/threads=default/call"
    doc = {"results": [_result(base, "reference", base),                       # the baseline: fine
                       _result("t/batch=1/threads=1/call", "reference", base),  # its own reference only
                       _result("t/batch=1/threads=1/other", None, base)]}       # checked against a reference
    assert [r["case_id"] for r in mod.self_compared(doc)] == ["t/batch=1/threads=1/call"]
    assert mod.self_compared({"results": [_result(base, "reference", base)]}) == []


def test_harness_4_records_name_the_case_they_were_compared_with() -> None:
    mod = _module()
    base = "t/batch=1/threads=default/call"
    other = "t/batch=1/threads=1/call"
    doc = {"results": [
        {**_result(base, "reference", base), "output": {"note": "reference", "compared_with": base}},
        {**_result(other, None, base), "output": {"note": None, "compared_with": base}},       # across processes
        {**_result("t/batch=64/threads=1/call", None, base),                                 # fell back to itself
         "output": {"note": "reference", "compared_with": "t/batch=64/threads=1/call"}}]}
    assert [r["case_id"] for r in mod.self_compared(doc)] == ["t/batch=64/threads=1/call"]


def test_the_reference_standing_in_for_an_unavailable_baseline_is_not_listed() -> None:
    mod = _module()
    base, stand_in = "t/b=1/keras=3/ref", "t/b=1/keras=2/ref"
    inter = {"baseline": base, "output_reference": stand_in}
    doc = {"results": [
        {"case_id": stand_in, "output": {"note": "reference", "compared_with": stand_in}, "interleave": inter},
        {"case_id": "t/b=1/eager=off/ref", "output": {"note": None, "compared_with": stand_in}, "interleave": inter},
        {"case_id": "t/b=1/eager=on/ref", "output": {"note": "reference", "compared_with": "t/b=1/eager=on/ref"},
         "interleave": inter}]}
    assert [r["case_id"] for r in mod.self_compared(doc)] == ["t/b=1/eager=on/ref"]
