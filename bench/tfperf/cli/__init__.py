"""The ``tfperf`` command: a thin layer over the stages. User errors (``TfperfError``)
are caught here, once, and printed as one line; so is Ctrl-C (SIGINT), at any moment.

This module imports only the standard library and :mod:`tfperf.errors` when it is
loaded: the stages (and jsonschema, YAML, numpy under them) are imported by :func:`main`,
inside the ``try`` that turns Ctrl-C into exit status 130 and one line, so a Ctrl-C while
a command starts (importing, loading the topics) prints no traceback either."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .errors import TfperfError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

INTERRUPTED = 130             # what a shell reports for a process that SIGINT ended


def _shard(text: str) -> tuple[int, int]:
    import argparse

    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard expects I/N, e.g. 1/4, not {text!r}") from None
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"--shard {text}: I must be between 1 and N")
    return i, n


def _cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .measure import venvs
    from .measure.envinfo import expand_label
    from .measure.limits import memory_limit
    from .measure.orchestrate import RunOptions, run

    venv = venvs.interpreter(args.tf, Path(args.venvs))   # None: this interpreter (no --tf, or its version)
    options = RunOptions(profile=args.profile, topics=args.topic or None, data_root=Path(args.data),
                         snippets_dir=Path(args.snippets), force=args.force, retry_failed=args.retry_failed,
                         shard=args.shard, progress=not args.no_progress, memory_limit_mb=memory_limit(args.memory_limit_mb),
                         description=args.runner_description, contributed_by=args.contributor,
                         max_workers=args.max_workers)
    if venv is not None:
        options.python, options.package_path = str(venv.python), venv.site_packages
    if args.runner:
        options.runner = expand_label(args.runner)
    report = run(options)
    verb = "interrupted after" if report.interrupted else "ran"
    meanwhile = f" ({report.meanwhile} of them stored by another run meanwhile)" if report.meanwhile else ""
    unavailable = f", {report.unavailable} not available in this TensorFlow" if report.unavailable else ""
    print(f"{verb} {report.ran} case(s) ({report.failed} failed{unavailable}), skipped {report.skipped} already measured"
          f"{meanwhile}, in {report.seconds:.1f} s -> {report.path}")
    for n in report.noise:
        print(f"  noise (A/A) {n['case_id']}: ratio {n['ratio']:.3f} [{n['ci_low']:.3f}, {n['ci_high']:.3f}]")
    loaded = [s for s in report.scenarios if s.get("loaded")]
    if loaded:
        print(f"warning: {len(loaded)} of {len(report.scenarios)} scenario(s) were measured while the load average "
              "was above the core count (flagged in the results file)", file=sys.stderr)
    if report.interrupted:
        print("run `tfperf run` again with the same options to resume; finished cases are kept", file=sys.stderr)
    return report.exit_status


def _add_run(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .measure.limits import MEMORY_SHARE
    from .measure.venvs import DEFAULT_ROOT as DEFAULT_VENVS
    from .store.schema import PROFILES

    p = sub.add_parser("run", help="measure the cases of the topics in snippets/ on this machine")
    p.add_argument("--profile", choices=PROFILES, default="quick")
    p.add_argument("--tf", metavar="VERSION",
                   help="run the workers under this TensorFlow release (e.g. 2.15.1), in its venv under --venvs, "
                        "created on first use; default: the TensorFlow installed here")
    p.add_argument("--venvs", default=str(DEFAULT_VENVS), metavar="DIR", help="where the --tf venvs are kept")
    p.add_argument("--topic", action="append", help="only this topic (repeatable)")
    p.add_argument("--runner", help="runner label; {cpu} in it becomes this machine's CPU class, e.g. amd-avx512 "
                                      "(default: TFPERF_RUNNER, or derived from the machine: OS, architecture, "
                                      "cores, CPU)")
    p.add_argument("--data", default="data", help="data directory (results go to DATA/results/RUNNER/PROFILE.json)")
    p.add_argument("--snippets", default="snippets")
    p.add_argument("--force", action="store_true", help="re-run cases that already have a result with the same key")
    p.add_argument("--retry-failed", action="store_true", help="re-run cases whose stored result failed")
    p.add_argument("--shard", type=_shard, help="run only shard I of N (for splitting across CI jobs)")
    p.add_argument("--memory-limit-mb", type=int, default=None,
                   help=f"kill a worker above this resident memory (default {MEMORY_SHARE * 100:.0f}%% of RAM; 0: no limit)")
    p.add_argument("--runner-description", metavar="TEXT",
                   help="describe the machine for the Runners page (stored in the results file)")
    p.add_argument("--contributor", metavar="NAME", help="who ran it (stored as runner.contributed_by)")
    p.add_argument("--max-workers", type=int, default=None, metavar="N",
                   help="live worker processes at once, one per settings group of a scenario "
                        "(default: as many as fit in 60%% of memory at 1 GB each)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(handler=_cmd_run)


def _cmd_venv(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .measure import venvs

    for version in args.versions:
        venv = venvs.interpreter(version, Path(args.venvs))
        if venv is None:
            print(f"TensorFlow {version}: the TensorFlow installed here, no venv needed")
            continue
        stamp = venv.stamp
        missing = ", ".join(stamp.get("not_installed") or {}) or "none"
        how = f"created in {stamp.get('seconds')} s" if venv.created else "ready (reused)"
        print(f"TensorFlow {version}: {venv.python.parent.parent} {how}; runtimes not installed: {missing}")
    return 0


def _add_venv(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .measure.venvs import DEFAULT_ROOT as DEFAULT_VENVS

    p = sub.add_parser("venv", help="create (or check) the venvs that `tfperf run --tf VERSION` uses, without measuring")
    p.add_argument("versions", nargs="+", metavar="VERSION", help="TensorFlow release, e.g. 2.15.1")
    p.add_argument("--venvs", default=str(DEFAULT_VENVS), metavar="DIR", help="where the venvs are kept")
    p.set_defaults(handler=_cmd_venv)


def _cmd_label(args: argparse.Namespace) -> int:
    from .measure.envinfo import default_runner_label, expand_label

    print(expand_label(args.label) if args.label else default_runner_label())
    return 0


def _add_label(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("label", help="print the runner label this machine's results go under: LABEL with {cpu} "
                                     "replaced by its CPU class (e.g. gha-ubuntu24-x86_64-amd-avx512), or the "
                                     "default label")
    p.add_argument("label", nargs="?", help="a label as given to `tfperf run --runner`")
    p.set_defaults(handler=_cmd_label)


def _optional_parsers(sub: argparse._SubParsersAction, *modules: str) -> None:  # type: ignore[type-arg]
    """Subcommands contributed by other stages (store: validate/merge; render: notebooks)."""
    import importlib

    for module in modules:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        mod.add_parsers(sub)


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from . import cli_advise, cli_compare

    parser = argparse.ArgumentParser(prog="tfperf", description="Measure, store, analyse and render TensorFlow performance claims.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_run(sub)
    _add_venv(sub)
    _add_label(sub)
    _optional_parsers(sub, "tfperf.store.commands")
    cli_compare.add_parsers(sub)            # compare runs measure, analyse and render
    cli_advise.add_parsers(sub)             # so does advise, on the reader's model
    _optional_parsers(sub, "tfperf.render.commands")
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


if __name__ == "__main__":
    sys.exit(main())
