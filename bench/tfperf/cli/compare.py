"""``tfperf compare``: the CLI's subcommand that measures this machine (measure), compares it
with the published runners (analyse) and prints the comparison (render). It joins three
stages, so it belongs to the CLI, over all of them, and to none of them.

The stages it runs are imported when the command runs, so that building the parser imports
no more than the other commands do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import TfperfError
from .shared_options import (
    add_data,
    add_json,
    add_profile,
    add_published,
    add_runner,
    add_snippets,
    add_topic,
    add_worker_limits,
    run_options,
)

DEFAULT_LOCAL_DATA = "~/.cache/tfperf"


def _local_results(args: argparse.Namespace) -> tuple[Path, int]:
    """The local results file: given with --results, or measured now. Returns the path and
    the run's exit status (128 + the signal that interrupted it, else 0)."""
    if args.results:
        return Path(args.results), 0
    from ..measure.supervise.orchestrate import run

    report = run(run_options(args))
    print(f"measured {report.ran} case(s) here ({report.failed} failed), {report.skipped} already measured "
          f"-> {report.path}", file=sys.stderr)
    if report.path is None or not report.path.exists():
        raise TfperfError(f"no local results were written (looked for {report.path})")
    return report.path, report.exit_status


def cmd_compare(args: argparse.Namespace) -> int:
    from ..analyse import as_json, compare_files
    from ..render.text import render

    path, run_status = _local_results(args)
    v = compare_files(path, args.published, args.snippets, only=args.against or (), topics_only=args.topic or ())
    if args.json:
        json.dump(as_json(v), sys.stdout, indent=1, sort_keys=True, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(v))
    if run_status:
        print("the local run was interrupted: run the same command again to finish it", file=sys.stderr)
        return run_status
    return 0


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "compare", help="compare this machine with the published runners",
        description="Measure a profile on this machine (or read a results file with --results) and show, per "
                    "case, the ratio of this machine's median to each published runner's, whether it falls "
                    "inside their spread, and whether each page's claims and recommendations hold here. "
                    f"This machine's results are kept in --data (default {DEFAULT_LOCAL_DATA}), so a second "
                    "compare re-uses them and measures only what is missing.")
    p.add_argument("--results", metavar="FILE", help="compare this results file instead of measuring now")
    add_profile(p, choices=("quick", "full"))
    add_topic(p)
    add_runner(p)
    add_data(p, default=DEFAULT_LOCAL_DATA)
    add_snippets(p)
    add_worker_limits(p)
    add_published(p)
    p.add_argument("--against", action="append", metavar="RUNNER",
                   help="only this published runner label or RUNNER/PROFILE (repeatable)")
    add_json(p)
    p.set_defaults(handler=cmd_compare)
