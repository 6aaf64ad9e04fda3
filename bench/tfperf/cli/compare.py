"""``tfperf compare``: the CLI's subcommand that measures this machine (measure), compares it
with the published runners (analyse) and prints the comparison (render). It joins three
stages, so it belongs to the CLI, over all of them, and to none of them.

The stages it runs are imported when the command runs, so that building the parser imports
no more than the other commands do.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import TfperfError
from .run import add_measure_options, run_options

DEFAULT_LOCAL_DATA = "~/.cache/tfperf"


def _local_results(args: argparse.Namespace) -> tuple[Path, int]:
    """The local results file: given with --results, or measured now. Returns the path and
    the run's exit status (128 + the signal that interrupted it, else 0)."""
    if args.results:
        return Path(args.results), 0
    from ..measure.supervise.orchestrate import run

    report = run(run_options(args, Path(os.path.expanduser(args.data))))
    print(f"measured {report.ran} case(s) here ({report.failed} failed), {report.skipped} already measured "
          f"-> {report.path}", file=sys.stderr)
    if report.path is None or not report.path.exists():
        raise TfperfError(f"no local results were written (looked for {report.path})")
    return report.path, report.exit_status


def cmd_compare(args: argparse.Namespace) -> int:
    from ..analyse import as_json, compare_files
    from ..render.report.versus_text import render

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
                    "inside their spread, and whether each page's claims and recommendations hold here.")
    p.add_argument("--results", metavar="FILE", help="compare this results file instead of measuring now")
    add_measure_options(p, profiles=("quick", "full"), profile_help="profile to measure (default quick)",
                        runner_help="label for this machine's results (default: derived from the machine)",
                        data=DEFAULT_LOCAL_DATA,
                        data_help=f"where this machine's results are kept between runs (default {DEFAULT_LOCAL_DATA}); "
                                  "a second compare re-uses them")
    p.add_argument("--published", default="data/results", help="the published results (default data/results)")
    p.add_argument("--against", action="append", metavar="RUNNER",
                   help="only this published runner label or RUNNER/PROFILE (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(handler=cmd_compare)
