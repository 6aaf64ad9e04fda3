"""``tfperf advise MODEL``: the guide's questions measured on the reader's own saved model
(measure: the probe, the generated topics, the guide's run), answered in the guide's words
(analyse) and printed and written as JSON (render). It joins three stages, so it belongs to
the CLI, as ``tfperf compare`` does.

Bad input is one line (``tfperf: error: PATH: problem``), from ``AdviseError``, before
anything is measured. The stages are imported when the command runs.
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
from .shared_options import (
    add_json,
    add_published,
    add_runner,
    add_snippets,
    add_topic,
    add_worker_limits,
    runner_label,
)

if TYPE_CHECKING:
    from ..analyse import Dataset
    from ..render.advise import Context, Published

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
    from ..measure.advise.model_file import check_dtype, check_model_path, parse_shape

    model = check_model_path(args.model)                 # one line, no TensorFlow, before anything else
    shape = parse_shape(args.input_shape) if args.input_shape is not None else None
    dtype = check_dtype(args.dtype) if args.dtype is not None else None
    batches = sorted({1, int(args.batch)})
    from ..measure.advise.probe import probe
    from ..measure.env.machine import memory_limit

    print(f"loading {args.model} in a fresh process to read its input ...", file=sys.stderr)
    spec = probe(model, shape, dtype, batches)
    print(f"{args.model}: {spec.describe()}", file=sys.stderr)
    out = Path(os.path.expanduser(args.out)) / f"{model.name}-{model.fingerprint[:8]}" if args.out == DEFAULT_OUT \
        else Path(os.path.expanduser(args.out))
    from ..measure.advise.session import measure

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


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..measure.advise.model_file import DTYPES

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

