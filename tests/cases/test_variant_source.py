"""A variant's results go stale when the code it runs changes, and only then.

``variant_source.source_hashes`` hashes what each variant reaches in its snippet; the
analysis stales a result by it (select.mark_stale) and the harness re-measures by it
(orchestrate.missing). Results stored before it existed keep the whole-file rule."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tfperf.analyse.records import stale_reason
from tfperf.cases import Topic, discover
from tfperf.cases.topic import load_topic
from tfperf.cases.variant_source import source_hashes
from tfperf.errors import CaseGridError
from tfperf.measure.supervise.orchestrate import Stored, missing
from tfperf.store.record_types import key_hash

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = '''"""A topic."""
import math

SCALE = 2.0
LIMIT = math.floor(3.5)          # calls something: runs on import whatever is called


def helper(x):
    """Shared by b only."""
    return x * SCALE


def setup(params):
    return {"x": params["n"]}


def a(x):
    return x + 1


def b(x):
    return helper(x)


def c(x):
    return x - 1


if __name__ == "__main__":
    print(a(1))
'''

VARIANTS: dict[str, dict[str, object]] = {"a": {"fn": "a"}, "b": {"fn": "b"}, "c": {"fn": "c", "label": "C"}}


def hashes(source: str, variants: dict[str, dict[str, object]] | None = None,
           tolerance: dict[str, float] | None = None) -> dict[str, str]:
    return source_hashes(source.encode(), Path("t.py"), variants or VARIANTS, "a", "setup",
                         tolerance or {"rtol": 1e-4, "atol": 1e-5})


def changed(new_source: str, **kw: Any) -> set[str]:
    before, after = hashes(SNIPPET), hashes(new_source, **kw)
    return {v for v in before if before[v] != after[v]}


def test_every_variant_has_its_own_hash() -> None:
    h = hashes(SNIPPET)
    assert sorted(h) == ["a", "b", "c"] and len(set(h.values())) == 3
    assert all(len(x) == 16 and int(x, 16) >= 0 for x in h.values())


@pytest.mark.parametrize("edit", [
    ("# two", "# two\n# a comment"),
    ('"""Shared by b only."""', '"""Shared by b, and reworded."""'),
    ("    return x + 1", "    return (x\n            + 1)"),
    ('print(a(1))', 'print("run by hand", a(2))'),
    ('"""A topic."""', '"""A topic, described anew."""'),
], ids=["comment", "docstring", "layout", "main-block", "module-docstring"])
def test_what_runs_nothing_changes_no_hash(edit: tuple[str, str]) -> None:
    old, new = edit
    source = SNIPPET.replace("import math", "import math  # two") if old == "# two" else SNIPPET
    before = hashes(source)
    assert old in source
    assert hashes(source.replace(old, new, 1)) == before


def test_a_variants_own_function_changes_only_its_hash() -> None:
    assert changed(SNIPPET.replace("return x - 1", "return x - 2")) == {"c"}


def test_a_helper_changes_the_variants_that_reach_it() -> None:
    assert changed(SNIPPET.replace("return x * SCALE", "return x * SCALE * 1")) == {"b"}
    assert changed(SNIPPET.replace("SCALE = 2.0", "SCALE = 3.0")) == {"b"}


def test_the_reference_and_the_setup_change_every_hash() -> None:
    """Every output is checked against the reference's, and setup feeds every variant."""
    assert changed(SNIPPET.replace("return x + 1", "return x + 2")) == {"a", "b", "c"}
    assert changed(SNIPPET.replace('return {"x": params["n"]}', 'return {"x": params["n"] + 0}')) == {"a", "b", "c"}


def test_imports_and_statements_that_call_something_change_every_hash() -> None:
    assert changed(SNIPPET.replace("import math", "import math\nimport os")) == {"a", "b", "c"}
    assert changed(SNIPPET.replace("math.floor(3.5)", "math.floor(4.5)")) == {"a", "b", "c"}


def test_a_function_that_reads_names_at_run_time_hashes_the_whole_module() -> None:
    opaque = SNIPPET.replace("return x - 1", "return globals()['helper'](x)")
    before = hashes(opaque)
    after = hashes(opaque.replace("return x + 1", "return x + 1  # same").replace("SCALE = 2.0", "SCALE = 4.0"))
    assert before["c"] != after["c"], "c reads names at run time: any top-level change counts"
    assert before["a"] == after["a"], "a reaches nothing that changed"


def test_the_yaml_entry_counts() -> None:
    assert changed(SNIPPET, variants={**VARIANTS, "c": {"fn": "c", "label": "C, renamed"}}) == {"c"}
    assert changed(SNIPPET, variants={**VARIANTS, "d": {"fn": "c"}}) == set(), "a new variant stales no other"
    assert changed(SNIPPET, tolerance={"rtol": 1e-3, "atol": 1e-5}) == {"a", "b", "c"}


def test_a_snippet_that_does_not_parse_names_the_file_and_line() -> None:
    with pytest.raises(CaseGridError) as err:
        hashes(SNIPPET.replace("def c(x):", "def c(x)"))
    assert "t.py" in str(err.value) and "line 25" in str(err.value)


def test_the_real_topics_give_each_variant_a_hash() -> None:
    for topic in discover(ROOT / "snippets"):
        assert set(topic.source_hashes) == set(topic.variants), topic.name


# -- the topic, the analysis and the harness use it --------------------------------------------


def _topic(tmp_path: Path, source: str) -> Any:
    (tmp_path / "t.py").write_text(source)
    (tmp_path / "t.yaml").write_text(json.dumps({"topic": "t", "reference": "a", "default": "a",
                                                 "variants": VARIANTS, "profiles": {"quick": {"params": {"n": [1]}}}}))
    return load_topic(tmp_path / "t.yaml")


def test_a_comment_stales_the_file_hash_but_no_source_hash(tmp_path: Path) -> None:
    before = _topic(tmp_path, SNIPPET)
    after = _topic(tmp_path, SNIPPET.replace("def a(x):", "# the reference\ndef a(x):"))
    assert before.snippet_hash != after.snippet_hash
    assert before.source_hashes == after.source_hashes


def _info(source_hashes: dict[str, str], snippet_hash: str = "f" * 16) -> dict[str, Topic]:
    return {"t": Topic(name="t", title="t", path=Path("t.yaml"), snippet=Path("t.py"), snippet_hash=snippet_hash,
                       source_hashes=source_hashes, variants={}, reference="a", default="a", profiles={})}


def _measurement(variant: str, **key: str) -> Any:
    from tfperf import HARNESS_VERSION
    return SimpleNamespace(topic="t", variant=variant, key={"harness_version": HARNESS_VERSION, **key})


def test_the_analysis_stales_by_the_source_hash_when_the_result_has_one() -> None:
    fresh = _measurement("b", snippet_hash="0" * 16, source_hash="1" * 16)       # file changed, b's code did not
    moved = _measurement("c", snippet_hash="f" * 16, source_hash="2" * 16)       # c's code changed
    legacy_ok = _measurement("b", snippet_hash="f" * 16)
    legacy_old = _measurement("b", snippet_hash="0" * 16)
    topics = _info({"b": "1" * 16, "c": "3" * 16})
    reasons = [stale_reason(m, topics["t"]) for m in (fresh, moved, legacy_ok, legacy_old)]
    assert [r is not None for r in reasons] == [False, True, False, True]
    assert "code this variant runs" in (reasons[1] or "")
    assert "snippet or its case grid" in (reasons[3] or "")


def _task(case_id: str, key: dict[str, object]) -> Any:
    return SimpleNamespace(id=case_id, key=key)


def test_the_harness_skips_a_result_stored_before_source_hashes_while_its_file_hash_holds() -> None:
    key = {"snippet_hash": "f" * 16, "source_hash": "1" * 16, "harness_version": "4", "runner": "r"}
    legacy = {k: v for k, v in key.items() if k != "source_hash"}
    stored = Stored(done=frozenset({("t/n=1/a", key_hash(legacy))}))
    assert missing([_task("t/n=1/a", key)], stored) == []
    moved = {**key, "snippet_hash": "0" * 16}                 # the file changed since: the old result is stale
    assert [t.id for t in missing([_task("t/n=1/a", moved)], stored)] == ["t/n=1/a"]
    new = Stored(done=frozenset({("t/n=1/a", key_hash(key))}))
    assert missing([_task("t/n=1/a", key)], new) == []
    assert [t.id for t in missing([_task("t/n=1/a", {**key, "source_hash": "2" * 16})], new)] == ["t/n=1/a"]
