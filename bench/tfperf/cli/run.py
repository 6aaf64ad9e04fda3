"""``tfperf run`` (measure the topics on this machine), ``tfperf venv`` (the venvs of other
TensorFlow releases) and ``tfperf label`` (the runner label of this machine). The options
``run`` shares with other commands are in :mod:`.shared_options`."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from .shared_options import (
    add_data,
    add_profile,
    add_runner,
    add_snippets,
    add_topic,
    add_venvs,
    add_worker_limits,
    run_options,
)


def _shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard expects I/N, e.g. 1/4, not {text!r}") from None
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"--shard {text}: I must be between 1 and N")
    return i, n


def _scale(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--budget-scale expects a number, e.g. 2, not {text!r}") from None
    if not 0.1 <= x <= 10:
        raise argparse.ArgumentTypeError(f"--budget-scale {text}: must be between 0.1 and 10")
    return x


def _time(text: str) -> datetime:
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--force-before expects a time such as 2026-12-06T16:58 (UTC unless it "
                                         f"names a zone), not {text!r}") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def cmd_run(args: argparse.Namespace) -> int:
    from ..measure import venvs
    from ..measure.supervise.orchestrate import run

    venv = venvs.interpreter(args.tf, Path(args.venvs))   # None: this interpreter (no --tf, or its version)
    options = run_options(args)
    options.force, options.retry_failed, options.shard = args.force, args.retry_failed, args.shard
    options.force_before = args.force_before
    options.force = options.force or args.force_before is not None
    started = datetime.now(timezone.utc).replace(microsecond=0)
    options.description, options.contributed_by = args.runner_description, args.contributor
    options.max_workers, options.budget_scale = args.max_workers, args.budget_scale
    if venv is not None:
        options.python, options.package_path = str(venv.python), venv.site_packages
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
    if report.interrupted and args.force and args.force_before is None:
        print("run `tfperf run` again with the same options and --force-before "
              f"{started.strftime('%Y-%m-%dT%H:%M:%SZ')} instead of --force to resume; finished cases are kept "
              "(with --force alone every case is measured again)", file=sys.stderr)
    elif report.interrupted:
        print("run `tfperf run` again with the same options to resume; finished cases are kept", file=sys.stderr)
    return report.exit_status


def cmd_venv(args: argparse.Namespace) -> int:
    from ..measure import venvs

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


def cmd_label(args: argparse.Namespace) -> int:
    from ..measure.envinfo import default_runner_label, expand_label

    print(expand_label(args.label) if args.label else default_runner_label())
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..store.schema import PROFILES

    p = sub.add_parser("run", help="measure the cases of the topics in snippets/ on this machine")
    add_profile(p, choices=PROFILES)
    add_topic(p)
    add_runner(p)
    add_data(p)
    add_snippets(p)
    add_worker_limits(p)
    p.add_argument("--tf", metavar="VERSION",
                   help="run the workers under this TensorFlow release (e.g. 2.15.1), in its venv under --venvs, "
                        "created on first use; 'nightly': the newest tf-nightly, a development build shown apart "
                        "from the releases; default: the TensorFlow installed here")
    add_venvs(p)
    p.add_argument("--force", action="store_true", help="re-run cases that already have a result with the same key")
    p.add_argument("--force-before", type=_time, metavar="TIME",
                   help="like --force, but cases whose result was stored at or after TIME (ISO 8601, UTC unless it "
                        "names a zone) count as done: resumes an interrupted --force run started at TIME")
    p.add_argument("--retry-failed", action="store_true", help="re-run cases whose stored result failed")
    p.add_argument("--shard", type=_shard, help="run only shard I of N (for splitting across CI jobs)")
    p.add_argument("--runner-description", metavar="TEXT",
                   help="describe the machine for the Runners page (stored in the results file)")
    p.add_argument("--contributor", metavar="NAME", help="who ran it (stored as runner.contributed_by)")
    p.add_argument("--max-workers", type=int, default=None, metavar="N",
                   help="live worker processes at once, one per settings group of a scenario "
                        "(default: as many as fit in 60%% of memory at 1 GB each)")
    p.add_argument("--budget-scale", type=_scale, default=1.0, metavar="X",
                   help="give every case X times its profile's time budget (budget_s) and cap on rounds (max_samples), "
                        "for a runner whose rounds are noisier than the budgets were set for; each scenario record "
                        "keeps its budget and the scale (default: 1)")
    p.set_defaults(handler=cmd_run)

    v = sub.add_parser("venv", help="create (or check) the venvs that `tfperf run --tf VERSION` uses, without measuring")
    v.add_argument("versions", nargs="+", metavar="VERSION", help="TensorFlow release, e.g. 2.15.1")
    add_venvs(v)
    v.set_defaults(handler=cmd_venv)

    la = sub.add_parser("label", help="print the runner label this machine's results go under: LABEL with {cpu} "
                                      "replaced by its CPU class (e.g. gha-ubuntu24-x86_64-amd-avx512), or the "
                                      "default label")
    la.add_argument("label", nargs="?", help="a label as given to `tfperf run --runner`")
    la.set_defaults(handler=cmd_label)
