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
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .probe import ModelSpec

SNIPPET = "advise_model"           # the snippet's file name (and its JSON's) beside the topics
SHARES = {"advise_predict": 0.25, "advise_xla": 0.2, "advise_serving": 0.35, "advise_threads": 0.2}
ROUNDS_SHARE = 0.35                # of a topic's share, for its rounds: the rest is start-up and set-up
TOLERANCE = {"rtol": 1.0e-4, "atol": 1.0e-4}    # serving_formats' and xla_jit's: kernels reorder float sums
RUNTIMES = ("tflite", "onnx")
CONVERTING = ("setup_saved_model", "setup_tflite", "setup_tflite_plain", "setup_onnx")


# What the cost estimate assumes where the probe tells nothing (seconds).
IMPORT_S = 4.0                     # a worker process importing TensorFlow
# Each case costs this many of the probe's TensorFlow imports in every scenario, besides its
# setup: fitted on real runs (a small convnet, a GRU, a two-output model, the predict-vs-call
# medium MLP; budgets 60 and 120 s, on a shared 2-core machine) as the ratio of each topic's
# time outside its rounds to the probe's import time, which scales with the machine's load
# alike. It was 0.36-0.58 in every topic, whatever its worker processes; a case whose setup
# converts the model is costed by its conversion alone (serving_formats: within 20% so).
CASE_IMPORTS = 0.45
CONVERT_S = 2.0                    # one conversion (TFLite, ONNX, a SavedModel export) of a small model
CONVERT_PER_LOAD = 3.0             # ... and this many times the model's load time more


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
        """About how long the topic takes: each case in every scenario, its setup (loading
        and calling the model) and, unless its setup converts the model (then its conversion
        is the cost), its share of starting workers (:data:`CASE_IMPORTS` of the probe's
        TensorFlow import); the conversions; and the rounds' budget."""
        call = max(spec.call_s.values(), default=0.0)
        setup = spec.load_s + call
        imports = (self.cases - self.converts) * CASE_IMPORTS * (spec.import_s or IMPORT_S)
        cases = scenarios * (self.cases * setup + imports)
        conversions = self.converts * scenarios * (CONVERT_S + CONVERT_PER_LOAD * spec.load_s)
        return cases + conversions + self.rounds_s


def _budget(share: float, total_s: float, scenarios: int, slots: int) -> dict[str, float]:
    per_slot = max(0.05, share * total_s * ROUNDS_SHARE / max(1, scenarios * slots))
    return {"budget_s": round(per_slot, 3), "min_samples": 7, "max_samples": 200, "target_rel_ci": 0.05,
            "warmup_s": 0.05, "min_sample_s": 0.005}


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
