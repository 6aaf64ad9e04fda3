"""The options that more than one subcommand takes, each defined once with one help text,
and the values the commands read from them. Each ``add_*`` function adds one group to a
subcommand's parser; a subcommand module calls those it takes, beside its own options.

* :func:`add_profile`: ``--profile`` (run, compare);
* :func:`add_topic`: ``--topic`` (run, compare, advise, answers);
* :func:`add_runner`: ``--runner`` (run, compare, advise), read by :func:`runner_label`;
* :func:`add_worker_limits`: ``--memory-limit-mb``, ``--no-progress`` (run, compare, advise);
* :func:`add_data`: ``--data`` (run, compare, answers, merge, relabel);
* :func:`add_snippets`: ``--snippets`` (run, compare, advise, notebooks, answers);
* :func:`add_published`: ``--published`` (compare, advise);
* :func:`add_json`: ``--json`` (compare, advise);
* :func:`add_venvs`: ``--venvs`` (run, venv).

:func:`run_options` turns the options that run and compare share into the run they ask for.

Where subcommands differ (the default of ``--data``, the choices of ``--profile`` and
``--topic``), the difference is an argument of the ``add_*`` function, and the one help
text shows the default with ``%(default)s``. Building the parser imports only the measure
modules that give a default (``measure.envinfo``, ``measure.venvs``); what a command needs to run is
imported by :func:`runner_label` and :func:`run_options`, when it runs.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..measure.supervise.orchestrate import RunOptions

PUBLISHED = "data/results"
SNIPPETS = "snippets"


def add_profile(p: argparse.ArgumentParser, *, choices: Sequence[str]) -> None:
    """--profile: which of the topics' profiles to measure."""
    p.add_argument("--profile", choices=choices, default="quick", help="the profile to measure (default: %(default)s)")


def add_topic(p: argparse.ArgumentParser, *, choices: Sequence[str] | None = None) -> None:
    """--topic, repeatable: only these topics (``None`` in ``args.topic``: all of them)."""
    p.add_argument("--topic", action="append", choices=choices, help="only this topic (repeatable)")


def add_runner(p: argparse.ArgumentParser) -> None:
    """--runner: the label this machine's results go under; read it with :func:`runner_label`."""
    p.add_argument("--runner", metavar="LABEL",
                   help="the runner label this machine's results go under; {cpu} in it becomes this machine's CPU "
                        "class, e.g. amd-avx512 (default: TFPERF_RUNNER, or derived from the machine: OS, "
                        "architecture, cores, CPU; `tfperf label` prints it)")


def add_worker_limits(p: argparse.ArgumentParser) -> None:
    """--memory-limit-mb and --no-progress: how the workers that measure are watched."""
    from ..measure.envinfo import MEMORY_SHARE

    p.add_argument("--memory-limit-mb", type=int, default=None, metavar="MB",
                   help=f"kill a worker above this resident memory (default {MEMORY_SHARE * 100:.0f}%% of RAM; "
                        "0: no limit)")
    p.add_argument("--no-progress", action="store_true", help="print no progress line while measuring")


def add_data(p: argparse.ArgumentParser, *, default: str = "data") -> None:
    """--data: the data folder (``~`` expanded)."""
    p.add_argument("--data", default=default, type=os.path.expanduser, metavar="DIR",
                   help="the data folder, which holds the results files as DATA/results/RUNNER/PROFILE.json "
                        "(default: %(default)s)")


def add_snippets(p: argparse.ArgumentParser) -> None:
    """--snippets: the folder of the topics."""
    p.add_argument("--snippets", default=SNIPPETS, metavar="DIR",
                   help="the topics: their YAML files and snippets (default: %(default)s)")


def add_published(p: argparse.ArgumentParser) -> None:
    """--published: the published runners' results, one folder per runner."""
    p.add_argument("--published", default=PUBLISHED, metavar="DIR",
                   help="the published results, one folder per runner, to compare with (default: %(default)s)")


def add_json(p: argparse.ArgumentParser) -> None:
    """--json: the command's answer as JSON on stdout."""
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def add_venvs(p: argparse.ArgumentParser) -> None:
    """--venvs: where the venvs of other TensorFlow releases (``run --tf``) are kept."""
    from ..measure.venvs import DEFAULT_ROOT

    p.add_argument("--venvs", default=str(DEFAULT_ROOT), metavar="DIR",
                   help="where the venvs of the TensorFlow releases that --tf names are kept (default: %(default)s)")


def runner_label(args: argparse.Namespace) -> str:
    """The label of :func:`add_runner`: --runner with ``{cpu}`` replaced by this machine's CPU
    class, else TFPERF_RUNNER (expanded the same way), else the label derived from the machine."""
    from ..measure.envinfo import default_runner_label, expand_label

    return expand_label(args.runner) if args.runner else default_runner_label()


def run_options(args: argparse.Namespace) -> RunOptions:
    """The run that :func:`add_profile`, :func:`add_topic`, :func:`add_runner`,
    :func:`add_worker_limits`, :func:`add_data` and :func:`add_snippets` ask for."""
    from ..measure.envinfo import memory_limit
    from ..measure.supervise.orchestrate import RunOptions

    return RunOptions(profile=args.profile, topics=args.topic or None, runner=runner_label(args),
                      data_root=Path(args.data), snippets_dir=Path(args.snippets), progress=not args.no_progress,
                      memory_limit_mb=memory_limit(args.memory_limit_mb))
