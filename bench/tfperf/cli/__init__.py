"""The ``tfperf`` command: a thin layer over the stages' public functions, one module per
group of subcommands. User errors (``TfperfError``) are caught here, once, and printed as
one line; so is Ctrl-C (SIGINT), at any moment.

* :mod:`.run`: ``run``, ``venv``, ``label`` (measure this machine);
* :mod:`.results`: ``validate``, ``merge``, ``relabel`` (the results files);
* :mod:`.guide`: ``compare`` (this machine against the published runners), ``advise`` (the
  guide's questions on the reader's own model), ``notebooks``, ``answers`` (the guide's
  answers and its own outputs);
* :mod:`.shared_options`: every option that more than one of them takes, defined once;
* ``__main__``: ``python -m tfperf.cli``, which runs :func:`main`.

This module imports only the standard library and :mod:`tfperf.errors` when it is
loaded: the commands (and the stages, jsonschema, YAML, numpy under them) are imported by
:func:`main`, inside the ``try`` that turns Ctrl-C into exit status 130 and one line, so a
Ctrl-C while a command starts (importing, loading the topics) prints no traceback either."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..errors import TfperfError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

INTERRUPTED = 130             # what a shell reports for a process that SIGINT ended


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from . import guide, results, run

    parser = argparse.ArgumentParser(prog="tfperf", description="Measure, store, analyse and render TensorFlow performance claims.")
    sub = parser.add_subparsers(dest="command", required=True)
    for commands in (run, results, guide):
        commands.add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: its exit status; 2 after a user error, 130 after Ctrl-C. A run
    stopped while measuring handles the signal itself (it keeps what it measured and says
    how to resume); anywhere else nothing is half-written, since files are replaced
    atomically."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.handler(args))
    except TfperfError as exc:
        print(f"tfperf: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tfperf: interrupted", file=sys.stderr)
        return INTERRUPTED
