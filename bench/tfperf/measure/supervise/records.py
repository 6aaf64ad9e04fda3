"""A scenario's tasks and the records they leave. A task is what ``orchestrate`` plans for a
worker to do (one case to measure or break down), with the key its records are stored
under, and what ``scenario`` sends for it. The records are built from what was measured: a
result per case (what its worker prepared, its timing taken from the interleaved rounds),
the A/A pair's noise record, the scenario record and the breakdowns; plain functions over
the rounds and the tasks, which ``scenario`` calls once the rounds have ended.

The scenario record holds the machine's state before and after (runner hygiene): the load
averages, the CPU frequency and governor where the kernel shows them (Linux's cpufreq),
the machine's busy CPU time and the CPU time of our own processes (the parent and its
workers), all but the frequency through psutil (``envinfo``), so Linux, macOS and Windows
record them alike; and the host probe's milliseconds (``host_probe``), which tell a run on a
slower host from one on a faster host of the same CPU model. The busy time nobody of ours
used, per core and second, is what someone else took from the machine: a scenario where it
exceeds ``OTHERS_LIMIT`` is flagged. (A load
average above the core count is no sign here: one TensorFlow worker running two threads
alone gives a load of 2 on 2 cores.)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ... import stats
from ...arrival import Arrival, ArrivalRecord
from ...cases import Case
from ...store.record_types import (
    Breakdown,
    Key,
    MachineState,
    Noise,
    Percentile,
    ScenarioStoppedBy,
    Status,
    StoppedBy,
    Summary,
    Tail,
    key_hash,
)
from ...store.record_types import Scenario as ScenarioRecord
from ...store.result import InterleaveRecord, OutputRecord, ResultRecord, TimingRecord
from .. import envinfo, host_probe
from ..worker.protocol import BreakdownResult, BreakdownTask, CaseFields, CaseTask, Sampling, WorkerResult
from .rounds import AA_SUFFIX, Rounds

# -- the task --------------------------------------------------------------------------------


@dataclass
class Task:
    """One thing a worker does: measure a case, or sample where a call spends its time."""

    id: str
    kind: Literal["case", "breakdown"]
    case: Case
    key: Key
    payload: CaseFields
    sampling: Sampling | None = None      # a breakdown's

    def worker_payload(self) -> CaseTask:
        """The task as a ``prepare`` or ``breakdown`` command carries it: its fields, id and
        kind, and under a per-request pattern the case's arrival pattern."""
        p = self.payload
        task: CaseTask = {
            "id": self.id, "kind": self.kind, "case_id": p["case_id"], "snippet": p["snippet"], "fn": p["fn"],
            "setup": p["setup"], "params": p["params"], "budget": p["budget"], "tolerance": p["tolerance"],
            "is_reference": p["is_reference"], "slot": p["slot"], "reference_fn": p["reference_fn"],
            "reference_setup": p["reference_setup"], "reference_id": p["reference_id"]}
        if self.kind == "case" and self.case.arrival.per_request:
            task["arrival"] = self.case.arrival.record()
        return task

    def breakdown_payload(self) -> BreakdownTask:
        """A breakdown task as the ``breakdown`` command carries it."""
        if self.sampling is None:
            raise ValueError(f"{self.id} is not a breakdown")
        task: BreakdownTask = {**self.worker_payload(), "calls": self.sampling["calls"],
                               "categories": self.sampling["categories"]}
        return task


# -- the records -----------------------------------------------------------------------------


MIN_TAIL_ROUNDS = 6          # rounds in common for the A/A pair's p99 ratio (a bootstrap over rounds)


def failure(status: Status, error: str) -> WorkerResult:
    """A worker result for a case that did not get measured: ``status`` and ``error``, no
    figures, started and finished now."""
    now = envinfo.now_iso()
    return {"status": status, "error": error, "first_call_s": None, "warmup": None, "timing": None,
            "output": None, "setup_s": None, "metrics": {}, "started_at": now, "finished_at": now,
            "duration_s": 0.0}


def result_record(task: Task, worker: WorkerResult, timing: TimingRecord | None, env: str | None,
                  interleave: InterleaveRecord, arrival: ArrivalRecord | None) -> ResultRecord:
    """A result record: the case, its key, what its worker measured (its timing taken
    from the rounds), its interleave and, under a per-request pattern, its arrivals."""
    c = task.case
    output = worker["output"]
    return ResultRecord(
        case_id=c.case_id, topic=c.topic, params=c.params, settings=c.settings, variant=c.variant,
        is_reference=c.is_reference, is_default=c.variant == c.default,
        key=task.key, key_hash=key_hash(task.key), env_id=env,
        status=worker["status"], error=worker["error"], first_call_s=worker["first_call_s"],
        warmup=worker["warmup"], timing=timing, output=OutputRecord.from_json(output) if output else None,
        setup_s=worker["setup_s"], metrics=worker["metrics"], started_at=worker["started_at"],
        finished_at=worker["finished_at"], duration_s=worker["duration_s"], interleave=interleave, arrival=arrival)


def timed(prepared: WorkerResult, rounds: Rounds, name: str, stopped_by: StoppedBy) -> TimingRecord | None:
    """The timing of the worker's prepared case, from the rounds' samples of slot ``name``
    (at the inner loops the worker calibrated, 1 if it gave none); None when the rounds
    have no sample of it."""
    prep = prepared.get("timing")
    loops = int((prep["inner_loops"] if prep else None) or 1)
    return timing_record(rounds, name, loops, stopped_by)


def timing_record(rounds: Rounds, name: str, inner_loops: int, stopped_by: StoppedBy) -> TimingRecord | None:
    """The stored timing of slot ``name``: its samples (6 significant digits) in round order,
    their summary and the rounds they came from; under a per-request pattern each round's
    latencies and their percentiles too. None when the slot has no sample."""
    got = rounds.samples.get(name) or {}
    if not got:
        return None
    idx = sorted(got)
    samples = [float(f"{got[i]:.6g}") for i in idx]
    latencies = rounds.latencies.get(name)
    return TimingRecord(inner_loops=inner_loops, summary=summary_record(stats.summarize(samples)),
                        samples=tuple(samples), stopped_by=stopped_by, rounds=tuple(idx),
                        latencies=tuple(tuple(latencies[i]) for i in idx) if latencies else (),
                        tail=tail_record([x for i in idx for x in latencies[i]]) if latencies else None)


def summary_record(s: stats.Summary) -> Summary:
    """A sample's summary as the store keeps it (every field of ``stats.Summary``)."""
    return {"n": s.n, "median": s.median, "iqr": s.iqr, "ci_low": s.ci_low, "ci_high": s.ci_high,
            "min": s.min, "max": s.max, "mean": s.mean, "stdev": s.stdev}


def _percentile(p: stats.Percentile) -> Percentile:
    return {"value": p.value, "ci_low": p.ci_low, "ci_high": p.ci_high}


def tail_record(latencies: list[float]) -> Tail:
    """The stored percentiles of a result's latencies (:func:`tfperf.stats.tail`)."""
    p50, p90, p99 = (_percentile(p) for p in stats.tail(latencies))
    return {"n": len(latencies), "p50": p50, "p90": p90, "p99": p99}


def interleave_record(interleave: str, baseline: Task, seed: str, output_reference: Task | None,
                      processes: int = 1) -> InterleaveRecord:
    """What each result stores of its interleave: its id, the baseline's case id, the seed of
    its round order, once one saved its output the output reference's case id, and with
    more than one worker process per settings group their number (round ``i`` was taken in
    process ``i % processes``)."""
    return InterleaveRecord(id=interleave, baseline=baseline.case.case_id, seed=seed,
                            output_reference=output_reference.case.case_id if output_reference else None,
                            processes=processes)


def noise_record(rounds: Rounds, aa: tuple[float, float, float], baseline: Task, env: str | None,
                 interleave: str, arrival: Arrival) -> Noise:
    """The scenario's A/A pair: the ratio ``aa`` (with its interval) of the baseline's two
    blocks per round (their median latencies under a per-request pattern, with the ratio of
    their 99th percentiles too, from ``MIN_TAIL_ROUNDS`` rounds in common)."""
    ratio, lo, hi = aa
    name = baseline.id + AA_SUFFIX
    got = rounds.samples[name]
    out: Noise = {
        "case_id": baseline.case.case_id, "env_id": env,
        "key_hash": key_hash(baseline.key), "ratio": ratio, "ci_low": lo, "ci_high": hi,
        "rel_noise": max(abs(ratio - 1.0), (hi - lo) / 2.0), "time": envinfo.now_iso(),
        "interleave": interleave, "samples": [float(f"{got[i]:.6g}") for i in sorted(got)],
        "rounds": sorted(got)}
    if not arrival.per_request:
        return out
    out["arrival"] = arrival.id
    latencies = rounds.latencies.get(name) or {}
    out["latencies"] = [latencies[i] for i in sorted(got)]
    first, second = rounds.paired_latencies(baseline.id, name)
    if len(first) >= MIN_TAIL_ROUNDS:
        r, r_lo, r_hi = stats.paired_quantile_ratio(first, second, 0.99)
        out["p99"] = {"ratio": r, "ci_low": r_lo, "ci_high": r_hi,
                      "rel_noise": max(abs(r - 1.0), (r_hi - r_lo) / 2.0)}
    return out


def breakdown_record(task: Task, env: str | None, breakdown: BreakdownResult) -> Breakdown:
    """A breakdown record: the case, its key's hash and its worker's environment, and where
    its calls spent their time."""
    c = task.case
    return {"case_id": c.case_id, "topic": c.topic, "variant": c.variant, "params": c.params,
            "settings": c.settings, "key_hash": key_hash(task.key), "env_id": env, **breakdown}


def scenario_record(interleave: str, baseline: Task, tasks: Sequence[Task], rounds: Rounds,
                    stopped_by: ScenarioStoppedBy, *,
                    seed: str, arrival: Arrival, workers: int, tighten: Sequence[tuple[str, str]],
                    seconds: float, seconds_rounds: float, budget_s: float, budget_scale: float,
                    before: Snapshot, after: Snapshot, others: float | None) -> ScenarioRecord:
    """The scenario record: its cases and baseline, how many rounds and why they stopped, how
    long it took and the seconds of rounds it was given before any extension (``budget_s``,
    with ``budget_scale`` when not 1), its widest relative interval (``Rounds.widest``: the
    speedups over the baseline, the A/A noise floor and the pairs in ``tighten``) and its A/A noise, and the
    machine before and after, with ``others``, the share of its cores that other processes
    kept busy (``loaded`` above ``OTHERS_LIMIT``)."""
    c = baseline.case
    scenario: ScenarioRecord = {
        "id": interleave, "topic": c.topic, "params": c.params, "runner": baseline.key["runner"],
        "baseline": c.case_id, "cases": [t.case.case_id for t in tasks],
        "rounds": rounds.count, "stopped_by": stopped_by, "seed": seed,
        "seconds": round(seconds, 3), "rounds_seconds": round(seconds_rounds, 3), "budget_s": round(budget_s, 3),
        "workers": workers, "widest_rel_ci": _finite(rounds.widest(tighten)),
        "aa_noise": rounds.aa_noise(), "before": public(before), "after": public(after),
        "others_share": others, "loaded": others is not None and others > OTHERS_LIMIT,
        "time": envinfo.now_iso()}
    if arrival.per_request:
        scenario["arrival"] = arrival.id
    if budget_scale != 1.0:
        scenario["budget_scale"] = budget_scale
    return scenario


def _finite(x: float) -> float | None:
    """``x``, or None for NaN and the infinities (which JSON cannot hold)."""
    return x if x == x and x not in (float("inf"), float("-inf")) else None  # noqa: PLR0124 - x != x: NaN


# -- the machine around a scenario -----------------------------------------------------------


class Snapshot(MachineState):
    """The machine state stored with a scenario, and the raw counters ``others_share`` compares."""

    _t: float                     # time.monotonic()
    _busy: float | None           # machine_busy_s
    _ours: float                  # process_cpu_s of this process and its workers

CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")

# Flag a scenario when others used more than this share of the machine's cores.
OTHERS_LIMIT = 0.10
# The shortest window whose share is told: the kernel counts busy time in 10 ms ticks, so
# one tick over the 5 ms of a scenario that ran no rounds (its cases not available in that
# TensorFlow) reads as the whole machine busy. Over 1 s on 2 cores a tick is 0.5%.
MIN_WINDOW_S = 1.0


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def snapshot(pids: Iterable[int] = (), cpufreq: Path = CPUFREQ,
             probe: Callable[[], float | None] = host_probe.probe_ms) -> Snapshot:
    """Load averages (1, 5, 15 min), governor and frequency (MHz) where readable, the host
    probe's milliseconds (``host_probe``), and the CPU-time counters that
    :func:`others_share` compares (read after the probe, which is our own CPU time)."""
    khz = _read(cpufreq / "scaling_cur_freq")
    probe_ms = probe()
    return {"load": envinfo.load_averages(), "governor": _read(cpufreq / "scaling_governor"),
            "freq_mhz": round(int(khz) / 1000) if khz and khz.isdigit() else None, "probe_ms": probe_ms,
            "_t": time.monotonic(), "_busy": envinfo.busy_cpu_s(),
            "_ours": envinfo.process_cpu_s([os.getpid(), *pids])}


def others_share(before: Snapshot, after: Snapshot, cores: int) -> float | None:
    """The share of the machine's cores that processes other than ours kept busy between
    two snapshots (0.0: nobody else; 1.0: every core all the time); None where the counters
    cannot be read or the window is too short to tell (``MIN_WINDOW_S``)."""
    busy_before, busy_after = before.get("_busy"), after.get("_busy")
    if busy_before is None or busy_after is None:
        return None
    elapsed = after["_t"] - before["_t"]
    if elapsed < MIN_WINDOW_S:
        return None
    others = (busy_after - busy_before) - (after["_ours"] - before["_ours"])
    share: float = round(max(0.0, others) / (elapsed * max(cores, 1)), 4)
    return share


def public(snap: Snapshot) -> MachineState:
    """The snapshot as stored (without its raw counters)."""
    return {"load": snap.get("load"), "governor": snap.get("governor"), "freq_mhz": snap.get("freq_mhz"),
            "probe_ms": snap.get("probe_ms")}
