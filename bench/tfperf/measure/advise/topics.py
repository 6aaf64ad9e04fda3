"""The guide's questions as topics about the reader's model: YAMLs in the guide's own schema
(``tfperf.cases.topic_schema``), all running one snippet (:mod:`.snippet`, copied beside them),
so that ``tfperf.cases`` expands them and ``measure.supervise.orchestrate`` measures them as it
measures the guide's, and the analysis answers them as it answers the guide's.

One topic per question of the guide that applies to any model:

* ``advise_predict`` – predict() against calling the model and a tf.function forward
  pass (predict_vs_call), at batch 1 and ``--batch``;
* ``advise_xla``     – jit_compile=True against a plain tf.function (xla_jit), the first
  call of each kept apart;
* ``advise_serving`` – the formats that convert (serving_formats): SavedModel signature,
  TFLite with and without XNNPACK, ONNX Runtime where tf2onnx and onnxruntime are
  installed; each one's output checked against the tf.function's;
* ``advise_threads`` – one intra-op thread and oneDNN off against TensorFlow's defaults
  (cpu_threads), each in a worker process of its own.

Every claim says ``expect: none``: no source made it about this model, so each is answered
with its finding alone. The budget of a topic's rounds is its share of ``--budget``.

The generated topics are measured one after the other by the guide's own run
(``measure.supervise.orchestrate.run``: worker processes per settings group, interleaved rounds,
the A/A pair, the output check, failures kept as data), into one results file of the
results schema, within the reader's ``--budget``.

The budget is shared out before the run (each topic's rounds get their share), and each
topic's cost is estimated (its worker processes, setups, conversions and rounds, from what
the probe timed); a topic whose estimate does not fit the budget left is not started, and
is reported as not measured for lack of budget, with the budget that would measure it. One
line per topic shows the progress across topics. Ctrl-C (or SIGTERM) stops the run where
it is: every scenario finished before is kept, and the rest is reported as not measured.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import ceil
from pathlib import Path
from typing import Any, TextIO

import yaml

from ... import store
from ..supervise.orchestrate import Report, RunOptions, run
from .model import ModelSpec

SNIPPET = "advise_model"           # the snippet's file name (and its JSON's) beside the topics
SHARES = {"advise_predict": 0.25, "advise_xla": 0.2, "advise_serving": 0.35, "advise_threads": 0.2}
ROUNDS_SHARE = 0.35                # of a topic's share, for its rounds: the rest is start-up and set-up
# A sample times calls for at least this long, as the guide's topics do: with shorter samples a
# fast call's median read up to 1.4 times the guide's for the same model on the same CPU.
MIN_SAMPLE_S = 0.02
TOLERANCE = {"rtol": 1.0e-4, "atol": 1.0e-4}    # serving_formats' and xla_jit's: kernels reorder float sums
RUNTIMES = ("tflite", "onnx")
CONVERTING = ("setup_saved_model", "setup_tflite", "setup_tflite_plain", "setup_onnx")


# What the cost estimate assumes where the probe tells nothing (seconds).
IMPORT_S = 4.0                     # a worker process importing TensorFlow
# The cost model, fitted on quiet runs of a small convnet, a GRU, a two-output model and the
# predict-vs-call medium MLP at the default budget (2 cores): outside its rounds, a topic
# costs its own start, each worker process's start (a share of the probe's TensorFlow import,
# which carries the machine's speed), and each case's setup (loading and calling the model,
# or converting it). That part came within 10% of what each topic took, but the probe's
# import is one sample: a slow one (a cold disk cache) overstates every start. The rounds
# stop as soon as every interval is narrow enough, so they took from a quarter of their
# budget to 2.4 times it (a slow, noisy model runs on into the harness's extension): the
# estimate counts the typical share.
TOPIC_S = 0.85                     # a topic's run: its own start and its results file
WORKER_IMPORTS = 0.93              # a worker process's start, in probe imports
CONVERT_PER_LOAD = 3.1             # a conversion (TFLite, ONNX, a SavedModel export), in model loads
ROUNDS_USED = 0.85                 # of the rounds' budget, what the rounds typically take


@dataclass(frozen=True)
class Generated:
    name: str                      # the topic's name (and its YAML's stem)
    title: str
    path: Path                     # its YAML
    cases: int                     # in every scenario, settings groups counted
    groups: int = 1                # settings groups: one worker process each
    converts: int = 0              # variants whose setup converts the model, in every scenario
    rounds_s: float = 0.0          # the budget of its rounds, all scenarios

    def estimate_s(self, spec: ModelSpec, scenarios: int) -> float:
        """About how long the topic takes (see :data:`TOPIC_S` and the constants beside it):
        its start, a worker per settings group in every scenario, each case's setup (loading
        and calling the model; a conversion for a case that converts it), and the share of
        the rounds' budget that rounds typically use."""
        call = max(spec.call_s.values(), default=0.0)
        starts = TOPIC_S + scenarios * self.groups * WORKER_IMPORTS * (spec.import_s or IMPORT_S)
        setups = scenarios * ((self.cases - self.converts) * (spec.load_s + call)
                              + self.converts * CONVERT_PER_LOAD * spec.load_s)
        return starts + setups + ROUNDS_USED * self.rounds_s


def _budget(share: float, total_s: float, scenarios: int, slots: int) -> dict[str, float]:
    per_slot = max(0.05, share * total_s * ROUNDS_SHARE / max(1, scenarios * slots))
    return {"budget_s": round(per_slot, 3), "min_samples": 7, "max_samples": 200, "target_rel_ci": 0.05,
            "warmup_s": 0.05, "min_sample_s": MIN_SAMPLE_S}


def _claim(cid: str, text: str, candidate: str, baseline: str, batch: int) -> dict[str, Any]:
    return {"id": cid, "text": text, "candidate": candidate, "baseline": baseline, "expect": "none",
            "where": {"batch": [batch]}}


def predict_topic(batches: Sequence[int]) -> dict[str, Any]:
    claims = [c for b in batches for c in (
        _claim(f"tf_function_vs_predict_b{b}", f"A tf.function forward pass against model.predict(x), batch {b}.",
               "tf_function", "predict", b),
        _claim(f"call_vs_predict_b{b}", f"model(x) against model.predict(x), batch {b}.", "call", "predict", b),
        _claim(f"tf_function_vs_call_b{b}", f"A tf.function forward pass against model(x), batch {b}.",
               "tf_function", "call", b))]
    return {
        "topic": "advise_predict", "title": "predict() vs calling your model",
        "reference": "call", "default": "predict", "tolerance": dict(TOLERANCE),
        "variants": {"predict": {"fn": "predict", "label": "model.predict(x)"},
                     "call": {"fn": "call", "label": "model(x, training=False)"},
                     "tf_function": {"fn": "forward_call", "setup": "setup_function", "label": "tf.function(model) forward"}},
        "names": {"predict": "model.predict(x)", "call": "model(x)", "tf_function": "a tf.function forward pass"},
        "questions": [
            {"id": "predict", "ask": "Your code calls model.predict(x): what should it call instead?",
             "claims": [c["id"] for c in claims if c["baseline"] == "predict"]},
            {"id": "tf_function", "ask": "Is a tf.function forward pass faster than calling your model?",
             "claims": [c["id"] for c in claims if c["baseline"] == "call"], "yes_if": "faster"}],
        "claims": claims,
    }


def xla_topic(batches: Sequence[int]) -> dict[str, Any]:
    claims = [_claim(f"xla_vs_function_b{b}", f"jit_compile=True against a plain tf.function, batch {b}.",
                     "xla", "function", b) for b in batches]
    return {
        "topic": "advise_xla", "title": "tf.function and XLA jit_compile on your model",
        "reference": "function", "default": "function", "tolerance": dict(TOLERANCE),
        "variants": {"function": {"fn": "forward_call", "setup": "setup_function", "label": "tf.function(model)"},
                     "xla": {"fn": "forward_call", "setup": "setup_xla", "label": "tf.function(model, jit_compile=True)"}},
        "display": {"xla": "tf.function (jit_compile=True)"},
        "names": {"function": "plain tf.function", "xla": "jit_compile=True"},
        "questions": [{"id": "xla", "ask": "Should you turn on XLA (jit_compile=True) for your model on this CPU?",
                       "claims": [c["id"] for c in claims], "yes_if": "faster"}],
        "claims": claims,
    }


SERVING = {   # variant -> (setup, fn, label, short name, runtime it needs)
    "saved_model": ("setup_saved_model", "saved_model_call", "SavedModel, serving signature",
                    "a SavedModel signature", None),
    "tflite": ("setup_tflite", "tflite_call", "TFLite interpreter, XNNPACK (default)", "TFLite with XNNPACK", "tflite"),
    "tflite_plain": ("setup_tflite_plain", "tflite_call", "TFLite interpreter without XNNPACK",
                     "TFLite without XNNPACK", "tflite"),
    "onnx": ("setup_onnx", "onnx_call", "ONNX Runtime (tf2onnx)", "ONNX Runtime", "onnx"),
}


def serving_topic(batches: Sequence[int], runtimes: Sequence[str]) -> dict[str, Any]:
    formats = [v for v, (*_, need) in SERVING.items() if need is None or need in runtimes]
    claims = [_claim(f"{v}_vs_tf_function_b{b}", f"{SERVING[v][3]} against a tf.function, batch {b}.", v, "tf_function", b)
              for v in formats for b in batches]
    xnnpack = [_claim(f"xnnpack_b{b}", f"TFLite with XNNPACK against without, batch {b}.", "tflite", "tflite_plain", b)
               for b in batches if "tflite" in formats]
    questions = [{"id": "formats", "ask": "Which serving format is fastest for your model, against a tf.function?",
                  "claims": [c["id"] for c in claims]}]
    if xnnpack:
        questions.append({"id": "xnnpack", "ask": "Does XNNPACK make the TFLite interpreter faster for your model?",
                          "claims": [c["id"] for c in xnnpack], "yes_if": "faster"})
    return {
        "topic": "advise_serving", "title": "Serving formats for your model",
        "reference": "tf_function", "default": "tf_function", "tolerance": dict(TOLERANCE),
        "variants": {"tf_function": {"fn": "forward_call", "setup": "setup_function", "label": "tf.function(model)"},
                     **{v: {"fn": SERVING[v][1], "setup": SERVING[v][0], "label": SERVING[v][2]} for v in formats}},
        "display": {"tflite": "TFLite, XNNPACK", "tflite_plain": "TFLite, no XNNPACK"},
        "names": {"tf_function": "a tf.function", **{v: SERVING[v][3] for v in formats}},
        "questions": questions, "claims": [*claims, *xnnpack],
    }


def threads_topic(batches: Sequence[int]) -> dict[str, Any]:
    one = [{"id": f"one_thread_b{b}", "text": f"One intra-op thread against TensorFlow's default, batch {b}.",
            "candidate": "call", "baseline": "call", "expect": "none",
            "candidate_settings": {"threads": "1"}, "baseline_settings": {"threads": "default"},
            "where": {"batch": [b], "onednn": ["1"]}} for b in batches]
    onednn = [{"id": f"onednn_b{b}", "text": f"oneDNN (on by default) against TensorFlow's own kernels, batch {b}.",
               "candidate": "call", "baseline": "call", "expect": "none",
               "candidate_settings": {"onednn": "1"}, "baseline_settings": {"onednn": "0"},
               "where": {"batch": [b], "threads": ["default"]}} for b in batches]
    return {
        "topic": "advise_threads", "title": "Threads and oneDNN for your model",
        "reference": "call", "default": "call", "tolerance": {"rtol": 1.0e-4, "atol": 1.0e-4},
        "variants": {"call": {"fn": "forward_call", "setup": "setup_function", "label": "tf.function forward pass"}},
        "baseline_settings": {"threads": "default", "onednn": "1"},
        "settings_map": {"threads": {"default": {}, "1": {"intra_op_threads": 1}},
                         "onednn": {"1": {"env": {"TF_ENABLE_ONEDNN_OPTS": "1"}},
                                    "0": {"env": {"TF_ENABLE_ONEDNN_OPTS": "0"}}}},
        "settings_labels": {"threads": {"default": "TensorFlow's default threads", "1": "intra-op threads = 1"},
                            "onednn": {"1": "oneDNN on (default)", "0": "oneDNN off (TF_ENABLE_ONEDNN_OPTS=0)"}},
        "questions": [
            {"id": "threads", "ask": "Does one intra-op thread serve your model faster than TensorFlow's default?",
             "claims": [c["id"] for c in one], "yes_if": "faster"},
            {"id": "onednn", "ask": "Is oneDNN (on by default) faster for your model than TensorFlow's own kernels?",
             "claims": [c["id"] for c in onednn], "yes_if": "faster"}],
        "settings_claims": [*one, *onednn],
    }


def _profile(doc: dict[str, Any], batches: Sequence[int], total_s: float, timeout_s: float) -> dict[str, Any]:
    groups = 3 if "settings_map" in doc else 1
    slots = len(doc["variants"]) * groups + 1
    body: dict[str, Any] = {"params": {"batch": list(batches)},
                            "budget": _budget(SHARES[doc["topic"]], total_s, len(batches), slots),
                            "timeout_s": timeout_s}
    if groups > 1:
        body["settings"] = {"threads": ["default", "1"], "onednn": ["1", "0"]}
        body["exclude"] = [{"onednn": "0", "threads": "1"}]
    return {"quick": body}


def snippet_config(spec: ModelSpec, seed: int = 0) -> dict[str, Any]:
    """What the snippet reads beside it (:func:`.snippet.config`)."""
    return {"path": str(spec.model.path), "kind": spec.model.kind, "fingerprint": spec.model.fingerprint,
            "input": {"name": spec.input_name, "shape": list(spec.shape), "dtype": spec.dtype},
            "seed": seed, "int_high": spec.int_high}


def generate(spec: ModelSpec, folder: Path, batches: Sequence[int], budget_s: float,
             runtimes: Sequence[str] = RUNTIMES, only: Sequence[str] = (), timeout_s: float = 300.0) -> list[Generated]:
    """Write the topics (``only`` those named, else all) and the snippet into ``folder``,
    in the order they are measured."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(__file__).with_name("snippet.py"), folder / f"{SNIPPET}.py")
    (folder / f"{SNIPPET}.json").write_text(json.dumps(snippet_config(spec), indent=1) + "\n", encoding="utf-8")
    docs = [predict_topic(batches), xla_topic(batches), serving_topic(batches, runtimes), threads_topic(batches)]
    out = []
    for doc in docs:
        if only and doc["topic"] not in only:
            continue
        doc = {**doc, "snippet": f"{SNIPPET}.py", "setup": "setup",
               "profiles": _profile(doc, batches, budget_s, timeout_s)}
        path = folder / f"{doc['topic']}.yaml"
        path.write_text("# Generated by `tfperf advise`: the guide's questions about one model.\n"
                        + yaml.safe_dump(doc, sort_keys=False, width=120), encoding="utf-8")
        groups = 3 if "settings_map" in doc else 1
        budget = doc["profiles"]["quick"]["budget"]["budget_s"]
        slots = len(doc["variants"]) * groups + 1
        converts = sum(1 for v in doc["variants"].values()
                       if v.get("setup") in CONVERTING and not (v["setup"] == "setup_saved_model"
                                                                and spec.model.kind == "saved_model"))
        out.append(Generated(doc["topic"], doc["title"], path, len(doc["variants"]) * groups, groups, converts,
                             budget * slots * len(batches)))
    return out


# -- measuring them within the budget --------------------------------------------------------


PROFILE = "quick"
SLACK = 0.25                       # a topic's estimate may be this much over the budget left
MIN_SCALE, MAX_SCALE = 0.5, 3.0    # how far the topics measured may scale the next estimates


@dataclass
class Session:
    folder: Path                                   # --out: topics/ and results/
    topics: list[Generated] = field(default_factory=list)
    measured: list[str] = field(default_factory=list)
    not_measured: list[tuple[str, str]] = field(default_factory=list)   # (topic, why)
    reports: list[Report] = field(default_factory=list)
    signum: int | None = None
    seconds: float = 0.0
    results: Path | None = None
    skipped: list[tuple[str, str]] = field(default_factory=list)        # (topic, why): not enough budget
    estimates: dict[str, float] = field(default_factory=dict)           # topic -> seconds, before the run
    took: dict[str, float] = field(default_factory=dict)                # topic -> seconds it took, if run

    @property
    def topics_dir(self) -> Path:
        return self.folder / "topics"

    @property
    def results_root(self) -> Path:
        return self.folder / "results"

    @property
    def exit_status(self) -> int:
        return 128 + self.signum if self.signum is not None else 0


def runtimes(find: Callable[[str], object] = importlib.util.find_spec) -> list[str]:
    """The serving runtimes this Python has (found, not imported): TFLite always (TensorFlow
    has it), ONNX Runtime when tf2onnx and onnxruntime are both installed."""
    return [r for r in RUNTIMES if r == "tflite" or (find("tf2onnx") is not None and find("onnxruntime") is not None)]


class TopicBar:
    """Progress across the topics, one line each as a topic starts: a bar on a terminal,
    plain words where stderr is not one (a log file, a pipe). The case-by-case bar of each
    topic's run (``measure.supervise.orchestrate.Progress``) goes under it."""

    WIDTH = 20

    def __init__(self, total: int, budget_s: float, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.budget_s, self.enabled = total, budget_s, enabled
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def line(self, done: int, spent: float, what: str) -> str:
        words = f"topic {min(done + 1, self.total)} of {self.total}, {spent:.0f} s of {self.budget_s:g} s: {what}"
        if not self.tty:
            return words
        filled = round(self.WIDTH * done / max(self.total, 1))
        return f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {words}"

    def show(self, done: int, spent: float, what: str) -> None:
        if self.enabled:
            self.stream.write(self.line(done, spent, what) + "\n")
            self.stream.flush()


def fits(estimate_s: float, left_s: float) -> bool:
    """Whether a topic estimated at ``estimate_s`` fits the budget left (an estimate is
    rough: a quarter over is let through)."""
    return estimate_s <= left_s * (1 + SLACK)


def measure(spec: ModelSpec, folder: Path, batches: Sequence[int], budget_s: float, runner: str,
            only: Sequence[str] = (), progress: bool = True, memory_limit_mb: int | None = None,
            python: str = sys.executable, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr),
            run_topic: Callable[[RunOptions], Report] = run, bar: TopicBar | None = None) -> Session:
    """Generate the topics into ``folder/topics`` and measure them into
    ``folder/results/<runner>/quick.json`` (replacing what an earlier advise left there).
    A topic whose estimate does not fit the budget left is not started (the first one
    always is); the estimates are scaled by how long the topics before took against theirs."""
    session = Session(folder)
    if session.results_root.exists():
        log(f"replacing the earlier results in {session.results_root}")
        shutil.rmtree(session.results_root)
    if session.topics_dir.exists():
        shutil.rmtree(session.topics_dir)
    timeout_s = max(300.0, budget_s)
    session.topics = generate(spec, session.topics_dir, batches, budget_s, runtimes(), only, timeout_s)
    session.results = store.results_path(folder, runner, PROFILE)
    estimates = {t.name: t.estimate_s(spec, len(batches)) for t in session.topics}
    session.estimates = dict(estimates)
    log("Estimated: " + ", ".join(f"{t.title} about {estimates[t.name]:.0f} s" for t in session.topics)
        + f"; {sum(estimates.values()):.0f} s in all, for a budget of {budget_s:g} s")
    bar = bar or TopicBar(len(session.topics), budget_s, enabled=progress)
    t0 = time.monotonic()
    took = estimated = 0.0                         # of the topics measured so far
    try:
        for i, topic in enumerate(session.topics):
            spent = time.monotonic() - t0
            if session.signum is not None:
                session.not_measured.append((topic.name, "interrupted"))
                continue
            scale = min(MAX_SCALE, max(MIN_SCALE, took / estimated)) if estimated > 0 else 1.0
            guess = estimates[topic.name] * scale
            if i and not fits(guess, budget_s - spent):
                need = spent + guess
                why = (f"not enough budget left: it needs about {guess:.0f} s and {max(0.0, budget_s - spent):.0f} s "
                       f"of {budget_s:g} s were left; --budget {10 * ceil(need / 10):.0f} or more measures it")
                session.not_measured.append((topic.name, why))
                session.skipped.append((topic.name, why))
                bar.show(i, spent, f"{topic.title} left out (not enough budget)")
                continue
            bar.show(i, spent, f"{topic.title}, about {guess:.0f} s ({len(batches)} scenario(s) of "
                               f"{topic.cases} case(s))")
            started = time.monotonic()
            report = run_topic(RunOptions(profile=PROFILE, topics=[topic.name], runner=runner, data_root=folder,
                                          snippets_dir=session.topics_dir, progress=progress,
                                          memory_limit_mb=memory_limit_mb, python=python))
            session.took[topic.name] = time.monotonic() - started
            took += session.took[topic.name]
            estimated += estimates[topic.name]
            session.reports.append(report)
            if report.ran:
                session.measured.append(topic.name)
            if report.interrupted:
                session.signum = report.signum
                if topic.name not in session.measured:
                    session.not_measured.append((topic.name, "interrupted"))
    except KeyboardInterrupt:                      # between topics, or while one was planned
        session.signum = signal.SIGINT
        done = set(session.measured) | {n for n, _ in session.not_measured}
        session.not_measured += [(t.name, "interrupted") for t in session.topics if t.name not in done]
    session.seconds = time.monotonic() - t0
    bar.show(len(session.topics), session.seconds, "done" if session.signum is None else "interrupted")
    return session
