"""Measuring one scenario side by side: prepare every case in its settings group's live
worker, then take interleaved rounds (:mod:`tfperf.measure.supervise.rounds`) until the rule
says stop, release the cases, and hand what was measured to
:mod:`tfperf.measure.supervise.records`, which builds the result, noise, scenario and
breakdown records.

The scenario's output reference is the case whose first output every settings group
checks its own against (:class:`OutputReference`). The baseline (the reference variant
under the baseline settings) is prepared first and saves its first output to the
scenario's file; when it cannot run (Keras 3 before TensorFlow 2.16), the first reference
variant of another group that does takes its place. The cases of the other settings
groups are sent the file and that case's id, and compare with it in their own process
(``worker.outputs``); the cases of the reference's own group compare with the reference
output their worker already holds.

A scenario has one arrival pattern (:mod:`tfperf.arrival`): back to back, each slot's
block of a round is calls timed together; under a per-request pattern it is a block of
requests, each timed alone (an idle gap before each, or Poisson arrivals drawn here per
round), and every request's latency is kept beside the block's median.

A profile may ask for more than one worker process per settings group (``processes`` in
its budget): every case is then prepared in each, and the rounds take turns between them
(:func:`~tfperf.measure.supervise.rounds.process_of`), so that what differs from one
process to the next shows in the intervals instead of hiding in them. The first process's
preparation gives the case's first-call figures and output check; the others compare their
first output with the reference's saved one.

Only one worker measures at any moment: the parent sends one command and waits for its
answer before the next. A case that raises, hangs or kills its worker becomes a failure
record; the group's worker is started again and its other cases go on.
"""

from __future__ import annotations

import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypedDict

from ... import stats
from ...arrival import ArrivalRecord, Pattern
from ...store.record_types import Breakdown, Environment, Noise, ScenarioStoppedBy, Status, env_id
from ...store.record_types import Scenario as ScenarioRecord
from ...store.result import ResultRecord, TimingRecord
from .. import envinfo
from ..worker.protocol import (
    Answer,
    CaseTask,
    Command,
    CompareWith,
    SampleCommand,
    Sampled,
    WorkerResult,
)
from . import records
from .pool import Pool, WorkerGone, WorkerHandle
from .records import Task
from .rounds import AA_SUFFIX, RoundRule, Rounds, Slot, block_seconds, mean_gap, process_of, round_order, schedule

# A request's latency is stored to 4 significant digits (0.01%, far inside any interval):
# about 10 bytes each in the file, so a result of 15 rounds of 50 requests adds some 7.5 KB.
LATENCY_DIGITS = 4
CALIBRATION_ROUNDS = 7       # back-to-back blocks per case before a per-request pattern's rounds


@dataclass
class Outcome:
    """What a scenario leaves to store."""

    results: list[ResultRecord] = field(default_factory=list)
    noise: list[Noise] = field(default_factory=list)
    scenarios: list[ScenarioRecord] = field(default_factory=list)
    breakdowns: list[Breakdown] = field(default_factory=list)
    environments: dict[str, Environment] = field(default_factory=dict)


_WHY: dict[str, Status] = {"timeout": "timeout", "memory": "crashed", "eof": "crashed", "exited": "crashed"}


def worker_key(group: str, process: int) -> str:
    """The pool's name for process ``process`` (0, 1, ...) of settings group ``group``."""
    return group if process == 0 else f"{group}#{process + 1}"


def worker_keys(tasks: Sequence[Task], processes: int) -> set[str]:
    """The pool's names of every worker process ``tasks`` need."""
    return {worker_key(t.case.group_key, p) for t in tasks for p in range(max(1, processes))}


# -- the output reference --------------------------------------------------------------------


class OutputCheck(TypedDict, total=False):
    """What a prepare command adds to the case for the output check (``OutputReference.check``)."""

    save_reference: str
    compare_with: CompareWith


def preparing_order(tasks: Sequence[Task], baseline: Task) -> list[Task]:
    """The order a scenario prepares its tasks in: the baseline first, whose output is the
    reference every settings group checks against; then the other groups' reference
    variants, one of which takes over when the baseline cannot run; then the rest."""
    return sorted(tasks, key=lambda t: (t.id != baseline.id, not t.case.is_reference))


@dataclass
class OutputReference:
    """The scenario's output reference: ``task`` once it has saved its output to ``file``,
    None before."""

    file: Path
    task: Task | None = None

    def check(self, task: Task, process: int = 0) -> OutputCheck:
        """What ``task``'s worker needs to check its output: to save it to the file while no
        reference has saved one and the task is a reference variant (or is the reference
        itself, prepared again); to compare with the file when the reference is of another
        settings group; nothing when it is of the reference's own group. In a group's second
        process and on, every case compares with the file once there is one (the reference
        too: its output must not depend on the process)."""
        ref = self.task
        if process > 0:
            if ref is not None and self.file.exists():
                return {"compare_with": {"path": str(self.file), "case_id": ref.case.case_id}}
            return {}
        if ref is None:
            return {"save_reference": str(self.file)} if task.case.is_reference else {}
        if task.id == ref.id:
            return {"save_reference": str(self.file)}
        if task.case.group_key != ref.case.group_key and self.file.exists():
            return {"compare_with": {"path": str(self.file), "case_id": ref.case.case_id}}
        return {}

    def after_prepare(self, task: Task, status: object) -> None:
        """``task`` was prepared with ``status``: it becomes the reference if there is none
        yet, it is a reference variant, it prepared ok and its output is in the file."""
        if self.task is None and status == "ok" and task.case.is_reference and self.file.exists():
            self.task = task


# -- the scenario ----------------------------------------------------------------------------


class ScenarioRun:
    """One interleave of ``tasks`` (cases of one topic and parameter combination, in one
    or more settings groups) with ``baseline`` among them: its workers supervised, its
    cases prepared, its rounds taken; :mod:`~tfperf.measure.supervise.records` builds
    what it leaves to store."""

    def __init__(self, pool: Pool, tasks: list[Task], baseline: Task, rule: RoundRule, seed: str,
                 breakdowns: list[Task], on_progress: Callable[[str, bool], None],
                 log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> None:
        self.pool, self.tasks, self.baseline, self.rule, self.seed = pool, tasks, baseline, rule, seed
        self.breakdowns = breakdowns
        self.on_progress, self.log = on_progress, log
        self.id = uuid.uuid4().hex[:16]
        self.out = Outcome()
        self.prepared: dict[str, WorkerResult] = {}  # task id -> the worker's prepare result
        self.failed: dict[str, WorkerResult] = {}    # task id (a case task's is its case id) -> failure result
        self.envs: dict[str, str | None] = {}        # worker key -> env id of that worker
        self.groups = {t.case.group_key for t in tasks}
        self.processes = max(1, rule.processes)      # worker processes per settings group
        self.keys = frozenset(worker_keys(tasks, self.processes))
        self.dead: dict[str, str] = {}               # worker key -> why that worker never became ready
        # Whose output the other groups check against, and its file (a temporary folder's, set by run()).
        self.outputs = OutputReference(Path(tempfile.gettempdir()) / f"tfperf-ref-{self.id}.npz")
        self.arrival = baseline.case.arrival         # the scenario's pattern: every case's
        self.arrival_records: dict[str, ArrivalRecord] = {}   # task id -> its pattern, as stored (_calibrate)

    # -- workers ----------------------------------------------------------------------------
    def _worker(self, task: Task, process: int = 0) -> WorkerHandle:
        c = task.case
        key = worker_key(c.group_key, process)
        handle, new = self.pool.get(key, c.process, c.settings, keep=self.keys)
        if key in self.dead:
            self.pool.discard(key)
            raise WorkerGone("eof", self.dead[key], None)
        eid: str | None                      # the env id of the group's worker, once known
        if new:
            try:
                msg = handle.ready()
            except WorkerGone as gone:
                # TensorFlow failed to import, for instance: every case of the group fails
                # with the same error, without starting a worker for each.
                self.dead[key] = f"worker failed before the case started ({gone.reason}):\n{gone.tail}"
                raise
            env = msg["env"]
            eid = env_id(env)
            self.envs[key] = eid
            self.out.environments[eid] = env
        elif key not in self.envs:
            known = handle.env
            eid = env_id(known) if known else None
            self.envs[key] = eid
            if eid and known:
                self.out.environments[eid] = known
        return handle

    def _ask(self, task: Task, cmd: Command, timeout_s: float, retry: bool = True, process: int = 0) -> Answer:
        """One command to the task's worker (its group's process ``process``); on WorkerGone
        that worker is discarded and the exception goes on to the caller. A worker found
        dead before the command was sent (it exited while idle, e.g. in a teardown) blames
        no case: a new worker takes over its prepared cases and the command is sent again."""
        key = worker_key(task.case.group_key, process)
        try:
            handle = self._worker(task, process)
            return handle.request(cmd, timeout_s)
        except WorkerGone as gone:
            self.pool.discard(key)
            self.envs.pop(key, None)
            if gone.reason != "exited" or not retry:
                raise
            self.log(f"\nthe worker of {task.case.settings_id} had exited while idle (exit code "
                     f"{gone.returncode}): a new one takes over")
            if cmd["cmd"] == "release":
                return {"type": "released", "id": task.id}
            if cmd["cmd"] != "prepare":
                self._reprepare(task.case.group_key, process)
                if task.id not in self.prepared:
                    raise
            return self._ask(task, cmd, timeout_s, retry=False, process=process)

    def _fail(self, task: Task, status: Status, error: str) -> None:
        self.failed[task.id] = records.failure(status, error)
        self.prepared.pop(task.id, None)
        self.on_progress(task.id, True)

    def _gone(self, task: Task, gone: WorkerGone, what: str, process: int = 0) -> None:
        why = {"timeout": f"no answer within the case timeout of {task.case.timeout_s:g} s",
               "memory": f"worker exceeded the memory limit of {self.pool.memory_limit_mb} MB",
               "eof": f"worker exited abruptly (exit code {gone.returncode})",
               "exited": f"worker exited twice between commands (exit code {gone.returncode})"}[gone.reason]
        self._fail(task, _WHY[gone.reason], f"{why} ({what})\n{gone.tail}")
        self._reprepare(task.case.group_key, process)

    # -- preparing --------------------------------------------------------------------------
    def _prepare(self, task: Task, again: bool = False, process: int = 0) -> None:
        """The task set up in its group's worker ``process``, with what its output check
        needs (:meth:`OutputReference.check`): prepared, or failed with its worker's status.
        ``again``: in a new worker after the first died, its first prepare result kept; so
        is the first process's in every other process. A case that fails in any of its
        processes fails."""
        self.on_progress(task.id, False)
        payload: CaseTask = {**task.worker_payload(), **self.outputs.check(task, process)}
        try:
            msg = self._ask(task, {"cmd": "prepare", "task": payload}, task.case.timeout_s, process=process)
        except WorkerGone as gone:
            key = worker_key(task.case.group_key, process)
            if key in self.dead:
                self._fail(task, "crashed", self.dead[key])
            else:
                self._gone(task, gone, "while preparing", process)
            return
        result = msg["result"] if "type" in msg and msg["type"] == "prepared" else \
            records.failure("error", str(msg.get("error")))
        if process == 0:
            self.outputs.after_prepare(task, result["status"])
        if result["status"] == "ok" and process > 0:
            result = self._same_output(task, result, process)
        if result["status"] != "ok":
            self._fail(task, result["status"], str(result["error"]))
            self.failed[task.id] = result
            return
        if not again and process == 0:
            self.prepared[task.id] = result

    def _same_output(self, task: Task, result: WorkerResult, process: int) -> WorkerResult:
        """A later process's preparation of ``task``: an error when its first output is
        outside the tolerance of the reference's saved one while the first process's was
        within it (the same code must not turn wrong in another process), else as it came."""
        before = self.prepared.get(task.id)
        first, output = before["output"] if before else None, result.get("output")
        if first and output and first.get("within_tolerance") is True and output.get("within_tolerance") is False:
            why = output.get("note") or f"max abs diff {output.get('max_abs_diff')}"
            return records.failure("error", f"worker process {process + 1} of {task.case.settings_id}: its first "
                                            f"output is outside the tolerance where the first process's was within: {why}")
        return result

    def _reprepare(self, group: str, process: int = 0) -> None:
        """After its worker died, prepare the group's live cases again in a new worker
        (their first-call figures stay those of the first preparation)."""
        for t in self.tasks:
            if t.case.group_key == group and t.id in self.prepared:
                self._prepare(t, again=True, process=process)

    # -- the rounds ---------------------------------------------------------------------------
    def slots(self) -> list[Slot]:
        """The slots that take a block in a round: every prepared case, and the baseline's
        second block (its A/A pair) while the baseline is prepared."""
        out = [Slot(t.case.group_key, t.id) for t in self.tasks if t.id in self.prepared]
        if self.baseline.id in self.prepared:
            out.append(Slot(self.baseline.case.group_key, self.baseline.id, aa=True))
        return out

    def run(self) -> Outcome:
        """The scenario measured: its records, with the output reference's file in a
        temporary folder that lasts as long as the scenario."""
        with tempfile.TemporaryDirectory(prefix="tfperf-ref-") as tmp:
            self.outputs.file = Path(tmp) / "baseline-output.npz"
            return self._run()

    def _run(self) -> Outcome:
        before = records.snapshot(self.pool.pids())
        t0 = time.monotonic()
        for process in range(self.processes):
            for task in preparing_order(self.tasks, self.baseline):
                if task.id not in self.failed and (process == 0 or task.id in self.prepared):
                    self._prepare(task, process=process)
        by_id = {t.id: t for t in self.tasks}
        self._calibrate(by_id)
        self._scale_budget()
        rounds, stopped_by, seconds_rounds = self._rounds(by_id)
        self._release()
        self._collect(rounds, stopped_by)
        self._breakdowns()
        after = records.snapshot(self.pool.pids())
        self._scenario_record(rounds, stopped_by, before, after, time.monotonic() - t0, seconds_rounds)
        return self.out

    def _rounds(self, by_id: dict[str, Task]) -> tuple[Rounds, ScenarioStoppedBy, float]:
        """The interleaved rounds, until the rule says stop or no case is left: each round
        a block of every slot the rule has not settled, in the round's seeded order (sent ``warm`` when the
        block before ran in another process); a case that fails leaves the
        rounds. Returns the rounds, why they stopped and how many seconds they took."""
        rounds = Rounds(baseline=self.baseline.id, processes=self.processes)
        stopped_by: ScenarioStoppedBy = "no_rounds"
        t_rounds = time.monotonic()
        settled: set[str] = set()
        last_key: str | None = None                # the worker that took the last block
        while self.slots():
            index = rounds.count
            rounds.count += 1
            todo = [s for s in self.slots() if s.name not in settled]
            for slot in round_order(todo, self.seed, index):
                task = by_id[slot.task]
                if task.id not in self.prepared:
                    continue                          # failed earlier in this round
                process = process_of(slot, index, self.processes)
                key = worker_key(slot.group, process)
                warm, last_key = key != last_key, key
                msg = self._block(task, self._sample_command(task, warm, index), f"in round {index + 1}", process)
                if msg is None:
                    self._drop(rounds, task)
                else:
                    self._add(rounds, index, slot.name, msg)
            why = self.rule.stop(rounds, time.monotonic() - t_rounds)
            if why:
                stopped_by = why
                break
            settled = self.rule.settled(rounds, time.monotonic() - t_rounds)
        return rounds, stopped_by, time.monotonic() - t_rounds

    def _release(self) -> None:
        """Every prepared case released in its workers; a worker gone by then fails no case."""
        for task in self.tasks:
            for process in range(self.processes):
                if task.id in self.prepared:
                    try:
                        self._ask(task, {"cmd": "release", "id": task.id}, 60.0, process=process)
                    except WorkerGone:
                        pass

    def _block(self, task: Task, cmd: SampleCommand, where: str, process: int = 0) -> Sampled | None:
        """One sample command to the task's worker ``process`` and its answer; None when the
        case failed there (it is then failed, and its worker started again if it died)."""
        try:
            msg = self._ask(task, cmd, task.case.timeout_s, process=process)
        except WorkerGone as gone:
            self._gone(task, gone, where, process)
            return None
        if "type" in msg and msg["type"] == "sample":
            return msg
        self._fail(task, "error", str(msg.get("error")))
        return None

    def _calibrate(self, by_id: dict[str, Task]) -> None:
        """Under a per-request pattern, each case's back-to-back time per call (the
        throughput a Poisson rate is a fraction of): the median of ``CALIBRATION_ROUNDS``
        back-to-back blocks, in interleaved rounds as the measurement's own, so that a
        drift of the machine's speed moves every case's rate alike (timed apart, in the
        run that showed it, two cases' times varied by up to 3x from one to the next)."""
        if not self.arrival.per_request:
            return
        times: dict[str, list[float]] = {}
        last_group: str | None = None
        for index in range(CALIBRATION_ROUNDS):
            for slot in round_order([s for s in self.slots() if not s.aa], f"{self.seed}/calibration", index):
                task = by_id[slot.task]
                if task.id not in self.prepared:
                    continue
                warm, last_group = slot.group != last_group, slot.group
                cmd: SampleCommand = {"cmd": "sample", "id": task.id, "warm": warm, "back_to_back": True}
                msg = self._block(task, cmd, f"in calibration round {index + 1}")
                if msg is not None:
                    times.setdefault(task.id, []).append(float(msg["seconds"]))
        for task_id, got in times.items():
            if task_id in self.prepared:
                record: ArrivalRecord = {**self.arrival.record(), "service_s": stats.median(got)}
                if self.arrival.pattern is Pattern.POISSON:
                    record["rate_per_s"] = self.arrival.rate / record["service_s"]
                self.arrival_records[task_id] = record

    def _sample_command(self, task: Task, warm: bool, index: int) -> SampleCommand:
        """One block of round ``index``: back to back, or a block of requests; a Poisson
        block with its arrival times, the round's draws at this case's own rate."""
        cmd: SampleCommand = {"cmd": "sample", "id": task.id, "warm": warm}
        record = self.arrival_records.get(task.id)
        if self.arrival.pattern is Pattern.POISSON and record is not None:
            cmd["schedule"] = schedule(self.seed, index, self.arrival.block, mean_gap(record))
        return cmd

    @staticmethod
    def _add(rounds: Rounds, index: int, slot: str, msg: Sampled) -> None:
        """A block's answer into the rounds: its seconds per call; under a per-request
        pattern its latencies as stored (``LATENCY_DIGITS``) and their median."""
        got = msg.get("latencies")
        if got is None:
            rounds.add(index, slot, float(msg["seconds"]))
            return
        latencies = [float(f"{x:.{LATENCY_DIGITS}g}") for x in got]
        rounds.add(index, slot, stats.median(latencies), latencies)

    def _scale_budget(self) -> None:
        """The plan gave ``budget_s`` per planned slot; a case that failed or is not
        available in this TensorFlow takes no rounds, so its share goes too (else a
        TensorFlow without Keras 3, where half the cases are unavailable, would give the
        other half twice their time). Under a per-request pattern a block lasts as long as
        its requests and their gaps, not ``min_sample_s``: the budget is at least
        ``min_rounds`` rounds of the blocks the prepared cases make (their back-to-back
        time per call and the pattern's gap or rate), the A/A block included."""
        planned = len(self.tasks) + 1
        live = len(self.slots())
        if 0 < live < planned:
            self.rule = replace(self.rule, budget_s=self.rule.budget_s * live / planned)
        if self.arrival.per_request:
            blocks = [block_seconds(record) for slot in self.slots()
                      if (record := self.arrival_records.get(slot.task)) is not None]
            self.rule = replace(self.rule, budget_s=max(self.rule.budget_s, self.rule.min_rounds * sum(blocks)))

    def _drop(self, rounds: Rounds, task: Task) -> None:
        rounds.drop(task.id)
        if task.id == self.baseline.id:
            rounds.drop(task.id + AA_SUFFIX)

    # -- records ------------------------------------------------------------------------------
    def _collect(self, rounds: Rounds, stopped_by: ScenarioStoppedBy) -> None:
        """Every task's result record into the outcome, and the A/A pair's noise record."""
        for task in self.tasks:
            env = self.envs.get(task.case.group_key)
            worker, timing = self._result(task, rounds, stopped_by)
            interleave = records.interleave_record(self.id, self.baseline, self.seed, self.outputs.task,
                                                   self.processes)
            arrival = None
            if self.arrival.per_request:      # failed too: its case id names the pattern
                arrival = self.arrival_records.get(task.id) or self.arrival.record()
            self.out.results.append(records.result_record(task, worker, timing, env, interleave, arrival))
        aa = rounds.ratio(self.baseline.id, self.baseline.id + AA_SUFFIX)
        if aa is not None:
            env = self.envs.get(self.baseline.case.group_key)
            self.out.noise.append(records.noise_record(rounds, aa, self.baseline, env, self.id, self.arrival))

    def _result(self, task: Task, rounds: Rounds,
                stopped_by: ScenarioStoppedBy) -> tuple[WorkerResult, TimingRecord | None]:
        """What the task's worker gave and its timing taken from the rounds (the case is then
        finished); its failure and no timing when it failed, or when the rounds took no
        sample of it."""
        if task.id in self.failed:
            return self.failed[task.id], None
        timing = records.timed(self.prepared[task.id], rounds, task.id, stopped_by)
        if timing is None:
            return records.failure("error", "no sample was taken (the scenario ended before its first round)"), None
        self.on_progress(task.id, True)
        return self.prepared[task.id], timing

    def _breakdowns(self) -> None:
        """Each breakdown task sampled in its worker, its record into the outcome; one that
        fails is logged and left out, and one whose case is not in this TensorFlow skipped."""
        for task in self.breakdowns:
            failed = self.failed.get(task.case.case_id)
            if failed is not None and failed.get("status") == "unavailable":
                self.on_progress(task.id, True)       # not in this TensorFlow: nothing to break down
                continue
            self.on_progress(task.id, False)
            try:
                bd_task = task.breakdown_payload()
                msg = self._ask(task, {"cmd": "breakdown", "task": bd_task}, task.case.timeout_s)
            except WorkerGone as gone:
                self.log(f"\nbreakdown {task.id} failed: worker {gone.reason}")
                continue
            finally:
                self.on_progress(task.id, True)
            if "type" in msg and msg["type"] == "breakdown":
                self.out.breakdowns.append(records.breakdown_record(
                    task, self.envs.get(task.case.group_key), msg["breakdown"]))
            else:
                self.log(f"\nbreakdown {task.id} failed: {msg.get('error')}")

    def _scenario_record(self, rounds: Rounds, stopped_by: ScenarioStoppedBy, before: records.Snapshot, after: records.Snapshot,
                         seconds: float, seconds_rounds: float) -> None:
        """The scenario record into the outcome, with a warning on stderr when other
        processes kept the machine busy while it was measured."""
        cores = envinfo.cores()
        others = records.others_share(before, after, cores)
        scenario = records.scenario_record(
            self.id, self.baseline, self.tasks, rounds, stopped_by, seed=self.seed, arrival=self.arrival,
            workers=len(self.keys), tighten=self.rule.tighten, seconds=seconds, seconds_rounds=seconds_rounds,
            budget_s=self.rule.budget_s, budget_scale=self.baseline.case.budget.scale, before=before, after=after, others=others)
        if scenario["loaded"]:
            c = self.baseline.case
            self.log(f"\nwarning: {c.topic}/{c.scenario_id} was measured while other processes kept "
                     f"{others:.0%} of the machine's {cores} cores busy")
        self.out.scenarios.append(scenario)
