"""The parent side of ``tfperf run``: plan the cases, skip what is already measured, run
each settings group in fresh worker processes, enforce per-case timeouts and a memory
cap, turn crashes into failure records, and append every result to the results file as
soon as it arrives (an interrupted run keeps everything it finished).

Never imports TensorFlow: versions for the result keys come from package metadata.
"""

from __future__ import annotations

import json
import os
import random
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .. import HARNESS_VERSION, store
from ..cases import Case, Topic, discover, expand, shard
from ..errors import TfperfError
from ..stats import ratio_ci
from ..store.ids import env_id, key_hash
from . import envinfo
from .progress import Progress

# Where the time of a "<module path>(function)" goes, for predict()-style breakdowns;
# a topic may give its own list under `breakdown_categories`.
DEFAULT_CATEGORIES = [
    # In priority order: a sampled stack goes to the first category matching any of its frames.
    {"name": "tracing functions (tf.function / tf.data map)", "match": ["func_graph.py", "tracing_compilation.py:144", "autograph"]},
    {"name": "building the tf.data input pipeline", "match": ["get_tf_dataset", "data_adapter", "dataset_ops.py"]},
    {"name": "creating and iterating the dataset iterator", "match": ["iterator_ops.py", "epoch_iterator", "_enumerate_iterator"]},
    {"name": "callbacks and progress bar", "match": ["callbacks", "progbar"]},
    {"name": "running the compiled step (graph execution)", "match": ["_call_flat", "concrete_function.py", "atomic_function.py", "polymorphic_function.py", "tensorflow/python/eager/function.py"]},
    {"name": "eager layer calls", "match": ["keras/src/layers", "keras/src/ops", "keras/src/backend", "tf_keras/src/layers", "base_layer", "functional.py"]},
    {"name": "output conversion to numpy", "match": ["numpy", "concatenate", "nest"]},
]


# Time a worker may take outside any case (importing TensorFlow; between a "go" and the
# next "start") before it counts as hung.
GRACE_S = 120.0


@dataclass
class RunOptions:
    profile: str = "quick"
    topics: list[str] | None = None
    runner: str = field(default_factory=envinfo.default_runner_label)
    data_root: Path = Path("data")
    snippets_dir: Path = Path("snippets")
    force: bool = False
    retry_failed: bool = False
    shard: tuple[int, int] | None = None
    progress: bool = True
    memory_limit_mb: int | None = None
    python: str = sys.executable
    description: str | None = None      # provenance stored in the results file's runner record
    contributed_by: str | None = None


@dataclass
class Task:
    id: str
    kind: str                     # "case" | "aa" | "breakdown"
    case: Case
    key: dict[str, Any]
    payload: dict[str, Any]


@dataclass
class Plan:
    groups: dict[str, list[Task]]
    skipped: int
    total_cases: int

    @property
    def n_tasks(self) -> int:
        return sum(len(t) for t in self.groups.values())


@dataclass
class Report:
    ran: int = 0
    skipped: int = 0
    failed: int = 0
    noise: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = None
    interrupted: bool = False
    seconds: float = 0.0


def result_key(case: Case, versions: dict[str, str | None], runner: str) -> dict[str, Any]:
    return {
        "snippet_hash": case.snippet_hash,
        "harness_version": HARNESS_VERSION,
        "tensorflow": versions["tensorflow"],
        "keras": envinfo.keras_version_for(case.settings, versions),
        "settings": {"declared": case.settings, "process": case.process},
        "runner": runner,
    }


def _case_payload(case: Case, ref: Case | None) -> dict[str, Any]:
    return {
        "case_id": case.case_id, "snippet": case.snippet, "fn": case.fn, "setup": case.setup,
        "params": case.params, "budget": case.budget.__dict__, "tolerance": case.tolerance,
        "is_reference": case.is_reference, "slot": f"{case.topic}|{case.params_id}|{case.settings_id}",
        "reference_fn": ref.fn if ref else case.fn, "reference_setup": ref.setup if ref else case.setup,
    }


def _existing(path: Path) -> dict[str, Any] | None:
    return store.load(path) if path.exists() else None


def plan(options: RunOptions, topics: list[Topic] | None = None) -> Plan:
    topics = topics if topics is not None else discover(options.snippets_dir)
    if options.topics:
        known = {t.name for t in topics}
        unknown = [t for t in options.topics if t not in known]
        if unknown:
            raise TfperfError(f"unknown topic(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        topics = [t for t in topics if t.name in options.topics]
    versions = envinfo.package_versions()
    path = store.results_path(options.data_root, options.runner, options.profile)
    doc = _existing(path)
    done: set[tuple[str, str]] = set()
    done_breakdowns: set[str] = set()
    if doc and not options.force:
        for r in doc["results"]:
            if r["status"] == "ok" or not options.retry_failed:
                done.add((r["case_id"], r["key_hash"]))
        done_breakdowns = {b["key_hash"] for b in doc["breakdowns"]}
    groups: dict[str, list[Task]] = {}
    skipped = total = 0
    for topic in topics:
        if options.profile not in topic.data["profiles"]:
            continue
        cases = expand(topic, options.profile)
        if options.shard:
            cases = shard(cases, *options.shard)
        refs = {(c.params_id, c.settings_id): c for c in cases if c.is_reference}
        for c in cases:
            total += 1
            key = result_key(c, versions, options.runner)
            if (c.case_id, key_hash(key)) in done:
                skipped += 1
                continue
            groups.setdefault(c.group_key, []).append(
                Task(c.case_id, "case", c, key, _case_payload(c, refs.get((c.params_id, c.settings_id)))))
        for bd in topic.data.get("breakdowns", []):
            if options.profile not in bd.get("profiles", ["quick", "full"]):
                continue
            for c in cases:
                if c.variant == bd["variant"] and all(str(c.params.get(k)) == str(v) for k, v in bd.get("params", {}).items()) \
                        and all(c.settings.get(k) == str(v) for k, v in bd.get("settings", {}).items()):
                    key = {**result_key(c, versions, options.runner), "breakdown_calls": bd.get("calls", 50)}
                    if key_hash(key) in done_breakdowns:
                        continue
                    payload = {**_case_payload(c, None), "calls": int(bd.get("calls", 50)),
                               "categories": topic.data.get("breakdown_categories", DEFAULT_CATEGORIES)}
                    groups.setdefault(c.group_key, []).append(Task(c.case_id + "#breakdown", "breakdown", c, key, payload))
    for key in groups:
        groups[key] = _shuffle_variants(groups[key])
    # The A/A pair: a case from the middle of each group (not the first, which runs right
    # after the TensorFlow import) is measured again at the end of the group.
    for tasks in groups.values():
        measured = [t for t in tasks if t.kind == "case"]
        measured = [t for t in measured if t.case.is_reference] or measured  # the reference must work
        if measured:
            a = measured[len(measured) // 2]
            tasks.append(Task(a.id + "#aa", "aa", a.case, a.key, dict(a.payload)))
    return Plan(groups, skipped, total)


def _shuffle_variants(tasks: list[Task]) -> list[Task]:
    """Within each parameter combination, keep the reference first (the others are
    checked against its output) and put the other variants in a random order, seeded by
    the combination, so that a variant's position in the process (after which other
    variants, how long after the import) is not a systematic bias of its timing."""
    slots: dict[str, list[Task]] = {}
    for t in tasks:
        slots.setdefault(t.payload["slot"], []).append(t)
    out: list[Task] = []
    for slot, items in slots.items():
        cases = [t for t in items if t.kind == "case"]
        ref = [t for t in cases if t.case.is_reference]
        rest = [t for t in cases if not t.case.is_reference]
        random.Random(slot).shuffle(rest)
        out += ref + rest + [t for t in items if t.kind != "case"]
    return out


class _Interrupted(Exception):
    pass


def _failure(task: Task, status: str, error: str) -> dict[str, Any]:
    now = envinfo.now_iso()
    return {"status": status, "error": error, "first_call_s": None, "warmup": None, "timing": None,
            "output": None, "setup_s": None, "metrics": {}, "started_at": now, "finished_at": now,
            "duration_s": 0.0}


def _record(task: Task, worker_result: dict[str, Any], env: str | None) -> dict[str, Any]:
    c = task.case
    return {"case_id": c.case_id, "topic": c.topic, "params": c.params, "settings": c.settings,
            "variant": c.variant, "is_reference": c.is_reference, "is_default": c.variant == c.default,
            "key": task.key, "key_hash": key_hash(task.key), "env_id": env, **worker_result}


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


class Runner:
    """Runs a plan's groups; every finished record is appended to ``path`` at once."""

    def __init__(self, options: RunOptions, path: Path, progress: Progress) -> None:
        self.options, self.path, self.progress = options, path, progress
        self.report = Report(path=path)
        self._proc: subprocess.Popen[bytes] | None = None
        self._stop = False

    # -- signals: finish cleanly, keeping what was measured --------------------------------
    def _on_signal(self, signum: int, _frame: Any) -> None:
        self._stop = True
        self._kill()
        raise _Interrupted(signal.Signals(signum).name)

    def _kill(self) -> None:
        if self._proc and self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self._proc.kill()
            self._proc.wait()

    def _save(self, results: list[dict[str, Any]] = (), environments: dict[str, Any] | None = None,
              noise: list[dict[str, Any]] = (), breakdowns: list[dict[str, Any]] = ()) -> None:
        store.append(self.path, runner_label=self.options.runner, profile=self.options.profile,
                     results=list(results), environments=environments, noise=list(noise),
                     breakdowns=list(breakdowns), force=self.options.force,
                     description=self.options.description, contributed_by=self.options.contributed_by)

    def run(self, plan: Plan) -> Report:
        t0 = time.monotonic()
        old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            for tasks in plan.groups.values():
                self._run_group(tasks)
        except _Interrupted:
            self.report.interrupted = True
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            self._kill()
            self.progress.close()
        self.report.skipped = plan.skipped
        self.report.seconds = time.monotonic() - t0
        return self.report

    def _run_group(self, tasks: list[Task]) -> None:
        pending = list(tasks)
        first_samples: dict[str, list[float]] = {}
        while pending and not self._stop:
            pending = self._run_worker(pending, first_samples)

    def _spawn(self, tasks: list[Task], log: Any) -> tuple[subprocess.Popen[bytes], int]:
        case = tasks[0].case
        # TensorFlow's INFO log stays on: the worker records its CPU-feature message.
        env = {**os.environ, **case.process.get("env", {}), "PYTHONUNBUFFERED": "1"}
        pkg_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
        rfd, wfd = os.pipe()
        job = {"process": case.process, "settings": case.settings, "runner": self.options.runner,
               "git_commit": envinfo.git_commit(),
               "tasks": [{**t.payload, "id": t.id, "kind": "breakdown" if t.kind == "breakdown" else "case"}
                         for t in tasks]}
        proc = subprocess.Popen([self.options.python, "-m", "tfperf.measure.worker", str(wfd)],
                                stdin=subprocess.PIPE, stdout=log, stderr=log, env=env,
                                pass_fds=(wfd,), start_new_session=True)
        os.close(wfd)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(job).encode() + b"\n")
        proc.stdin.flush()   # stays open: the worker waits for "go" before each case
        return proc, rfd

    def _go(self) -> None:
        """Let the worker start its next case (everything it sent is saved by now)."""
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(b"go\n")
            self._proc.stdin.flush()
        except OSError:
            pass  # the worker is gone; the message loop sees the end of its pipe

    def _messages(self, rfd: int, deadline_for: Any) -> Iterator[dict[str, Any] | str]:
        """Yield messages; yield "timeout" / "memory" / "eof" when the worker goes wrong."""
        sel = selectors.DefaultSelector()
        sel.register(rfd, selectors.EVENT_READ)
        buf = b""
        assert self._proc is not None
        limit = self.options.memory_limit_mb
        try:
            while True:
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    yield json.loads(line)
                remaining = deadline_for() - time.monotonic()
                if remaining <= 0:
                    yield "timeout"
                    return
                if limit and _rss_mb(self._proc.pid) > limit:
                    yield "memory"
                    return
                if sel.select(timeout=min(remaining, 0.25)):
                    chunk = os.read(rfd, 1 << 16)
                    if not chunk:
                        yield "eof"
                        return
                    buf += chunk
        finally:
            sel.close()
            os.close(rfd)

    def _run_worker(self, pending: list[Task], first_samples: dict[str, list[float]]) -> list[Task]:
        by_id = {t.id: t for t in pending}
        done: set[str] = set()
        current: Task | None = None
        env: str | None = None
        started = time.monotonic()
        deadline = started + GRACE_S + pending[0].case.timeout_s  # import + first case
        with tempfile.TemporaryFile() as log:
            self._proc, rfd = self._spawn(pending, log)
            outcome = "done"
            for msg in self._messages(rfd, lambda: deadline):
                if isinstance(msg, str):
                    outcome = msg
                    break
                kind = msg["type"]
                if kind == "ready":
                    env = env_id(msg["env"])
                    self._save(environments={env: msg["env"]})
                    self._go()
                elif kind == "start":
                    current = by_id[msg["id"]]
                    deadline = time.monotonic() + current.case.timeout_s
                    self.progress.update(current.id)
                elif kind in ("result", "breakdown", "breakdown_failed") and current is not None:
                    if kind == "result":
                        self._finish(current, msg["result"], env, first_samples)
                    elif kind == "breakdown":
                        c = current.case
                        self._save(breakdowns=[{"case_id": c.case_id, "topic": c.topic, "variant": c.variant,
                                                "params": c.params, "settings": c.settings,
                                                "key_hash": key_hash(current.key), "env_id": env,
                                                **msg["breakdown"]}])
                        self.progress.update(current.id, finished=True)
                    else:
                        print(f"\nbreakdown {current.id} failed: {msg['error']}", file=sys.stderr)
                    done.add(current.id)
                    current = None
                    self._go()
                    deadline = time.monotonic() + GRACE_S   # until the next "start" resets it
                elif kind == "done":
                    break
            if outcome != "done":
                self._kill()
            else:
                self._proc.wait()
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
            except OSError:
                pass
            log.seek(0)
            tail = log.read().decode("utf-8", "replace")[-3000:]
        rest = [t for t in pending if t.id not in done]
        if outcome == "done":
            return []
        if current is None and done:
            # It died between two cases (after finishing one): the rest go to a new worker;
            # every round finishes at least one task, so this ends.
            return rest
        if current is None:
            # The worker died before starting a case: TensorFlow failed to import, for instance.
            # Every pending case fails with the same error, and the group ends.
            for t in rest:
                if t.kind != "breakdown":
                    self._finish(t, _failure(t, "crashed", f"worker failed before the case started ({outcome}):\n{tail}"),
                                 env, first_samples)
            return []
        status, why = {
            "timeout": ("timeout", f"no result within the case timeout of {current.case.timeout_s:g} s"),
            "memory": ("crashed", f"worker exceeded the memory limit of {self.options.memory_limit_mb} MB"),
            "eof": ("crashed", f"worker exited abruptly (exit code {self._proc.returncode})"),
        }[outcome]
        if current.kind != "breakdown":
            self._finish(current, _failure(current, status, f"{why}\n{tail}"), env, first_samples)
        return [t for t in rest if t.id != current.id]

    def _finish(self, task: Task, result: dict[str, Any], env: str | None,
                first_samples: dict[str, list[float]]) -> None:
        self.progress.update(task.id, finished=True)
        samples = (result.get("timing") or {}).get("samples")
        if task.kind == "aa":
            first = first_samples.get(task.case.case_id)
            if samples and first:
                ratio, lo, hi = ratio_ci(first, samples)
                rec = {"case_id": task.case.case_id, "env_id": env, "key_hash": key_hash(task.key),
                       "ratio": ratio, "ci_low": lo, "ci_high": hi,
                       "rel_noise": max(abs(ratio - 1.0), (hi - lo) / 2.0), "time": envinfo.now_iso()}
                self.report.noise.append(rec)
                self._save(noise=[rec])
            return
        if samples:
            first_samples[task.case.case_id] = samples
        record = _record(task, result, env)
        self.report.ran += 1
        if record["status"] != "ok":
            self.report.failed += 1
        self._save(results=[record])


def run(options: RunOptions) -> Report:
    the_plan = plan(options)
    path = store.results_path(options.data_root, options.runner, options.profile)
    progress = Progress(the_plan.n_tasks, enabled=options.progress)
    if the_plan.n_tasks == 0:
        return Report(skipped=the_plan.skipped, path=path)
    return Runner(options, path, progress).run(the_plan)
