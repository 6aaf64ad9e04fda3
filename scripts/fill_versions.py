"""Fill in the package versions a run did not record, from the venv that ran it.

For environments that record TensorFlow and Keras as None (a run under a tf-nightly venv
by a harness that did not read the nightly's distribution names, tf-nightly, keras-nightly,
tf-keras-nightly): given that venv and the run's time window, which picks the
environments, the versions are read from the venv's package metadata and written into
those environments and their results' keys (hashes and references recomputed; timings
untouched).

    python scripts/fill_versions.py data/results/RUNNER/history.json \\
        --venv .venvs/tf-2.23.0.dev20261026 --since 2026-11-26T17:00:49 --until 2026-11-26T17:08:38
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tfperf import store
from tfperf.errors import ResultsFileError
from tfperf.measure.envinfo import keras_version_for, package_versions
from tfperf.store.relabel import fill_versions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", type=Path)
    p.add_argument("--venv", type=Path, required=True, help="the venv that ran the environments")
    p.add_argument("--since", required=True, help="first environment time (ISO, UTC)")
    p.add_argument("--until", required=True, help="last environment time (ISO, UTC)")
    args = p.parse_args(argv)
    try:
        site = sorted(args.venv.glob("lib/python*/site-packages"))
        if not site:
            raise ResultsFileError(str(args.venv), "(venv)", "no lib/python*/site-packages: not a venv")
        versions = package_versions([str(s) for s in site])
        if versions["tensorflow"] is None:
            raise ResultsFileError(str(args.venv), "(venv)", "no TensorFlow distribution in it")
        doc = store.load(args.file)
        chosen = {eid for eid, env in doc["environments"].items()
                  if (env.get("versions") or {}).get("tensorflow") is None
                  and args.since <= str(env.get("time", ""))[:19] <= args.until}
        new = fill_versions(doc, chosen, versions, keras_version_for, str(args.file))
        with store.locked(args.file):
            store.write_atomic(args.file, new, overwrite=True)
    except ResultsFileError as e:
        print(f"fill_versions: {e}", file=sys.stderr)
        return 1
    n = sum(1 for r in doc["results"] if r["env_id"] in chosen)
    print(f"{args.file}: {len(chosen)} environments and {n} results now record TensorFlow "
          f"{versions['tensorflow']} (Keras {versions['keras3']}, tf_keras {versions['tf_keras']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
