"""The guide's answers, and its notebooks: ``tfperf compare`` (this machine against the
published runners), ``tfperf advise MODEL`` (the guide's questions on the reader's own saved
model), ``tfperf answers`` (every topic's questions answered from the published results) and
``tfperf notebooks``.

``compare`` measures this machine (measure), compares it with the published runners
(analyse) and prints the comparison (render). ``advise`` measures the reader's model
(measure: the probe, the generated topics, the guide's run), answers in the guide's words
(analyse) and prints and writes the answers as JSON (render); bad input is one line
(``tfperf: error: PATH: problem``), from ``AdviseError``, before anything is measured. Each
joins three stages, so it belongs to the CLI, over all of them, and to none of them. The
stages they run are imported when the command runs, so that building the parser imports no
more than the other commands do.

``notebooks`` writes each topic's notebook to ``docs/notebooks/<topic>.ipynb``, the copy the site's
"Open in Colab" link opens (Colab reads notebooks from GitHub only, so they are committed),
from the same code the site build makes its notebook pages with. ``--check`` writes
nothing and fails when a copy is missing or out of date with its snippet. ``answers`` prints
every topic's questions answered from the results, as the pages' first screen says them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import TfperfError
from ..render.page.notebooks import NOTEBOOKS_DIR, stale_notebooks, write_notebooks
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
    runner_label,
)

if TYPE_CHECKING:
    from ..analyse import Dataset
    from ..render.advise import Context, Published


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """compare, advise, notebooks and answers, in that order."""
    add_compare_parser(subparsers)
    add_advise_parser(subparsers)
    add_notebooks_and_answers_parsers(subparsers)


# -- tfperf compare ------------------------------------------------------------------------

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


def add_compare_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


# -- tfperf advise -------------------------------------------------------------------------

DEFAULT_OUT = "~/.cache/tfperf/advise"
DEFAULT_BUDGET_S = 120.0
DEFAULT_BATCH = 32
TOPICS = ("advise_predict", "advise_xla", "advise_serving", "advise_threads")


def _positive(kind: type[int | float], name: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} expects a number, not {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{name} must be above 0, not {text!r}")
        return value
    return parse


def cmd_advise(args: argparse.Namespace) -> int:
    from ..measure.advise.model import check_dtype, check_model_path, parse_shape

    model = check_model_path(args.model)                 # one line, no TensorFlow, before anything else
    shape = parse_shape(args.input_shape) if args.input_shape is not None else None
    dtype = check_dtype(args.dtype) if args.dtype is not None else None
    batches = sorted({1, int(args.batch)})
    from ..measure.advise.model import probe
    from ..measure.envinfo import memory_limit

    print(f"loading {args.model} in a fresh process to read its input ...", file=sys.stderr)
    spec = probe(model, shape, dtype, batches)
    print(f"{args.model}: {spec.describe()}", file=sys.stderr)
    out = Path(os.path.expanduser(args.out)) / f"{model.name}-{model.fingerprint[:8]}" if args.out == DEFAULT_OUT \
        else Path(os.path.expanduser(args.out))
    from ..measure.advise.topics import measure

    runner = runner_label(args)
    session = measure(spec, out, batches, float(args.budget), runner, only=args.topic or (),
                      progress=not args.no_progress, memory_limit_mb=memory_limit(args.memory_limit_mb))
    from ..analyse import analyse
    from ..render.advise import Context, as_json, report

    ds = analyse(session.results_root, session.topics_dir)
    for err in ds.errors:
        print(f"tfperf: warning: {err}", file=sys.stderr)
    ctx = Context(model=args.model, described=spec.describe(), topics=[(t.name, t.title) for t in session.topics],
                  not_measured=session.not_measured, interrupted=session.signum is not None,
                  results=str(session.results) if session.results and session.results.exists() else "",
                  extra={"input": {"name": spec.input_name, "shape": list(spec.shape), "dtype": spec.dtype},
                         "batches": batches, "budget_s": float(args.budget), "seconds": round(session.seconds, 1),
                         "probe_seconds": {"import": round(spec.import_s, 2), "load": round(spec.load_s, 2),
                                           "first_call": {b: round(v, 3) for b, v in spec.call_s.items()}},
                         "topic_seconds": {t: {"estimated": round(session.estimates.get(t, 0.0), 1),
                                               "took": round(s, 1)} for t, s in session.took.items()},
                         "runner": runner},
                  published=published(ds, [t.name for t in session.topics], runner, args.published, args.snippets),
                  skipped=session.skipped)
    answers = out / "answers.json"
    data = as_json(ds, ctx)
    answers.write_text(json.dumps(data, indent=1, allow_nan=False, default=str) + "\n", encoding="utf-8")
    html = Path(os.path.expanduser(args.html)) if args.html else out / "answers.html"
    write_html(ds, ctx, runner, html)
    if args.json:
        json.dump(data, sys.stdout, indent=1, allow_nan=False, default=str)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report(ds, ctx))
        print(f"Answers as JSON: {answers}")
        print(f"Answers as a web page: {html}")
    if session.signum is not None:
        print("tfperf: interrupted; what was measured is kept above", file=sys.stderr)
    return session.exit_status


def published(ds: Dataset, topics: Sequence[str], runner: str, results: str, snippets: str) -> Published:
    """The guide's answers on the published runner whose label is this machine's, or why
    there are none (no such runner, no published results where they were looked for)."""
    from ..analyse import analyse
    from ..render.advise import GUIDE_TOPICS, beside, none_matches

    root = Path(results)
    labels = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    label = runner.split("/")[0]
    if label not in labels:
        why = none_matches(label, labels, results)
        print(f"tfperf: {why.why_none}", file=sys.stderr)
        return why
    with tempfile.TemporaryDirectory(prefix="tfperf-advise-guide-") as tmp:
        for topic in GUIDE_TOPICS:          # the guide's four topics only: analysing every topic takes longer
            for suffix in (".yaml", ".py"):
                src = Path(snippets) / f"{topic}{suffix}"
                if src.is_file():
                    shutil.copyfile(src, Path(tmp) / src.name)
        guide = analyse(root, tmp)
    return beside(ds, guide, label, topics)


def write_html(ds: Dataset, ctx: Context, runner: str, path: Path) -> None:
    from ..render.advise import page
    from ..render.page.embed import chart_scripts

    try:
        scripts: list[str] | None = chart_scripts()
    except TfperfError as exc:
        print(f"tfperf: warning: {exc}", file=sys.stderr)
        scripts = None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page(ds, ctx, runner, scripts), encoding="utf-8")


def add_advise_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..measure.advise.model import DTYPES

    p = subparsers.add_parser(
        "advise", help="measure the guide's questions on your own saved model",
        description="Take a saved model (.keras file or SavedModel directory) through the guide's questions on "
                    "this machine, with the guide's harness: predict() against a call and a tf.function, XLA, the "
                    "serving formats that convert, threads and oneDNN; answer each in the guide's words.")
    p.add_argument("model", metavar="MODEL", help="a .keras file or a SavedModel directory")
    p.add_argument("--input-shape", metavar="SHAPE",
                   help="one sample's shape without the batch, e.g. 32,32,3 (where the model does not fix it)")
    p.add_argument("--dtype", metavar="DTYPE", help=f"the input's dtype ({', '.join(DTYPES)}; default: the model's)")
    p.add_argument("--batch", type=_positive(int, "--batch"), default=DEFAULT_BATCH,
                   help=f"the larger batch measured besides 1 (default {DEFAULT_BATCH})")
    p.add_argument("--budget", type=_positive(float, "--budget"), default=DEFAULT_BUDGET_S, metavar="SECONDS",
                   help=f"about how long to measure, start-up included (default {DEFAULT_BUDGET_S:g}); the "
                        "questions left when it is spent are reported as not measured")
    add_topic(p, choices=TOPICS)
    p.add_argument("--out", default=DEFAULT_OUT,
                   help=f"where the generated topics, the results file and answers.json go (default "
                        f"{DEFAULT_OUT}/<model>-<hash>)")
    add_runner(p)
    add_worker_limits(p)
    p.add_argument("--html", metavar="FILE",
                   help="write the answers as one self-contained web page here (default: answers.html beside "
                        "answers.json)")
    add_published(p)
    add_snippets(p)
    add_json(p)
    p.set_defaults(handler=cmd_advise)


# -- tfperf notebooks, tfperf answers ---------------------------------------------------------

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


def add_notebooks_and_answers_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
