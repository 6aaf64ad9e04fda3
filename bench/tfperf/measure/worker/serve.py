"""The worker process: imports TensorFlow once under fixed process settings, then does
what the parent asks, one command at a time, and answers one JSON message per line over
a pipe.

Run by ``tfperf.measure.supervise.orchestrate``; never imported by the parent. Protocol (each message
a type of :mod:`tfperf.measure.worker.protocol`): the job (process settings, runner) arrives as
one JSON line on stdin; the worker answers on the pipe given as argv[1] (a file descriptor
number, or on Windows ``h<handle>``: see :func:`open_channel` and measure/supervise/pool.py):

    {"type": "ready", "env": {...}, "import_s": 2.9, "unavailable": null}

then reads commands from stdin, one JSON object per line, and answers each:

    {"cmd": "prepare", "task": {...}}  -> {"type": "prepared", "id": ..., "result": {...}}
        set up the case, time its first call, warm up, calibrate the inner loop, check
        its output against the reference; ``result`` has status "error" if that failed,
        "unavailable" if the case cannot exist in this TensorFlow (see measure/envinfo.py)
    {"cmd": "sample", "id": ..., "warm": bool} -> {"type": "sample", "id": ..., "seconds": ...}
        one sample block (seconds per call), or {"type": "sample_failed", "id": ..., "error": ...};
        ``warm``: the block before ran in another process (see timing.block). A case of a
        per-request arrival pattern (its task's ``arrival``) takes a block of requests
        instead (timing.idle_block; timing.open_loop_block at the command's ``schedule``)
        and answers with every request's ``latencies`` and their median as ``seconds``;
        with ``"back_to_back": true`` it takes a block of calls all the same
    {"cmd": "release", "id": ...}      -> {"type": "released", "id": ...}
    {"cmd": "breakdown", "task": {...}} -> {"type": "breakdown", ...} or "breakdown_failed"

and any other command -> {"type": "error", "error": ...}.

The parent sends the next command only after the answer to the last one, to one worker
at a time: while one worker measures, every other worker of the scenario waits on its
stdin, so measurements never overlap. End of stdin means the parent is gone: the worker
exits.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import json
import os
import posixpath
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from ...arrival import Arrival, Pattern
from ...stats import Budget, median
from .. import envinfo
from . import outputs
from .outputs import to_host
from .protocol import (
    Answer,
    BreakdownResult,
    BreakdownTask,
    CaseTask,
    Command,
    Job,
    WorkerResult,
)
from .timing import Timing, block, categorise, idle_block, open_loop_block, prepare, top_functions
from .timing import sample as sample_stacks

if TYPE_CHECKING:
    # Types only: the worker runs in TensorFlow venvs without the store's dependencies
    # (jsonschema), and importing tfperf.store would load them (tests/measure/worker/test_worker_imports.py).
    from ...store.record_types import Environment, Output, ProcessSettings


class Channel:
    def __init__(self, fd: int) -> None:
        self._out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def send(self, msg: Answer) -> None:
        self._out.write(json.dumps(msg, allow_nan=False, default=str) + "\n")
        self._out.flush()


def open_channel(arg: str) -> Channel:
    """The parent's pipe, as argv[1] names it: a descriptor number this process inherited
    (POSIX), or ``h<handle>``, an inherited Windows handle, which the C runtime's msvcrt
    turns into a descriptor of this process."""
    if arg.startswith("h"):
        msvcrt: Any = importlib.import_module("msvcrt")   # Windows only
        return Channel(int(msvcrt.open_osfhandle(int(arg[1:]), os.O_WRONLY)))
    return Channel(int(arg))


def _apply_settings(process: ProcessSettings) -> ModuleType:
    """Import TensorFlow under the group's settings (env vars were set by the parent)."""
    import tensorflow as tf  # the only TensorFlow import of the harness

    if "intra_op_threads" in process:
        tf.config.threading.set_intra_op_parallelism_threads(int(process["intra_op_threads"]))
    if "inter_op_threads" in process:
        tf.config.threading.set_inter_op_parallelism_threads(int(process["inter_op_threads"]))
    if process.get("eager") is False:
        tf.compat.v1.disable_eager_execution()
    return cast(ModuleType, tf)   # untyped package: mypy sees Any


def _import_capturing_stderr(process: ProcessSettings) -> tuple[ModuleType, str]:
    """Import TensorFlow with file descriptor 2 copied to a temporary file, so the
    CPU-feature message its C++ side logs at load time can be recorded; the text is
    passed on to the real stderr afterwards."""
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            tf = _apply_settings(process)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", "replace")
    sys.stderr.write(text)
    return tf, text


_modules: dict[str, ModuleType] = {}


def load_snippet(path: str) -> ModuleType:
    if path not in _modules:
        name = "tfperf_snippet_" + os.path.splitext(os.path.basename(path))[0]
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # snippets may import their helpers
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import snippet {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _modules[path] = module
    return _modules[path]


def _prepare(case: CaseTask, fn_name: str, setup_name: str) -> tuple[Callable[[], Any], dict[str, float], float]:
    mod = load_snippet(case["snippet"])
    fn, setup = getattr(mod, fn_name), getattr(mod, setup_name)
    t0 = time.perf_counter()
    kwargs = dict(setup(dict(case["params"])))
    setup_s = time.perf_counter() - t0
    metrics = {str(k): float(v) for k, v in dict(kwargs.pop("_metrics", {})).items()}

    def call() -> Any:
        return to_host(fn(**kwargs))

    return call, metrics, setup_s


def _release() -> None:
    gc.collect()
    try:
        import tensorflow as tf
        tf.keras.backend.clear_session()
    except Exception:  # noqa: BLE001, S110 - best effort between cases
        pass


class Worker:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.references: dict[str, object] = {}  # "params_id|settings_id" -> reference first output
        self.saved: dict[str, object] = {}    # path -> the baseline settings' reference, from its worker
        self.ready: dict[str, tuple[Callable[[], Any], Timing]] = {}  # prepared cases by task id
        self.arrivals: dict[str, Arrival] = {}   # task id -> its per-request pattern (none: back to back)
        self.unavailable: str | None = None  # why no case of this settings group can exist here

    def reference_output(self, case: CaseTask) -> Any:
        """The reference variant's first output for this parameter combination; computed
        untimed when the reference was not run in this process (skipped, or a restart)."""
        slot = case["slot"]
        if slot not in self.references:
            call, _, _ = _prepare(case, case["reference_fn"], case["reference_setup"])
            self.references[slot] = call()
            del call
            _release()
        return self.references[slot]

    def prepare(self, case: CaseTask) -> WorkerResult:
        """Set up a case and take everything before its samples; keep it ready for
        :meth:`sample`. The result carries status "error" (and nothing is kept) on failure."""
        started = envinfo.now_iso()
        t_case = time.perf_counter()
        res: WorkerResult = {"status": "ok", "error": None, "first_call_s": None, "warmup": None,
                             "timing": None, "output": None, "setup_s": None, "metrics": {},
                             "started_at": started, "finished_at": started, "duration_s": 0.0}   # both set below
        if self.unavailable:
            res.update({"status": envinfo.STATUS, "error": self.unavailable, "finished_at": envinfo.now_iso(),
                        "duration_s": 0.0})
            return res
        try:
            call, metrics, setup_s = _prepare(case, case["fn"], case["setup"])
            res["setup_s"], res["metrics"] = setup_s, metrics
            timing = prepare(call, Budget(**case["budget"]))
            res["first_call_s"] = timing.first_call_s
            res["warmup"] = {"calls": timing.warmup_calls, "seconds": timing.warmup_s}
            res["timing"] = {"inner_loops": timing.inner_loops}
            res["output"] = self._check_output(case, timing)
            timing.first_output = None
            if "arrival" in case:
                self.arrivals[case["id"]] = Arrival.of(case["arrival"])
            self.ready[case["id"]] = (call, timing)
        except BaseException as exc:  # a failing case is a result, not a crash
            if isinstance(exc, KeyboardInterrupt):
                raise
            why = envinfo.from_exception(exc)
            res["status"] = envinfo.STATUS if why else "error"
            res["error"] = why or _error_text(exc)
            self._release_if_idle()
        res["finished_at"] = envinfo.now_iso()
        res["duration_s"] = time.perf_counter() - t_case
        return res

    def _check_output(self, case: CaseTask, timing: Timing) -> Output:
        """Compare the first output with the reference: the baseline settings' reference,
        saved by another worker (``compare_with``), when the parent sent one; else the
        reference variant of this settings group. The baseline saves its own output for
        the other groups (``save_reference``)."""
        tol = case["tolerance"]
        rtol, atol = tol["rtol"], tol["atol"]
        if case.get("save_reference"):
            try:
                outputs.save(timing.first_output, Path(case["save_reference"]))
            except (TypeError, ValueError, OSError):
                pass  # not numeric, or no room: the other groups check within their own group
        other = case.get("compare_with")
        if case["is_reference"] and not other:
            self.references[case["slot"]] = timing.first_output
            return {"max_abs_diff": 0.0, "max_rel_diff": 0.0, "within_tolerance": True, "rtol": rtol,
                    "atol": atol, "note": outputs.barely_varies(timing.first_output, rtol, atol) or "reference",
                    "compared_with": case["case_id"]}
        try:
            ref_id: str | None
            if other:
                ref, ref_id = self._saved_reference(other["path"]), other["case_id"]
            else:
                ref, ref_id = self.reference_output(case), case.get("reference_id")
        except Exception as exc:  # noqa: BLE001 - the reference failing is data too
            return {"max_abs_diff": None, "max_rel_diff": None, "within_tolerance": None,
                    "rtol": rtol, "atol": atol, "compared_with": None,
                    "note": f"reference failed: {type(exc).__name__}: {exc}"[:500]}
        checked: Output = {**outputs.compare(timing.first_output, ref, rtol, atol), "compared_with": ref_id}
        trivial = outputs.barely_varies(ref, rtol, atol)
        if trivial and checked["within_tolerance"]:
            checked.update({"within_tolerance": None, "note": trivial})
        return checked

    def _saved_reference(self, path: str) -> Any:
        if path not in self.saved:
            self.saved[path] = outputs.load(Path(path))
        return self.saved[path]

    def sample(self, task_id: str, warm: bool = False, schedule: list[float] | None = None,
               back_to_back: bool = False) -> tuple[float, list[float] | None]:
        """One block of a prepared case: seconds per call (back to back, or asked for); or,
        for a per-request pattern, the median latency and every request's latency."""
        call, timing = self.ready[task_id]
        arrival = self.arrivals.get(task_id)
        if arrival is None or back_to_back:
            call_s = timing.warmup_s / timing.warmup_calls if timing.warmup_calls else 0.0
            return block(call, timing.inner_loops, warm=warm, call_s=call_s), None
        if arrival.pattern is Pattern.IDLE:
            latencies = idle_block(call, arrival.block, arrival.gap_s)
        else:
            if schedule is None:
                raise ValueError(f"the sample command of {task_id} ({arrival.id}) has no schedule")
            latencies = open_loop_block(call, schedule)
        return median(latencies), latencies

    def release(self, task_id: str) -> None:
        self.ready.pop(task_id, None)
        self.arrivals.pop(task_id, None)
        self._release_if_idle()

    def _release_if_idle(self) -> None:
        """Free memory (and Keras' global state) once no prepared case needs it."""
        if not self.ready:
            _release()

    def run_breakdown(self, task: BreakdownTask) -> BreakdownResult:
        """Sample the stacks of ``calls`` warmed-up calls and charge the time to categories."""
        if self.unavailable:
            raise RuntimeError(self.unavailable)
        call, _, _ = _prepare(task, task["fn"], task["setup"])
        for _ in range(3):
            call()
        weights, total = sample_stacks(call, task["calls"])
        weights = _slashed(weights)
        sampled = sum(weights.values()) or 1.0
        cats = categorise(weights, task["categories"], boundary="tfperf/measure/worker/serve.py")
        del call
        self._release_if_idle()
        n = task["calls"]
        return {
            "tool": "stack sampler (0.5 ms)",
            "calls": n,
            "total_s": total,
            "categories": sorted(({"name": k, "seconds": v / sampled * total / n, "share": v / sampled}
                                  for k, v in cats.items()), key=lambda c: -c["seconds"]),
            "top_functions": [{"function": _short(f), "cumulative_s": inc / sampled * total / n,
                               "own_s": own / sampled * total / n, "calls": n}
                              for f, inc, own in top_functions(weights)
                              if not any(m in f for m in ("tfperf/measure", "threading.py", "<frozen runpy>"))],
        }


def _slashed(weights: Counter[tuple[str, ...]], sep: str = os.sep) -> Counter[tuple[str, ...]]:
    """The sampled stacks with "/" between directories, as the categories' patterns, the
    boundary and the filters here are written: Windows' frames say "\\" (POSIX's are
    returned as they are)."""
    if sep == "/":
        return weights
    return Counter({tuple(frame.replace(sep, "/") for frame in stack): w for stack, w in weights.items()})


def _short(where: str, splitdrive: Callable[[str], tuple[str, str]] = os.path.splitdrive) -> str:
    """A frame's file without the machine's directories (no local paths in results). Its
    path has "/" between directories (``_slashed``); a Windows drive ("C:") goes before the
    ":" that ends the path is looked for."""
    for marker in ("site-packages/", "lib/python"):
        if marker in where:
            return where.split(marker, 1)[1]
    _, local = splitdrive(where)
    if "/" in local.split(":", 1)[0]:
        path, rest = local.split(":", 1)
        parent = posixpath.basename(posixpath.dirname(path))
        return f"{parent}/{posixpath.basename(path)}:{rest}"
    return where


def exit_with_parent(interval_s: float = 0.5) -> threading.Thread:
    """Exit at once when the parent (``tfperf run``) is gone: killed by SIGKILL it cannot
    stop this process, which would otherwise finish or hang in its case as an orphan.
    A daemon thread waking twice a second; its cost per timed call is negligible. Gone is
    either sign: on POSIX this process is handed to another parent (``os.getppid()``
    changes, which it never does on Windows), and on every platform psutil no longer finds
    the parent running (``envinfo.is_running``: exited, a zombie, or its pid reused)."""
    ppid = os.getppid()
    parent = envinfo.parent()

    def watch() -> None:
        while True:
            time.sleep(interval_s)
            if os.getppid() != ppid or (parent is not None and not envinfo.is_running(parent)):
                os._exit(1)

    t = threading.Thread(target=watch, name="tfperf-parent-watch", daemon=True)
    t.start()
    return t


def read_job(stream: Any) -> Job:
    line = stream.readline()
    if not line:
        raise SystemExit("worker: no job on stdin")
    job: Job = json.loads(line)          # written by pool.WorkerHandle
    return job


def read_command(stream: Any) -> Command | None:
    """The parent's next command; None at the end of input (the parent is gone)."""
    line = stream.readline()
    if not line.strip():
        return None
    msg: Command = json.loads(line)      # written by pool.WorkerHandle.request
    return msg


def _error_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)[-6:])[-4000:]


def pin(cpus: list[int] | None) -> None:
    """Pin this process (and the threads TensorFlow will start) to ``cpus``, before the
    import, so that TensorFlow sizes its thread pools for them. Pinning keeps a case off
    the CPU that the operating system or a neighbour is using; it narrows the spread on
    a shared machine (see scripts/selfcheck.py)."""
    if not cpus:
        return
    if not hasattr(os, "sched_setaffinity"):
        raise RuntimeError(f"the process setting cpus={cpus} needs Linux (os.sched_setaffinity)")
    allowed = sorted(os.sched_getaffinity(0))
    missing = [c for c in cpus if c not in allowed]
    if missing:
        raise RuntimeError(f"the process setting cpus={cpus} names CPU(s) {missing} this machine does not "
                           f"let the worker use (allowed: {allowed})")
    os.sched_setaffinity(0, cpus)


def main(argv: list[str]) -> int:
    exit_with_parent()
    channel = open_channel(argv[1])
    job = read_job(sys.stdin)
    machine = envinfo.machine_info()  # before pinning: the machine's cores, not the worker's
    pin(job["process"].get("cpus"))
    t0 = time.perf_counter()
    tf, import_log = _import_capturing_stderr(job["process"])
    import_s = time.perf_counter() - t0
    tf_info = envinfo.tensorflow_info(tf, job["settings"], job["process"])
    # What oneDNN dispatched to, probed once per environment and cached; null where it is off.
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tfperf"
    onednn_used = envinfo.onednn_used(cache=cache) if tf_info["onednn"] else None
    env: Environment = {**machine, **tf_info, "tf_cpu_features": {**envinfo.cpu_guard_message(import_log)},
                        "runner": job["runner"], "settings": job["settings"], "git_commit": job.get("git_commit"),
                        "time": envinfo.now_iso(), "onednn_used": onednn_used}
    worker = Worker(channel)
    worker.unavailable = envinfo.keras_group(tf, job["settings"])
    channel.send({"type": "ready", "env": env, "import_s": import_s, "unavailable": worker.unavailable})
    while (cmd := read_command(sys.stdin)) is not None:
        serve(worker, channel, cmd)
    return 0


def serve(worker: Worker, channel: Channel, cmd: Command) -> None:
    """Carry out one command of the parent and send its answer."""
    kind = cmd.get("cmd")
    if kind not in ("prepare", "sample", "release", "breakdown"):
        channel.send({"type": "error", "error": f"unknown command {kind!r}"})
    elif cmd["cmd"] == "prepare":           # a tagged union: each branch sees its command's type
        task = cmd["task"]
        result = worker.prepare(task)
        try:
            channel.send({"type": "prepared", "id": task["id"], "result": result})
        except ValueError as exc:  # NaN or infinity somewhere in the measurement
            worker.release(task["id"])
            result.update({"status": "error", "error": f"result not storable: {exc}", "timing": None, "output": None})
            channel.send({"type": "prepared", "id": task["id"], "result": result})
    elif cmd["cmd"] == "sample":
        sample = cmd
        try:
            seconds, latencies = worker.sample(sample["id"], bool(sample.get("warm")), sample.get("schedule"),
                                               bool(sample.get("back_to_back")))
        except Exception as exc:  # noqa: BLE001 - a case failing in its steady state is data
            worker.release(sample["id"])
            channel.send({"type": "sample_failed", "id": sample["id"], "error": _error_text(exc)})
        else:
            if latencies is None:
                channel.send({"type": "sample", "id": sample["id"], "seconds": seconds})
            else:
                channel.send({"type": "sample", "id": sample["id"], "seconds": seconds, "latencies": latencies})
    elif cmd["cmd"] == "release":
        task_id = cmd["id"]
        worker.release(task_id)
        channel.send({"type": "released", "id": task_id})
    else:
        bd_task = cmd["task"]
        try:
            channel.send({"type": "breakdown", "id": bd_task["id"], "breakdown": worker.run_breakdown(bd_task)})
        except Exception as exc:  # noqa: BLE001
            channel.send({"type": "breakdown_failed", "id": bd_task["id"], "error": repr(exc)[:2000]})


if __name__ == "__main__":
    sys.exit(main(sys.argv))
