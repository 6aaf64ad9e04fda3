"""Every committed results file is in the form `tfperf merge` writes (its records in the
merge's order, its text canonical), so the first results pull request that touches a file
changes only the records it adds instead of moving every record (a file in another order
showed as 355 records moved in such a pull request, none added or removed). No TensorFlow."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tfperf.store.files import dumps, load
from tfperf.store.merge import merge_docs

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted(p for p in (ROOT / "data").rglob("results/**/*.json") if p.is_file())


def canonical_text(path: Path) -> str:
    return dumps(merge_docs([load(path)]))


def test_there_are_committed_results() -> None:
    assert COMMITTED


@pytest.mark.parametrize("path", COMMITTED, ids=[str(p.relative_to(ROOT)) for p in COMMITTED])
def test_a_committed_results_file_is_in_merge_order(path: Path) -> None:
    assert path.read_text(encoding="utf-8") == canonical_text(path), (
        f"{path.relative_to(ROOT)} is not in the order tfperf merge writes: rewrite it with "
        f"`tfperf merge --data <empty dir> {path.relative_to(ROOT)}` and commit the file it writes")


def test_the_order_check_can_fail(tmp_path: Path) -> None:
    """The same records in another order are not the merge's form."""
    text = COMMITTED[0].read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [i for i, line in enumerate(text) if line.startswith('  {"case_id"') and line.endswith(",\n")]
    i, j = next((a, b) for a, b in itertools.pairwise(rows) if text[a][:60] != text[b][:60])
    text[i], text[j] = text[j], text[i]
    moved = tmp_path / "moved.json"
    moved.write_text("".join(text), encoding="utf-8")
    assert canonical_text(moved) == canonical_text(COMMITTED[0]), "the same records"
    assert moved.read_text(encoding="utf-8") != canonical_text(moved)
