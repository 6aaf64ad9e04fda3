"""Merging never loses a record, is order-independent and idempotent; the CI merge step
rejects malformed artifacts by file and field and merges the rest."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from store_records import FIXTURES, make_doc, make_result

from tfperf import store
from tfperf.cli import results as commands
from tfperf.store.merge import canonical

POOL = [make_result(i % 4, median=0.001 * (1 + i), finished_at=f"2026-05-0{1 + i % 3}T00:00:00+00:00")
        for i in range(8)] + [make_result(9, status="crashed")]
DESCRIPTIONS = st.sampled_from([None, "a", "b"])
DOCS = st.lists(st.builds(lambda rs, d: make_doc(results=rs, description=d),
                          st.lists(st.sampled_from(POOL), max_size=6), DESCRIPTIONS), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(DOCS, st.randoms())
def test_merge_keeps_every_record_whatever_the_order(docs: list[dict], rnd) -> None:  # type: ignore[no-untyped-def]
    merged = store.merge_docs(docs)
    texts = [canonical(r) for r in merged["results"]]
    assert len(texts) == len(set(texts))  # identical records once
    assert set(texts) == {canonical(r) for d in docs for r in d["results"]}  # and nothing dropped
    shuffled = list(docs)
    rnd.shuffle(shuffled)
    assert store.dumps(store.merge_docs(shuffled)) == store.dumps(merged)
    assert store.merge_docs([merged, *docs]) == merged  # idempotent
    halves = [store.merge_docs(docs[: len(docs) // 2 or 1]), store.merge_docs(docs[len(docs) // 2 or 1:] or docs)]
    assert store.merge_docs(halves) == merged  # associative
    store.validate(merged)


def _artifact(root: Path, name: str, doc: dict) -> Path:
    path = root / name / "data" / "results" / doc["runner"]["label"] / f"{doc['profile']}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc))
    return path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_merge_into_two_runners_and_a_malformed_artifact(tmp_path: Path) -> None:
    """Fault: a contributed or CI artifact that is malformed, merged together with valid ones.
    Happens: `tfperf merge` rejects it by file and field and exits 1.
    Kept: the valid artifacts are merged; a second merge changes no byte.
    """
    data, arts = tmp_path / "data", tmp_path / "artifacts"
    existing = store.results_path(data, "runner-a", "quick")
    store.write_atomic(existing, make_doc("runner-a", results=[make_result(0, runner="runner-a")]))
    _artifact(arts, "a-shard1", make_doc("runner-a", results=[make_result(i, runner="runner-a") for i in (1, 2)]))
    _artifact(arts, "a-shard2", make_doc("runner-a", results=[make_result(3, runner="runner-a")]))
    _artifact(arts, "b", make_doc("runner-b", "full", results=[make_result(1, runner="runner-b")]))
    bad_doc = make_doc("runner-c", results=[make_result(1, runner="runner-c")])
    bad_doc["results"][0]["timing"]["summary"]["median"] = -2.0
    bad = _artifact(arts, "c", bad_doc)

    report = store.merge_into(data, [arts])
    assert [(e.path, e.field) for e in report.rejected] == [(str(bad), "results[0].timing.summary.median")]
    assert len(report.merged) == 3 and not report.duplicates
    a = store.load(existing)
    assert sorted(r["params"]["batch"] for r in a["results"]) == [0, 1, 2, 3]
    assert len(store.load(store.results_path(data, "runner-b", "full"))["results"]) == 1
    assert not store.results_path(data, "runner-c", "quick").exists()

    before = _snapshot(data)
    again = store.merge_into(data, [arts])
    assert _snapshot(data) == before and again.written == []
    assert len(again.duplicates) == 3 and "no results file changed" in again.lines()
    assert [(e.path, e.field) for e in again.rejected] == [(str(bad), "results[0].timing.summary.median")]


def test_merge_into_is_order_independent(tmp_path: Path) -> None:
    arts = tmp_path / "arts"
    paths = [_artifact(arts, f"s{i}", make_doc("runner-a", description=f"shard {i}",
                                               results=[make_result(i, runner="runner-a")])) for i in range(3)]
    store.merge_into(tmp_path / "d1", paths)
    store.merge_into(tmp_path / "d2", list(reversed(paths)))
    assert _snapshot(tmp_path / "d1") == _snapshot(tmp_path / "d2")


def test_contribution_duplicate_recognised_and_target_never_touched_when_broken(tmp_path: Path) -> None:
    """Fault: the same results file submitted twice (a duplicate contribution).
    Happens: the merge reports it as a duplicate: every record is already there.
    Kept: the published file is unchanged; a broken published file is never touched.
    """
    data = tmp_path / "data"
    contribution = tmp_path / "mine.json"
    shutil.copy(FIXTURES / "valid.json", contribution)
    first = store.merge_into(data, [contribution])
    assert len(first.merged) == 1 and first.merged[0][2] == 4 + 1 + 1 + 1  # results, noise, breakdown, env
    second = store.merge_into(data, [contribution])
    assert second.duplicates == [(contribution, first.merged[0][1])]
    target = first.merged[0][1]
    target.write_text("{broken")
    third = store.merge_into(data, [contribution])
    assert [e.path for e in third.rejected] == [str(target)] and target.read_text() == "{broken"


def test_cli_merge_exit_status_and_lines(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    parser = argparse.ArgumentParser(prog="tfperf")
    commands.add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["merge", "--data", str(tmp_path / "data"),
                              str(FIXTURES / "valid.json"), str(FIXTURES / "missing_field.json")])
    assert args.handler(args) == 1
    out, err = capsys.readouterr()
    assert "merged " in out and "wrote " in out
    assert err.splitlines() == [(f"rejected {FIXTURES / 'missing_field.json'}: "
                                "results[1].timing.summary.median: missing (required)")]
