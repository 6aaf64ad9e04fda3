"""The frozen fixture across TensorFlow releases (tests/fixtures/site/history/, made by
make_history_fixture.py), analysed from a chosen subset of its results files (the whole set
also passes the store's loader: test_versions.test_fixture_passes_the_store)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tfperf.analyse.dataset import Dataset, analyse_documents

FIX = Path(__file__).parent / "fixtures" / "site" / "history"
RESULTS = FIX / "data" / "results"
TOPIC = "fixture_topic"


def dataset(keep: Callable[[Path], bool] = lambda p: True) -> Dataset:
    """The fixture's results files that ``keep`` accepts (e.g. only full.json), analysed."""
    docs = [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(RESULTS.rglob("*.json")) if keep(p)]
    return analyse_documents(docs, FIX / "snippets", RESULTS)
