"""Which results had their output compared only with themselves?

Every variant's first output is checked against the reference variant under the
scenario's baseline settings. A result whose output record has ``compared_with`` names
the case it was checked against, from another worker process. A result without it
(written by a harness version below 4) was checked inside its own process, where the
reference of any other settings group (oneDNN off, one thread, Keras 2, ...) is compared
with nothing but itself, and its output's note says "reference". Only the scenario's
output reference may be compared with itself (the baseline, or the reference variant that
stands in for it where the baseline cannot run, e.g. Keras 3 before TensorFlow 2.16);
this script lists the others. Exit status 1 when it lists any.

    .venv/bin/python scripts/self_compared.py                 # data/results/*/*.json
    .venv/bin/python scripts/self_compared.py FILE...
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from tfperf import store


def self_compared(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Results whose output check was against themselves, the scenario's baseline aside."""
    out = []
    for r in doc.get("results", []):
        output = r.get("output") or {}
        interleave = r.get("interleave") or {}
        # The scenario's output reference: the baseline, or the reference that stood in
        # for it when the baseline could not run (output_reference, where recorded).
        baseline = interleave.get("output_reference") or interleave.get("baseline")
        if "compared_with" in output:          # the case the check used
            itself = output["compared_with"] == r.get("case_id")
        else:                                  # no compared_with: a reference's note says it
            itself = output.get("note") == "reference"
        if itself and r.get("case_id") != baseline:
            out.append(r)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    files = args.files or sorted((ROOT / "data" / "results").glob("*/*.json"))
    found = 0
    for path in files:
        rows = self_compared(store.load(path))
        found += len(rows)
        by_topic = Counter(r["topic"] for r in rows)
        print(f"{path}: {len(rows)} result(s) compared only with themselves"
              + (f" ({', '.join(f'{t} {n}' for t, n in sorted(by_topic.items()))})" if rows else ""))
        for r in rows:
            print(f"  {r['case_id']}  (key {r['key_hash']})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
