"""``tfperf advise``: each answer about the reader's model beside what the guide found on
the published runner with the same CPU (the runner whose label is this machine's), and
where the two differ.

Each advise claim stands for one of the guide's claims (:data:`GUIDE`): the same two ways
compared, at batch 1 or at a larger batch. The guide's claim is answered by the same
analysis over the published results (:func:`tfperf.analyse.claim_answer`); nothing here
computes a statistic, it sets two findings side by side. The two differ where both are a
plain finding (faster, slower, the same) and not the same one, or where the reader's
fastest way is not among the guide's fastest on that runner at that batch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...analyse import Dataset, Finding, claim_answer, hardware_name, question_answers

PLAIN = (Finding.FASTER, Finding.SLOWER, Finding.SAME)

# advise claim stem -> (guide topic, its claim at batch 1, its claim at a larger batch)
GUIDE: dict[str, tuple[str, str, str]] = {
    "call_vs_predict": ("predict_vs_call", "call_beats_predict_single", "call_beats_predict_large_batch"),
    "tf_function_vs_call": ("predict_vs_call", "tf_function_beats_call", "tf_function_beats_call"),
    "xla_vs_function": ("xla_jit", "xla_beats_function", "xla_beats_function"),
    "saved_model_vs_tf_function": ("serving_formats", "saved_model_vs_tf_function", "saved_model_vs_tf_function"),
    "tflite_vs_tf_function": ("serving_formats", "tflite_beats_tf_single", "tflite_vs_tf_batch"),
    "onnx_vs_tf_function": ("serving_formats", "onnx_beats_tf_single", "onnx_beats_tf_batch"),
    "xnnpack": ("serving_formats", "xnnpack_helps", "xnnpack_helps"),
    "one_thread": ("cpu_threads", "one_thread_single_request", "one_thread_slower"),
    "onednn": ("cpu_threads", "onednn_faster", "onednn_faster"),
}
# advise topic -> the guide's topic whose "Do this" it matches, and advise variant -> guide variant
WINNERS: dict[str, tuple[str, dict[str, str]]] = {
    "advise_predict": ("predict_vs_call", {"tf_function": "call_tf_function"}),
    "advise_serving": ("serving_formats", {}),
}
GUIDE_TOPICS = tuple(sorted({t for t, _, _ in GUIDE.values()}))
_CLAIM = re.compile(r"^(?P<stem>.+)_b(?P<batch>\d+)$")


@dataclass(frozen=True)
class Beside:
    """One answer about the reader's model and the guide's on the published runner."""

    topic: str                     # the advise topic
    claim_id: str                  # the advise claim ("call_vs_predict_b1")
    yours: str                     # its finding here ("faster")
    guide_topic: str
    guide_claim: str
    guide: str                     # the guide's finding on that runner ("faster"), or "" where it has none
    guide_text: str                # the guide's summary there ("faster in all 10 scenarios (7.5×–41.6×)")
    guide_brief: str               # the same without the exceptions' names ("faster in all 10 (7.5×–41.6×)")
    differs: bool

    def line(self, brief: bool = False) -> str:
        if not self.guide:
            return "the guide has no result for this on that runner"
        mark = "DIFFERS: " if self.differs else ""
        return f"{mark}on the guide's runner: {self.guide_brief if brief else self.guide_text}"


@dataclass(frozen=True)
class Winner:
    """The reader's fastest way at one batch against the guide's on the published runner."""

    topic: str
    batch: int
    yours: str                     # display name
    guide_batch: int               # the guide's batch nearest to it
    guide: tuple[str, ...]         # the guide's fastest (and level with it) over its models at that batch
    differs: bool

    def line(self) -> str:
        mark = "DIFFERS: " if self.differs else ""
        at = f"batch {self.guide_batch}" + (f", the nearest to your {self.batch}" if self.guide_batch != self.batch else "")
        return f"{mark}the guide's fastest on its runner at {at}, over its models: {', '.join(self.guide)}"


@dataclass(frozen=True)
class Published:
    """What the guide found on the runner with this machine's CPU, or why there is none."""

    runner: str | None             # the published runner's label; None when none matches
    hardware: str                  # "2-core AMD EPYC (AVX2)"
    why_none: str                  # when runner is None: the sentence that says so
    claims: tuple[Beside, ...] = ()
    winners: tuple[Winner, ...] = ()

    def heading(self) -> str:
        if self.runner is None:
            return self.why_none
        n = sum(b.differs for b in self.claims) + sum(w.differs for w in self.winners)
        where = f"{n} answer{'s' if n != 1 else ''} differ" if n else "no answer differs"
        return (f"Beside the guide's published runner with the same CPU, {self.hardware} ({self.runner}): "
                f"{where}.")

    def for_claim(self, claim_id: str) -> Beside | None:
        return next((b for b in self.claims if b.claim_id == claim_id), None)

    def as_json(self) -> dict[str, Any]:
        return {"runner": self.runner, "hardware": self.hardware, "why_none": self.why_none or None,
                "claims": [{"topic": b.topic, "claim": b.claim_id, "yours": b.yours, "guide_topic": b.guide_topic,
                            "guide_claim": b.guide_claim, "guide": b.guide or None, "guide_text": b.guide_text or None,
                            "guide_brief": b.guide_brief or None,
                            "differs": b.differs} for b in self.claims],
                "winners": [{"topic": w.topic, "batch": w.batch, "yours": w.yours, "guide_batch": w.guide_batch,
                             "guide": list(w.guide),
                             "differs": w.differs} for w in self.winners]}


def none_matches(label: str, labels: Iterable[str], published: str) -> Published:
    have = ", ".join(sorted(labels)) or "none"
    return Published(None, "", f"No published runner has this machine's CPU ({label}; published: {have} in "
                               f"{published}), so the answers stand alone.")


def _guide_claim(claim_id: str) -> tuple[str, str] | None:
    m = _CLAIM.match(claim_id)
    if m is None or m["stem"] not in GUIDE:
        return None
    topic, single, larger = GUIDE[m["stem"]]
    return topic, single if int(m["batch"]) == 1 else larger


def _winners(local: Dataset, published: Dataset, runner: str, topics: Sequence[str]) -> list[Winner]:
    out = []
    for topic in topics:
        if topic not in WINNERS:
            continue
        guide_topic, ids = WINNERS[topic]
        info, ginfo = local.topics.get(topic), published.topics.get(guide_topic)
        best: dict[int, list[str]] = {}
        for rec in published.recommendations(guide_topic):
            if rec.scenario.runner.split("/")[0] != runner or rec.best is None:
                continue
            batch = int(str(rec.scenario.params.get("batch", 0)))
            for v in (rec.best, *rec.tied):
                name = ginfo.display_name(v) if ginfo else v
                if name not in best.setdefault(batch, []):
                    best[batch].append(name)
        for rec in local.recommendations(topic):
            if rec.best is None or len(rec.scenario.variants) < 2:
                continue
            batch = int(str(rec.scenario.params.get("batch", 0)))
            nearest = min(best, key=lambda b: (abs(b - batch), b), default=None)
            if nearest is None:
                continue
            mine = [ginfo.display_name(ids.get(v, v)) if ginfo else v for v in (rec.best, *rec.tied)]
            yours = info.display_name(rec.best) if info else rec.best
            out.append(Winner(topic, batch, yours, nearest, tuple(best[nearest]),
                              differs=not set(mine) & set(best[nearest])))
    return out


def beside(local: Dataset, published: Dataset, runner: str, topics: Sequence[str]) -> Published:
    """The advise answers of ``topics`` beside the guide's on the published ``runner``."""
    claims = []
    for topic in topics:
        for qa in question_answers(local, topic):
            for c in qa.claims:
                if not c.runners:
                    continue
                target = _guide_claim(c.claim_id)
                if target is None:
                    continue
                yours = c.runners[0].finding
                answer = claim_answer(published, *target)
                there = next((r for r in answer.runners if r.runner.split("/")[0] == runner), None) if answer else None
                guide = there.finding if there else None
                differs = guide is not None and yours in PLAIN and guide in PLAIN and yours != guide
                claims.append(Beside(topic, c.claim_id, str(yours), *target, str(guide) if guide else "",
                                     there.text if there else "", there.brief if there else "", differs))
    runners = {r.split("/")[0] for r in published.runners}
    hw = hardware_name(published.runners.get(runner), runner) if runner in runners else runner
    return Published(runner, hw, "", tuple(claims), tuple(_winners(local, published, runner, topics)))
