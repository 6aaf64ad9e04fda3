#!/usr/bin/env python3
"""Which cases got slower (or faster) between two result sets of one runner and profile.

Each case's newest result in OLD is compared with its newest result in NEW through the stored
95% CIs of the medians: a case is flagged when the intervals do not overlap and the medians
differ by more than the threshold (tfperf.analyse.views.regress). Prints a markdown table.

    python scripts/regression_report.py OLD NEW [--threshold 0.10] [--max-rows 60]

OLD and NEW are results files, or REV:PATH for a file as committed at a git revision:

    python scripts/regression_report.py 7bf666c:data/results/linux-x86_64-2core-intel-amx/full.json \\
        data/results/linux-x86_64-2core-intel-amx/full.json

With --ids FILE, the cases that are slower or fail now are appended to FILE, one
``<runner>/<profile> <case id>`` a line (the case set an issue is about: scripts/ci/open-pr.sh).

Exit status: 0 (a report, whatever it says), 1 with --fail-on-slower when a case is slower or
fails now, 2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from tfperf.analyse.views import regress
from tfperf.errors import TfperfError
from tfperf.store.files import load


def _load(spec: str, tmp: Path) -> dict:
    """A results file (migrated, validated) from a path, or REV:PATH in the git repository
    of the working directory."""
    if not Path(spec).exists() and ":" in spec:
        rev, path = spec.split(":", 1)
        out = subprocess.run(["git", "show", f"{rev}:{path}"], check=False, capture_output=True)  # the current repository
        if out.returncode != 0:
            raise TfperfError(f"{spec}: {out.stderr.decode(errors='replace').strip() or 'not in git'}")
        f = tmp / f"{len(list(tmp.iterdir()))}-{Path(path).name}"
        f.write_bytes(out.stdout)
        try:
            return load(f)
        except TfperfError as exc:  # name the revision, not the temporary copy
            raise TfperfError(str(exc).replace(str(f), spec)) from None
    return load(spec)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old", help="results file or REV:PATH (the earlier set)")
    p.add_argument("new", help="results file or REV:PATH (the later set)")
    p.add_argument("--threshold", type=float, default=regress.DEFAULT_THRESHOLD,
                   help="smallest relative change of the median that counts (default: %(default)s)")
    p.add_argument("--max-rows", type=int, default=60, help="rows of the table at most (default: %(default)s)")
    p.add_argument("--title", default=None, help="heading of the report (default: names the two sets)")
    p.add_argument("--fail-on-slower", action="store_true", help="exit 1 when a case is slower or fails now")
    p.add_argument("--ids", type=Path, default=None,
                   help="append '<runner>/<profile> <case id>' of each case slower or failing now to this file")
    args = p.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            old, new = _load(args.old, Path(tmp)), _load(args.new, Path(tmp))
        report = regress.compare(old, new, args.threshold)
    except (TfperfError, ValueError) as exc:
        print(f"regression_report: {exc}", file=sys.stderr)
        return 2
    title = args.title or f"{new['runner']['label']} / {new['profile']}: {args.old} → {args.new}"
    sys.stdout.write(regress.markdown(report, title=title, max_rows=args.max_rows))
    print(f"regression_report: {regress.summary_line(report)}", file=sys.stderr)
    flagged = regress.flagged_ids(report)
    if args.ids is not None and flagged:
        with args.ids.open("a", encoding="utf-8") as fh:
            fh.writelines(f"{new['runner']['label']}/{new['profile']} {case}\n" for case in flagged)
    return 1 if args.fail_on_slower and flagged else 0


if __name__ == "__main__":
    sys.exit(main())
