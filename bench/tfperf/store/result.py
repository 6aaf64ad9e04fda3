"""The result model: one measured case, as the harness builds it, the store writes it and the
analysis reads it. Frozen dataclasses, each with ``from_json`` and ``to_json``; the JSON form
(``record_types.Result`` and its parts, checked against ``schema_v2.json``) stays the contract
on disk, and ``ResultRecord.from_json(r).to_json() == r`` for every result the harness writes
(``tests/store/test_result.py`` holds that over the committed data).

``from_json`` takes a record that passed the schema (``store.load`` validates every file);
what the schema lets a file leave out is None here, or an empty tuple for a list. ``to_json``
writes every field the harness writes, null included, and leaves out the optional fields
that are None. The properties are the readings every later stage shares: the median and its
interval, whether the output matched, the time it finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..arrival import BACK_TO_BACK, ArrivalRecord
from .record_types import (
    Interleave,
    Key,
    Output,
    Result,
    Scalar,
    Status,
    StoppedBy,
    Summary,
    Tail,
    Timing,
    Warmup,
    params_id,
    settings_id,
)


@dataclass(frozen=True)
class TimingRecord:
    """A case's samples (seconds per call; per request, each round's median), in round order."""

    inner_loops: int
    summary: Summary
    samples: tuple[float, ...]
    stopped_by: StoppedBy | None = None
    rounds: tuple[int, ...] = ()                          # the round of each sample
    latencies: tuple[tuple[float, ...], ...] = ()          # per-request patterns: each round's requests
    tail: Tail | None = None

    @classmethod
    def from_json(cls, t: Timing) -> TimingRecord:
        return cls(inner_loops=t["inner_loops"], summary=t["summary"], samples=tuple(t["samples"]),
                   stopped_by=t.get("stopped_by"), rounds=tuple(t.get("rounds") or ()),
                   latencies=tuple(tuple(r) for r in t.get("latencies") or ()), tail=t.get("tail"))

    def to_json(self) -> Timing:
        out: Timing = {"inner_loops": self.inner_loops, "summary": self.summary, "samples": list(self.samples)}
        if self.stopped_by is not None:
            out["stopped_by"] = self.stopped_by
        if self.rounds:
            out["rounds"] = list(self.rounds)
        if self.latencies:
            out["latencies"] = [list(r) for r in self.latencies]
        if self.tail is not None:
            out["tail"] = self.tail
        return out


@dataclass(frozen=True)
class OutputRecord:
    """How a case's output compared with its reference's."""

    max_abs_diff: float | None
    max_rel_diff: float | None
    within_tolerance: bool | None
    rtol: float | None = None
    atol: float | None = None
    note: str | None = None
    compared_with: str | None = None              # the reference's case id
    values: int | None = None                     # how many values the output has
    nonfinite: int | None = None                  # of them NaN/inf where the reference's is finite

    @classmethod
    def from_json(cls, o: Output) -> OutputRecord:
        return cls(max_abs_diff=o["max_abs_diff"], max_rel_diff=o["max_rel_diff"],
                   within_tolerance=o["within_tolerance"], rtol=o.get("rtol"), atol=o.get("atol"),
                   note=o.get("note"), compared_with=o.get("compared_with"), values=o.get("values"),
                   nonfinite=o.get("nonfinite"))

    def to_json(self) -> Output:
        out: Output = {"max_abs_diff": self.max_abs_diff, "max_rel_diff": self.max_rel_diff,
                       "within_tolerance": self.within_tolerance, "note": self.note}
        if self.rtol is not None:
            out["rtol"] = self.rtol
        if self.atol is not None:
            out["atol"] = self.atol
        if self.compared_with is not None:
            out["compared_with"] = self.compared_with
        if self.values is not None:
            out["values"] = self.values
        if self.nonfinite is not None:
            out["nonfinite"] = self.nonfinite
        return out

    @property
    def all_nonfinite(self) -> bool:
        """Every value is NaN or inf where the reference's is finite: no value was compared,
        so the stored difference (0.0 in files written before the harness stored null there)
        means nothing."""
        return self.values is not None and self.nonfinite is not None and self.values > 0 and self.nonfinite == self.values


@dataclass(frozen=True)
class InterleaveRecord:
    """The scenario a case was measured in, side by side with the others."""

    id: str
    baseline: str                                 # the baseline's case id
    seed: str | None = None                       # of the round order
    output_reference: str | None = None           # the case whose output the others were checked against
    processes: int = 1                            # worker processes per settings group: round i in process i % processes

    @classmethod
    def from_json(cls, i: Interleave) -> InterleaveRecord:
        return cls(id=i["id"], baseline=i["baseline"], seed=i.get("seed"), output_reference=i.get("output_reference"),
                   processes=int(i.get("processes", 1)))

    def to_json(self) -> Interleave:
        out: Interleave = {"id": self.id, "baseline": self.baseline}
        if self.seed is not None:
            out["seed"] = self.seed
        if self.output_reference is not None:
            out["output_reference"] = self.output_reference
        if self.processes > 1:
            out["processes"] = self.processes
        return out


@dataclass(frozen=True)
class ResultRecord:
    """One case's result: what was measured (the case), under which key, and how it went."""

    case_id: str
    topic: str
    params: dict[str, Scalar]
    settings: dict[str, str]
    variant: str
    key: Key
    key_hash: str
    env_id: str | None
    status: Status
    error: str | None
    first_call_s: float | None
    timing: TimingRecord | None
    output: OutputRecord | None
    finished_at: str
    is_reference: bool | None = None
    is_default: bool | None = None
    warmup: Warmup | None = None
    setup_s: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)      # what a snippet's setup reports (load_s, ...)
    started_at: str | None = None
    duration_s: float | None = None
    interleave: InterleaveRecord | None = None
    arrival: ArrivalRecord | None = None          # None: back to back

    @classmethod
    def from_json(cls, r: Result) -> ResultRecord:
        timing, output, interleave = r["timing"], r["output"], r.get("interleave")
        return cls(
            case_id=r["case_id"], topic=r["topic"], params=r["params"], settings=r["settings"], variant=r["variant"],
            key=r["key"], key_hash=r["key_hash"], env_id=r["env_id"], status=r["status"], error=r["error"],
            first_call_s=r["first_call_s"], timing=TimingRecord.from_json(timing) if timing else None,
            output=OutputRecord.from_json(output) if output else None, finished_at=r["finished_at"],
            is_reference=r.get("is_reference"), is_default=r.get("is_default"), warmup=r.get("warmup"),
            setup_s=r.get("setup_s"), metrics=r.get("metrics") or {}, started_at=r.get("started_at"),
            duration_s=r.get("duration_s"), interleave=InterleaveRecord.from_json(interleave) if interleave else None,
            arrival=r.get("arrival"))

    def to_json(self) -> Result:
        out: Result = {
            "case_id": self.case_id, "topic": self.topic, "params": self.params, "settings": self.settings,
            "variant": self.variant, "key": self.key, "key_hash": self.key_hash, "env_id": self.env_id,
            "status": self.status, "error": self.error, "first_call_s": self.first_call_s,
            "timing": self.timing.to_json() if self.timing else None,
            "output": self.output.to_json() if self.output else None, "finished_at": self.finished_at,
            "warmup": self.warmup, "setup_s": self.setup_s, "metrics": self.metrics,
            "interleave": self.interleave.to_json() if self.interleave else None}
        if self.is_reference is not None:
            out["is_reference"] = self.is_reference
        if self.is_default is not None:
            out["is_default"] = self.is_default
        if self.started_at is not None:
            out["started_at"] = self.started_at
        if self.duration_s is not None:
            out["duration_s"] = self.duration_s
        if self.arrival is not None:
            out["arrival"] = self.arrival
        return out

    # -- the readings every stage shares ----------------------------------------------------

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.samples) and self.median is not None

    @property
    def params_id(self) -> str:
        return params_id(self.params)

    @property
    def settings_id(self) -> str:
        return settings_id(self.settings)

    @property
    def samples(self) -> tuple[float, ...]:
        """Seconds per call, in round order; none when it was not timed."""
        return self.timing.samples if self.timing else ()

    @property
    def rounds(self) -> tuple[int, ...]:
        """The round of each sample; none when the file does not say (or says it wrongly)."""
        rounds = self.timing.rounds if self.timing else ()
        return rounds if len(rounds) == len(self.samples) else ()

    @property
    def latencies(self) -> tuple[tuple[float, ...], ...]:
        return self.timing.latencies if self.timing else ()

    @property
    def inner_loops(self) -> int:
        """Calls per stored sample."""
        return max(1, self.timing.inner_loops) if self.timing else 1

    @property
    def median(self) -> float | None:
        return self.timing.summary.get("median") if self.timing else None

    @property
    def ci_low(self) -> float | None:
        return self.timing.summary.get("ci_low") if self.timing else None

    @property
    def ci_high(self) -> float | None:
        return self.timing.summary.get("ci_high") if self.timing else None

    @property
    def n(self) -> int:
        return int(self.timing.summary.get("n", len(self.samples)) or 0) if self.timing else 0

    @property
    def within_tolerance(self) -> bool | None:
        """Whether the output matched the reference's; a reference with no comparison matches
        itself; None when it was not compared."""
        if self.output:
            return self.output.within_tolerance
        return True if self.is_reference else None

    @property
    def max_abs_diff(self) -> float | None:
        return self.output.max_abs_diff if self.output and not self.output.all_nonfinite else None

    @property
    def max_rel_diff(self) -> float | None:
        return self.output.max_rel_diff if self.output and not self.output.all_nonfinite else None

    @property
    def interleave_id(self) -> str | None:
        """The scenario it was measured in, side by side with the others."""
        return self.interleave.id if self.interleave else None

    @property
    def arrival_id(self) -> str:
        """The arrival pattern's id (``tfperf.arrival``): "back-to-back" when the record has none."""
        return self.arrival["id"] if self.arrival else BACK_TO_BACK.id

    @property
    def finished(self) -> datetime:
        """``finished_at`` as a time (the earliest time when it cannot be read)."""
        return parse_time(self.finished_at)


def parse_time(text: object) -> datetime:
    """An ISO 8601 time (UTC when it names no zone); the earliest time when it is not one."""
    try:
        t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
