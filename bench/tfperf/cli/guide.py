"""The guide's own outputs: ``tfperf notebooks`` and ``tfperf answers``.

``notebooks`` writes each topic's notebook to ``docs/notebooks/<topic>.ipynb``, the copy the site's
"Open in Colab" link opens (Colab reads notebooks from GitHub only, so they are committed),
from the same code the site build makes its notebook pages with. ``--check`` writes
nothing and fails when a copy is missing or out of date with its snippet. ``answers`` prints
every topic's questions answered from the results, as the pages' first screen says them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..render.page.notebooks import NOTEBOOKS_DIR, stale_notebooks, write_notebooks
from .shared_options import add_data, add_snippets, add_topic


def cmd_notebooks(args: argparse.Namespace) -> int:
    snippets, out = Path(args.snippets), Path(args.out)
    if args.check:
        problems = stale_notebooks(snippets, out)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("run `tfperf notebooks` and commit the notebooks", file=sys.stderr)
            return 1
        print(f"the notebooks in {out} are up to date")
        return 0
    written, removed = write_notebooks(snippets, out)
    for p in written:
        print(f"wrote {p}")
    for p in removed:
        print(f"removed {p} (no such topic)")
    if not written and not removed:
        print(f"the notebooks in {out} are up to date")
    return 0


def cmd_answers(args: argparse.Namespace) -> int:
    from ..analyse import analyse
    from ..render.text import report

    ds = analyse(Path(args.data) / "results", Path(args.snippets))
    for err in ds.errors:
        print(f"tfperf: warning: {err}", file=sys.stderr)
    print(report(ds, args.topic or ()))
    return 0


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("notebooks", help=f"write the topics' notebooks to {NOTEBOOKS_DIR}/ "
                                                "(the copies the site's Open in Colab link opens)")
    add_snippets(p)
    p.add_argument("--out", default=NOTEBOOKS_DIR, help="where the notebooks are committed")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a notebook is missing or stale")
    p.set_defaults(handler=cmd_notebooks)

    a = subparsers.add_parser("answers", help="print each topic's questions answered from the published results")
    add_data(a)
    add_snippets(a)
    add_topic(a)
    a.set_defaults(handler=cmd_answers)
