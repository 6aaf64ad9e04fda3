"""The options of the commands that measure this machine (``tfperf run``, ``tfperf compare``),
defined once, and the run they ask for.

The stages are imported when a command runs, so that building the parser stays light."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..measure.limits import MEMORY_SHARE, memory_limit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..measure.orchestrate import RunOptions


def add_measure_options(p: argparse.ArgumentParser, *, profiles: Sequence[str], profile_help: str | None,
                        runner_help: str, data: str, data_help: str) -> None:
    """--profile, --topic, --runner, --data, --snippets, --memory-limit-mb, --no-progress."""
    p.add_argument("--profile", choices=profiles, default="quick", help=profile_help)
    p.add_argument("--topic", action="append", help="only this topic (repeatable)")
    p.add_argument("--runner", help=runner_help)
    p.add_argument("--data", default=data, help=data_help)
    p.add_argument("--snippets", default="snippets")
    p.add_argument("--memory-limit-mb", type=int, default=None,
                   help=f"kill a worker above this resident memory (default {MEMORY_SHARE * 100:.0f}%% of RAM; 0: no limit)")
    p.add_argument("--no-progress", action="store_true")


def run_options(args: argparse.Namespace, data_root: Path) -> RunOptions:
    """The run the options of :func:`add_measure_options` ask for (the runner label as given)."""
    from ..measure.orchestrate import RunOptions

    options = RunOptions(profile=args.profile, topics=args.topic or None, data_root=data_root,
                         snippets_dir=Path(args.snippets), progress=not args.no_progress,
                         memory_limit_mb=memory_limit(args.memory_limit_mb))
    if args.runner:
        options.runner = args.runner
    return options
