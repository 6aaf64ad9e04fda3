"""The parent side of ``tfperf run``: plan the scenarios, skip what is already measured,
measure each scenario side by side in interleaved rounds (one live worker per settings
group, see ``tfperf.measure.supervise.scenario``), turn crashes into failure records, and append
each scenario's records to the results file as soon as it ends (an interrupted run keeps
every scenario it finished), with a one-line progress bar on stderr.

Two ``tfperf run`` processes may write one results file (two terminals, or two topics run
at once). What a run finds already stored there (:class:`Stored`) is read when it plans
and again each time it is about to measure a scenario: each run claims a scenario before
measuring it (:class:`tfperf.store.Claims`), leaves it to the other run while that one
holds it, and then reads the file again, so cases the other run stored meanwhile are not
measured a second time. Without that second look, the later run would measure them again
and then either be refused by the store or store every result twice.

Never imports TensorFlow: versions for the result keys come from package metadata.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from ... import HARNESS_VERSION, stats, store
from ...cases import Case, CategoryRule, Topic, control_applies, discover, expand, shard, where_holds
from ...errors import ResultsFileError, ResultsWriteError, TfperfError
from ...hardware import cpu_identity
from ...store import Claims, ResultExists
from ...store.record_types import Environment, Key, Noise, key_hash, settings_id
from ...store.record_types import Scenario as ScenarioRecord
from ...store.result import ResultRecord, parse_time
from .. import envinfo
from ..worker.protocol import CaseFields, Sampling
from .pool import Pool, default_max_live
from .records import Task
from .rounds import RoundRule
from .scenario import Outcome, ScenarioRun, worker_keys

# Where the time of a "<module path>(function)" goes, for predict()-style breakdowns;
# a topic may give its own list under `breakdown_categories`.
DEFAULT_CATEGORIES: list[CategoryRule] = [
    # In priority order: a sampled stack goes to the first category matching any of its frames.
    {"name": "tracing functions (tf.function / tf.data map)", "match": ["func_graph.py", "tracing_compilation.py:144", "autograph"]},
    {"name": "building the tf.data input pipeline", "match": ["get_tf_dataset", "data_adapter", "dataset_ops.py"]},
    {"name": "creating and iterating the dataset iterator", "match": ["iterator_ops.py", "epoch_iterator", "_enumerate_iterator"]},
    {"name": "callbacks and progress bar", "match": ["callbacks", "progbar"]},
    {"name": "running the compiled step (graph execution)", "match": ["_call_flat", "concrete_function.py", "atomic_function.py", "polymorphic_function.py", "tensorflow/python/eager/function.py"]},
    {"name": "eager layer calls", "match": ["keras/src/layers", "keras/src/ops", "keras/src/backend", "tf_keras/src/layers", "base_layer", "functional.py"]},
    {"name": "output conversion to numpy", "match": ["numpy", "concatenate", "nest"]},
]


# -- what the results file already holds -----------------------------------------------------


Ident = tuple[str, str]          # (case_id, key_hash): one case measured with one key


@dataclass(frozen=True)
class Stored:
    """What a results file held when it was read."""

    done: frozenset[Ident] = frozenset()       # needs no new measurement (per --force/--retry-failed)
    seen: frozenset[Ident] = frozenset()       # has a result of any status
    breakdowns: frozenset[str] = field(default_factory=frozenset)   # key hashes (empty with --force)
    cpus: frozenset[str] = frozenset()         # the CPUs its environments name (hardware.cpu_identity)


def read_stored(path: Path, force: bool = False, retry_failed: bool = False,
                force_before: datetime | None = None) -> Stored:
    """The file's results as the run sees them: with ``force`` nothing counts as done, or,
    with ``force_before`` too, only what finished at or after that time (what the forced
    run being resumed stored already); with ``retry_failed`` only ok results do; otherwise
    every result does (a failure is data). A path that is there but is not a regular file
    (a link, a folder) is refused by the store, naming it, before anything is measured."""
    if not os.path.lexists(path):
        return Stored()
    doc = store.load(path)
    results = doc["results"]
    seen = frozenset((r["case_id"], r["key_hash"]) for r in results)
    cpus = frozenset(cpu_identity(dict(e)) for e in doc["environments"].values())
    if force:
        since = frozenset((r["case_id"], r["key_hash"]) for r in results if force_before is not None
                          and parse_time(r["finished_at"]) >= force_before
                          and (r["status"] == "ok" or not retry_failed))
        return Stored(done=since, seen=seen, cpus=cpus)
    done = frozenset((r["case_id"], r["key_hash"]) for r in results if r["status"] == "ok" or not retry_failed)
    return Stored(done=done, seen=seen, breakdowns=frozenset(b["key_hash"] for b in doc["breakdowns"]), cpus=cpus)


def check_cpu(path: Path, label: str, stored: Stored, here: str) -> None:
    """Refuse, before anything is measured, to add this machine's results to a file whose
    runner is another CPU: a runner label names one CPU, and its figures would otherwise
    compare two processors as if they were one."""
    other = sorted(stored.cpus - {here})
    if other:
        raise ResultsFileError(str(path), "environments",
                               f"runner {label!r} was measured on {other[0]}; this machine is {here}: two CPUs "
                               "cannot share one runner label, nothing was measured. Leave out --runner (the "
                               "default label names the CPU) or add {cpu} to it")


def idents(task: Task) -> set[Ident]:
    """What a stored result of the task looks like: its case id and key hash; and, for a
    result stored before keys had a ``source_hash``, the key hash it had then, without one.
    Such a result counts as the task's when its ``snippet_hash`` (the whole file) still
    matches: exactly the rule it was stored under, as the analysis stales it (select.py)."""
    out = {(task.id, key_hash(task.key))}
    if "source_hash" in task.key:
        out.add((task.id, key_hash({k: v for k, v in task.key.items() if k != "source_hash"})))
    return out


def missing(tasks: list[Task], now: Stored, planned: Stored | None = None) -> list[Task]:
    """The tasks that still need measuring: not done now, and (when ``planned`` is what the
    run saw when it planned) not stored by someone else since, whatever ``--force`` says:
    forcing re-measures what was there before the run, not what another run just added."""
    since = now.seen - planned.seen if planned is not None else frozenset()
    known = now.done | since
    return [t for t in tasks if not idents(t) & known]


def breakdowns_left(breakdowns: list[Task], now: Stored) -> list[Task]:
    return [b for b in breakdowns if not {h for _, h in idents(b)} & now.breakdowns]


# -- the plan --------------------------------------------------------------------------------


@dataclass
class RunOptions:
    profile: str = "quick"
    topics: list[str] | None = None
    runner: str = field(default_factory=envinfo.default_runner_label)
    data_root: Path = Path("data")
    snippets_dir: Path = Path("snippets")
    force: bool = False
    force_before: datetime | None = None   # with force: what finished since counts as done (a resumed --force)
    retry_failed: bool = False
    shard: tuple[int, int] | None = None
    progress: bool = True
    memory_limit_mb: int | None = None
    python: str = sys.executable
    package_path: list[str] | None = None   # the workers' site-packages when not this interpreter's (--tf)
    description: str | None = None      # provenance stored in the results file's runner record
    contributed_by: str | None = None
    max_workers: int | None = None      # live workers at once (default: as many as fit in memory)
    budget_scale: float = 1.0           # every case's budget_s times this (:func:`scaled_budget`)


@dataclass
class ScenarioPlan:
    """One topic, parameter combination and arrival pattern: its cases in every settings
    group, measured in one interleave (or, when more groups than ``max_workers``, in
    several, each with the baseline's group)."""

    id: str                       # "<topic>/<params_id>", "<topic>/<params_id>@<arrival id>"
    tasks: list[Task]
    baseline: Task
    rule: RoundRule
    breakdowns: list[Task] = field(default_factory=list)
    remeasure: bool = False       # some of its cases were stored already (kept as history)


@dataclass
class Plan:
    scenarios: list[ScenarioPlan]
    skipped: int
    total_cases: int
    stored: Stored = field(default_factory=Stored)   # what the results file held when planned

    @property
    def n_tasks(self) -> int:
        return sum(len(s.tasks) + len(s.breakdowns) for s in self.scenarios)


@dataclass
class Report:
    ran: int = 0
    skipped: int = 0
    meanwhile: int = 0            # of the skipped: stored by another run while this one ran
    failed: int = 0
    unavailable: int = 0          # cases that cannot exist in the workers' TensorFlow (not failures)
    noise: list[Noise] = field(default_factory=list)
    scenarios: list[ScenarioRecord] = field(default_factory=list)
    path: Path | None = None
    signum: int | None = None     # the signal that interrupted the run
    seconds: float = 0.0

    @property
    def interrupted(self) -> bool:
        return self.signum is not None

    @property
    def exit_status(self) -> int:
        """0, or what a shell reports for a process ended by the signal: 128 + its number
        (130 for SIGINT, 143 for SIGTERM), so a CI system or a supervisor that sent
        SIGTERM sees that the run stopped because it was told to."""
        return 128 + self.signum if self.signum is not None else 0


def not_stored(exc: ResultsFileError, scenario: str, results: int) -> ResultsFileError:
    """The one-line error of a scenario measured but not stored: the file's error, and what
    was kept. A write error stays one (the CLI tells a full disk apart); any other, a schema
    error among them (its constructor takes a list of problems), is a ResultsFileError."""
    cls = ResultsWriteError if isinstance(exc, ResultsWriteError) else ResultsFileError
    return cls(exc.path, exc.field, f"{exc.problem}; {scenario} was measured but not stored ({results} result(s)); "
                                    "the scenarios stored before it are kept, and `tfperf run` again resumes from there")

class BreakdownKey(Key):
    """A breakdown's key: its case's, and the number of calls sampled."""

    breakdown_calls: int


def result_key(case: Case, versions: dict[str, str | None], runner: str) -> Key:
    return {
        "snippet_hash": case.snippet_hash,
        "source_hash": case.source_hash,
        "harness_version": HARNESS_VERSION,
        "tensorflow": versions["tensorflow"],
        "keras": envinfo.keras_version_for(case.settings, versions),
        "settings": {"declared": case.settings, "process": case.process},
        "runner": runner,
    }


def _case_payload(case: Case, ref: Case | None) -> CaseFields:
    b = case.budget
    return {
        "case_id": case.case_id, "snippet": case.snippet, "fn": case.fn, "setup": case.setup,
        "params": case.params,
        "budget": {"min_samples": b.min_samples, "max_samples": b.max_samples, "target_rel_ci": b.target_rel_ci,
                   "budget_s": b.budget_s, "warmup_s": b.warmup_s, "min_sample_s": b.min_sample_s},
        "tolerance": {"rtol": case.tolerance["rtol"], "atol": case.tolerance["atol"]},    # both always (cases.topic)
        "is_reference": case.is_reference, "slot": f"{case.topic}|{case.params_id}|{case.settings_id}",
        "reference_fn": ref.fn if ref else case.fn, "reference_setup": ref.setup if ref else case.setup,
        "reference_id": ref.case_id if ref else None,
    }


def _has(settings: dict[str, str], want: Mapping[str, object]) -> bool:
    return all(str(settings.get(k)) == str(v) for k, v in want.items())


def _matches(case: Case, where: Mapping[str, object] | None) -> bool:
    return where_holds(where, case.params, case.settings)


def baseline_task(topic: Topic, tasks: list[Task]) -> Task:
    """The task every speedup of the scenario is paired with: the reference variant in
    the topic's ``baseline_settings`` group (else the first settings group)."""
    want = {str(k): str(v) for k, v in topic.baseline_settings.items()}
    groups = [t for t in tasks if _has(t.case.settings, want)] or tasks
    first = groups[0].case.settings
    same = [t for t in groups if t.case.settings == first]
    return next((t for t in same if t.case.is_reference), same[0])


def claim_pairs(topic: Topic, tasks: list[Task]) -> tuple[tuple[str, str], ...]:
    """(candidate, baseline) task ids of the topic's claims in this scenario: the rounds go on
    while one of them is inconclusive and budget remains."""
    pairs: list[tuple[str, str]] = []
    index = {(t.case.variant, t.case.settings_id): t for t in tasks}
    for claim in topic.claims:
        for t in tasks:
            if t.case.variant == str(claim.get("candidate")) and _matches(t.case, claim.get("where")):
                s = index.get((str(claim.get("baseline")), t.case.settings_id))
                if s is not None:
                    pairs.append((t.id, s.id))
    for claim in topic.settings_claims:
        fs = {str(k): str(v) for k, v in (claim.get("candidate_settings") or {}).items()}
        ss = {str(k): str(v) for k, v in (claim.get("baseline_settings") or {}).items()}
        for t in tasks:
            c = t.case
            if c.variant != str(claim.get("candidate")) or not _has(c.settings, fs) or not _matches(c, claim.get("where")):
                continue
            other = {**{k: v for k, v in c.settings.items() if k not in set(fs) | set(ss)}, **ss}
            sid = settings_id(other)
            s = index.get((str(claim.get("baseline")), sid))
            if s is not None and s.id != t.id:
                pairs.append((t.id, s.id))
    return tuple(pairs)


def control_pairs(topic: Topic, tasks: list[Task], cores: int | None) -> tuple[tuple[str, str], ...]:
    """(measured, same_as) task ids of the topic's negative controls in this scenario (see
    analyse/judge/controls.py, which judges them): the two slots run in different processes and
    are compared with each other, so the rounds tighten their own ratio too. ``{cores}``
    in a control's settings is this machine's core count (no pair when it is unknown)."""
    pairs: list[tuple[str, str]] = []
    index = {(t.case.variant, t.case.settings_id): t for t in tasks}
    for control in topic.controls:
        want = {str(k): str(v) for k, v in (control.get("settings") or {}).items()}
        if any("{cores}" in v for v in want.values()):
            if cores is None:
                continue
            want = {k: v.replace("{cores}", str(cores)) for k, v in want.items()}
        same_as = {str(k): str(v) for k, v in (control.get("same_as") or {}).items()}
        for t in tasks:
            c = t.case
            if c.variant != str(control.get("variant")) or not _has(c.settings, want) \
                    or not control_applies(control, c.params):
                continue
            other = index.get((c.variant, settings_id({**c.settings, **same_as})))
            if other is not None and other.id != t.id and (t.id, other.id) not in pairs:
                pairs.append((t.id, other.id))
    return tuple(pairs)


def default_pairs(topic: Topic, tasks: list[Task]) -> tuple[tuple[str, str], ...]:
    """(default, other) task ids in each settings group, when the topic's default variant
    (what the recommendation tables compare with) is not its reference (the baseline)."""
    default = topic.default
    if default == topic.reference:
        return ()
    defaults = {t.case.settings_id: t for t in tasks if t.case.variant == default}
    return tuple((d.id, t.id) for t in tasks
                 if (d := defaults.get(t.case.settings_id)) is not None and d.id != t.id)


def published_pairs(topic: Topic, tasks: list[Task], cores: int | None) -> tuple[tuple[str, str], ...]:
    """Every ratio between two non-baseline slots that the pages publish: the claims, the
    recommendation tables' comparisons with the default, and the controls. The rounds
    tighten them like the speedups over the baseline (a ratio of two slots that are each
    within 2% of the baseline can be 3% wide: in the last run, claims and recommendations
    had median half-widths of 3.0-3.6% in three topics)."""
    out: list[tuple[str, str]] = []
    for pair in (*claim_pairs(topic, tasks), *default_pairs(topic, tasks), *control_pairs(topic, tasks, cores)):
        if pair not in out and pair[::-1] not in out:
            out.append(pair)
    return tuple(out)


def scaled_budget(case: Case, scale: float) -> Case:
    """``case`` with ``scale`` times its profile's time budget (``budget_s``: the rounds'
    main budget, and with it the extension and the noise-floor phase, which are multiples
    of it) and times its cap of rounds (``max_samples``). For a runner whose rounds are
    noisier than the one the budgets were set on: on an AMD EPYC (Zen 4) the A/A pairs'
    intervals were 1.5x as wide as on the Xeon at the same number of rounds (2.9% against
    1.9%), so the same budget left the published intervals wider (3.8% against 2.6%).
    What narrows an interval is rounds, so the cap scales with the seconds: with the
    seconds alone, on an AMD EPYC (Zen 3) at four times the budget, 8 of mixed_precision's
    9 scenarios stopped at the profile's 200 rounds (3 of 9 at twice the budget), and the
    published intervals' median half-width stayed at 3.0%, as at twice the budget. Each
    scenario record keeps its rounds' budget and the scale, each result its case's budget;
    a budget is not part of a result's key, as it changes how precisely, not what, is
    measured."""
    if scale == 1.0:
        return case
    b = case.budget
    cap = max(b.min_samples, round(b.max_samples * scale))
    return replace(case, budget=replace(b, budget_s=b.budget_s * scale, max_samples=cap, scale=scale))


def round_rule(case: Case, n_slots: int, decide: tuple[tuple[str, str], ...],
               tighten: tuple[tuple[str, str], ...] = ()) -> RoundRule:
    """The profile's budget read per round: ``min_samples``/``max_samples`` rounds, the
    CI target for every speedup, and ``budget_s`` per slot (what each case had alone)."""
    b = case.budget
    return RoundRule(min_rounds=b.min_samples, max_rounds=b.max_samples, target_rel_ci=b.target_rel_ci,
                     budget_s=b.budget_s * n_slots, decide=decide, tighten=tighten, min_effect=stats.MIN_EFFECT,
                     processes=b.processes)


def plan(options: RunOptions, topics: list[Topic] | None = None) -> Plan:
    topics = topics if topics is not None else discover(options.snippets_dir)
    if options.topics:
        known = {t.name for t in topics}
        unknown = [t for t in options.topics if t not in known]
        if unknown:
            raise TfperfError(f"unknown topic(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        topics = [t for t in topics if t.name in options.topics]
    versions = envinfo.package_versions(options.package_path)   # the workers' packages: the keys' versions
    path = store.results_path(options.data_root, options.runner, options.profile)
    stored = read_stored(path, options.force, options.retry_failed, options.force_before)
    check_cpu(path, options.runner, stored, envinfo.this_cpu())
    out: list[ScenarioPlan] = []
    skipped = total = 0
    for topic in topics:
        if options.profile not in topic.profiles:
            continue
        cases = [scaled_budget(c, options.budget_scale) for c in expand(topic, options.profile)]
        if options.shard:
            cases = shard(cases, *options.shard)
        refs = {(c.scenario_id, c.settings_id): c for c in cases if c.is_reference}
        by_params: dict[str, list[Task]] = {}
        for c in cases:
            key = result_key(c, versions, options.runner)
            by_params.setdefault(c.scenario_id, []).append(
                Task(c.case_id, "case", c, key, _case_payload(c, refs.get((c.scenario_id, c.settings_id)))))
        for sid, tasks in by_params.items():
            total += len(tasks)
            todo = missing(tasks, stored)
            if not todo:
                skipped += len(tasks)
                continue
            base = baseline_task(topic, tasks)
            n_slots = len(tasks) + 1
            out.append(ScenarioPlan(f"{topic.name}/{sid}", tasks, base,
                                    round_rule(base.case, n_slots, claim_pairs(topic, tasks),
                                               published_pairs(topic, tasks, envinfo.cores())),
                                    _breakdowns(topic, options, tasks, versions, stored),
                                    remeasure=len(todo) < len(tasks)))
    return Plan(out, skipped, total, stored)


def _breakdowns(topic: Topic, options: RunOptions, tasks: list[Task], versions: dict[str, str | None],
                stored: Stored) -> list[Task]:
    out = []
    for bd in topic.breakdowns:
        if options.profile not in bd.get("profiles", ["quick", "full"]):
            continue
        for t in tasks:
            c = t.case
            if c.arrival.per_request:
                continue                              # a breakdown samples back-to-back calls
            if c.variant == bd["variant"] and all(str(c.params.get(k)) == str(v) for k, v in bd.get("params", {}).items()) \
                    and all(c.settings.get(k) == str(v) for k, v in bd.get("settings", {}).items()):
                key: BreakdownKey = {**result_key(c, versions, options.runner), "breakdown_calls": bd.get("calls", 50)}
                sampling: Sampling = {"calls": int(bd.get("calls", 50)),
                                      "categories": topic.breakdown_categories or DEFAULT_CATEGORIES}
                out.append(Task(c.case_id + "#breakdown", "breakdown", c, key, _case_payload(c, None), sampling))
    return breakdowns_left(out, stored)


def fitting_processes(sc: ScenarioPlan, max_workers: int) -> int:
    """How many worker processes per settings group the scenario runs in: its rule's, or
    fewer (at least one) when that many do not fit in ``max_workers`` together. Speedups
    between groups of two interleaves would be unpaired (:func:`split`), which costs more
    than the second process gains."""
    groups = len({t.case.group_key for t in sc.tasks})
    wanted = max(1, sc.rule.processes)
    return wanted if groups * wanted <= max_workers else max(1, min(wanted, max_workers // max(groups, 1)))


def split(sc: ScenarioPlan, max_workers: int) -> list[list[Task]]:
    """The scenario's tasks in interleaves of at most ``max_workers`` settings groups, each
    with the baseline's group (so every speedup over the baseline stays paired). One
    interleave unless the groups do not fit in memory together."""
    groups: dict[str, list[Task]] = {}
    for t in sc.tasks:
        groups.setdefault(t.case.group_key, []).append(t)
    base = sc.baseline.case.group_key
    others = [g for g in groups if g != base]
    if len(groups) <= max_workers:
        return [sc.tasks]
    per = max(1, max_workers - 1)
    return [groups[base] + [t for g in others[i:i + per] for t in groups[g]] for i in range(0, len(others), per)]


# -- the run ---------------------------------------------------------------------------------


def _clock(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 60:d}:{seconds % 60:02d}"


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.t0 = time.monotonic()
        self._last_line = 0.0

    def eta(self) -> float | None:
        if self.done == 0:
            return None
        return (time.monotonic() - self.t0) / self.done * (self.total - self.done)

    def update(self, name: str, finished: bool = False) -> None:
        if finished:
            self.done += 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.t0
        eta = self.eta()
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"{_clock(elapsed)} elapsed, {'?' if eta is None else _clock(eta)} left  {name}")
        if self.tty:
            cols = 120
            self.stream.write("\r" + line[:cols].ljust(cols))
        elif finished or time.monotonic() - self._last_line > 10:
            self.stream.write(line + "\n")
            self._last_line = time.monotonic()
        self.stream.flush()

    def advance(self, name: str, count: int) -> None:
        """Count ``count`` tasks as done without running them (another run stored them)."""
        self.done += max(count - 1, 0)
        self.update(name, finished=count > 0)

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


class _Interrupted(BaseException):
    """SIGINT or SIGTERM, raised where the main thread is. A BaseException, as
    KeyboardInterrupt is: code that turns any Exception into a one-line error (reading a
    results file, say) must let it through, or Ctrl-C would end the run as a bad file."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Runner:
    """Runs a plan's scenarios; each scenario's records are appended to ``path`` when it ends.

    Each scenario is claimed before it is measured. One that another run holds is left for
    later, and the scenarios free now go first; at the end the run waits for each one left
    (saying so), then measures only what the other run did not store meanwhile."""

    def __init__(self, options: RunOptions, path: Path, progress: Progress,
                 log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> None:
        self.options, self.path, self.progress, self.log = options, path, progress, log
        self.report = Report(path=path)
        max_live = options.max_workers or default_max_live()
        self.pool = Pool(options.python, options.runner, options.memory_limit_mb, max_live)
        self._stop = False

    # -- signals: finish cleanly, keeping what was measured --------------------------------
    def _on_signal(self, signum: int, _frame: Any) -> None:
        """Stop where the main thread is; ``run`` then kills the workers. The handler itself
        touches no pipe: it may have interrupted a write to that very pipe, and closing it
        here would fail as a reentrant call (a traceback instead of exit 130 or 143)."""
        self._stop = True
        raise _Interrupted(signum)

    def _save(self, results: Sequence[ResultRecord] = (), environments: Mapping[str, Environment] | None = None,
              noise: Sequence[Mapping[str, object]] = (), breakdowns: Sequence[Mapping[str, object]] = (),
              scenarios: Sequence[Mapping[str, object]] = (), force: bool = False) -> None:
        store.append(self.path, runner_label=self.options.runner, profile=self.options.profile,
                     results=list(results), environments=environments, noise=list(noise),
                     breakdowns=list(breakdowns), scenarios=list(scenarios),
                     force=self.options.force or force,
                     description=self.options.description, contributed_by=self.options.contributed_by)

    def run(self, plan: Plan) -> Report:
        t0 = time.monotonic()
        old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            with Claims(self.path) as claims:
                self._run_all(plan, claims)
        except _Interrupted as exc:
            self.report.signum = exc.signum
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            self.pool.close_all(kill=self.report.interrupted)
            self.progress.close()
        self.report.skipped = plan.skipped + self.report.meanwhile
        self.report.seconds = time.monotonic() - t0
        return self.report

    def _run_all(self, plan: Plan, claims: Claims) -> None:
        later: list[ScenarioPlan] = []
        for sc in plan.scenarios:
            if self._stop:
                return
            if claims.take(sc.id):
                self._claimed(sc, plan.stored, claims)
                continue
            if not later:
                self.log(f"\nanother tfperf run is measuring into {self.path}: this run measures first the "
                         "scenarios that run has not taken, then waits for the others")
            later.append(sc)
        for sc in later:
            if self._stop:
                return
            if not claims.take(sc.id):
                self.log(f"\nwaiting for another tfperf run on {self.path} to finish {sc.id}")
                claims.wait(sc.id)
            self._claimed(sc, plan.stored, claims)

    def _claimed(self, sc: ScenarioPlan, planned: Stored, claims: Claims) -> None:
        """Measure a claimed scenario, unless another run stored its cases since the plan."""
        try:
            now = read_stored(self.path, self.options.force, self.options.retry_failed, self.options.force_before)
            todo = missing(sc.tasks, now, planned)
            if not todo:
                self.report.meanwhile += len(sc.tasks)
                self.progress.advance(f"{sc.id} (stored by another run)", len(sc.tasks) + len(sc.breakdowns))
                return
            self._run_scenario(replace(sc, breakdowns=breakdowns_left(sc.breakdowns, now),
                                       remeasure=sc.remeasure or len(todo) < len(sc.tasks)))
        finally:
            claims.release(sc.id)

    def _run_scenario(self, sc: ScenarioPlan) -> None:
        processes = fitting_processes(sc, self.pool.max_live)
        if processes < sc.rule.processes:
            self.log(f"\n{sc.id}: {len({t.case.group_key for t in sc.tasks})} settings groups in "
                     f"{sc.rule.processes} processes each do not fit the {self.pool.max_live} workers that fit "
                     f"in memory: measured in {processes} process(es) per group, so that its speedups stay paired")
            sc = replace(sc, rule=replace(sc.rule, processes=processes))
        parts = split(sc, max(2, self.pool.max_live // processes))
        if len(parts) > 1:
            self.log(f"\n{sc.id}: {len({t.case.group_key for t in sc.tasks})} settings groups in {processes} "
                     f"process(es) each, {self.pool.max_live} workers fit in memory: measured in {len(parts)} "
                     "interleaves, each with the baseline's group; speedups between groups of different "
                     "interleaves are unpaired")
        stored: set[str] = set()
        for i, tasks in enumerate(parts):
            self.pool.retain(worker_keys(tasks, processes))
            breakdowns = [b for b in sc.breakdowns if any(b.case.case_id == t.case.case_id for t in tasks)
                          and b.id not in stored]
            stored.update(b.id for b in breakdowns)
            run = ScenarioRun(self.pool, tasks, sc.baseline, sc.rule, seed=f"{sc.id}#{i}",
                              breakdowns=breakdowns, on_progress=self._progress)
            self._store(sc.id, run.run(), force=sc.remeasure or i > 0)

    def _progress(self, task_id: str, finished: bool) -> None:
        self.progress.update(task_id, finished=finished)

    def _store(self, scenario: str, out: Outcome, force: bool) -> None:
        """Append a measured scenario. A case that got an ok result with the same key while
        it was measured (another process wrote the file: a ``tfperf merge``, a run that
        does not share claims) keeps both results, as a re-measurement does, and the run
        goes on. A file that cannot be written ends the run with one error naming the file
        and this scenario; every scenario stored before it stays."""
        def save(force: bool) -> None:
            self._save(results=out.results, environments=out.environments, noise=out.noise,
                       breakdowns=out.breakdowns, scenarios=out.scenarios, force=force)
        try:
            try:
                save(force)
            except ResultExists:
                self.log(f"\n{scenario}: another process stored results of its cases in {self.path} while this run "
                         "measured them; both are kept")
                save(True)
        except ResultsFileError as exc:
            raise not_stored(exc, scenario, len(out.results)) from None
        self.report.ran += len(out.results)
        self.report.failed += sum(1 for r in out.results if r.status not in ("ok", "unavailable"))
        self.report.unavailable += sum(1 for r in out.results if r.status == "unavailable")
        self.report.noise += out.noise
        self.report.scenarios += out.scenarios


def run(options: RunOptions) -> Report:
    the_plan = plan(options)
    path = store.results_path(options.data_root, options.runner, options.profile)
    progress = Progress(the_plan.n_tasks, enabled=options.progress)
    if the_plan.n_tasks == 0:
        return Report(skipped=the_plan.skipped, path=path)
    return Runner(options, path, progress).run(the_plan)
