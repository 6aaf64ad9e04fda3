"""What the machine and the software are, read in the parent (result keys, runner labels,
the machine's state around a scenario, the workers' memory cap) and in the worker (each
result's environment record, which cases its TensorFlow cannot have). Nothing here imports
TensorFlow: a function that needs it is given the worker's module.

* The environment record of every result: ``machine_info`` and ``package_versions`` read
  the OS and installed-package metadata without importing TensorFlow (the parent process
  uses them for result keys and runner labels); ``tensorflow_info`` takes the imported
  module and runs inside a worker.
* What the operating system says about this machine and our processes, read through
  psutil on every platform (Linux, macOS, Windows): physical memory, a process's resident
  memory and CPU time, the machine's busy CPU time, the load averages, whether a process
  still runs, and killing a process with everything it started; and the workers' memory
  cap, a share of the physical memory. On Linux psutil reads the kernel's own counters
  (``/proc/meminfo``'s MemTotal, ``/proc/<pid>/statm``'s resident pages, ``/proc/stat``,
  ``/proc/<pid>/stat``, ``getloadavg``), so each figure equals what ``/proc`` shows;
  tests/measure/test_machine.py compares them. A figure this platform or process cannot give is
  ``None`` (stored as unknown), never 0.
* Which cases cannot exist in the worker's TensorFlow, and why. Such a case is stored with
  status ``unavailable`` and the reason in ``error``, never as a failure: the Keras 3
  settings group before TensorFlow 2.16 (its ``tf.keras`` is Keras 2), the Keras 2 group in
  2.16 and later without ``tf_keras``, a module that is not installed (a runtime that did
  not install in that version's venv, see ``tfperf.measure.venvs``), an attribute that a
  tensorflow or keras module does not have (an API added later, or removed). Runs in the
  worker: ``tf`` is the imported module, passed in.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypedDict, TypeGuard

import psutil

from ..hardware import core_name, cpu_class, cpu_identity

if TYPE_CHECKING:
    # Types only: the worker runs in TensorFlow venvs without the store's dependencies
    # (jsonschema), and importing tfperf.store would load them (tests/measure/worker/test_worker_imports.py).
    from ..store.record_types import Gpu, OneDnnUsed, ProcessSettings, Threads, Versions


# -- the environment record ------------------------------------------------------------------


class MachineInfo(TypedDict):
    """The machine's part of an environment record (``record_types.Environment``)."""

    os: str
    machine: str
    cpu_model: str
    cpu_signature: dict[str, int] | None
    isa: dict[str, bool]
    cores: int
    memory_bytes: int | None
    python: str


class TensorFlowInfo(TypedDict):
    """The imported TensorFlow's part of an environment record."""

    versions: Versions
    tf_build: dict[str, Any] | None           # tf.sysconfig.get_build_info(): whatever the build says
    cuda: str | None
    cudnn: str | None
    gpus: list[Gpu]
    onednn: bool
    onednn_built: bool | None
    onednn_max_cpu_isa: str | None
    threads: Threads


class CpuGuard(TypedDict):
    """What TensorFlow's CPU-feature guard logged (``Environment.tf_cpu_features``)."""

    instructions_not_used_everywhere: list[str] | None

ISA_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16",
             "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve", "sve2")


# /proc/cpuinfo's numbers that name a CPU's core generation (hardware.core_name): x86's
# family, model and stepping, Arm's implementer, part, variant and revision.
SIGNATURE_KEYS = {"cpu family": "family", "model": "model", "stepping": "stepping",
                  "cpu implementer": "implementer", "cpu part": "part", "cpu variant": "variant",
                  "cpu revision": "revision"}


def _cpuinfo() -> tuple[str, set[str] | None, dict[str, int] | None]:
    """The CPU's model name, its instruction-set flags and its signature (family and model
    numbers, :data:`SIGNATURE_KEYS`); the flags are None (unknown) where no source of them
    is read: neither /proc/cpuinfo nor macOS (Windows); the signature is None where
    /proc/cpuinfo does not give one."""
    model = platform.processor() or platform.machine()
    flags: set[str] = set()
    signature: dict[str, int] = {}
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        if sys.platform not in ("darwin", "linux"):
            return model, None, None
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key in ("model name", "hardware", "cpu model") and value.strip():
            model = value.strip()
        elif key in ("flags", "features"):
            flags |= set(value.split())
        elif key in SIGNATURE_KEYS and SIGNATURE_KEYS[key] not in signature:
            try:
                signature[SIGNATURE_KEYS[key]] = int(value.strip(), 0)    # "25", or Arm's "0x41"
            except ValueError:
                pass
    if sys.platform == "darwin":
        try:
            model = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                   text=True, timeout=5, check=False).stdout.strip() or model
        except (OSError, subprocess.SubprocessError):
            pass
        if platform.machine() == "arm64":
            flags.add("asimd")
    return model, flags, signature or None


def _memory_bytes() -> int | None:
    return memory_bytes()


def git_commit(cwd: str | Path | None = None) -> str | None:
    """The commit of the checkout this tfperf runs from (not of the current directory: a
    run from one checkout with the harness of another, e.g. a worktree, records the
    harness's commit)."""
    if cwd is None:
        cwd = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine_info() -> MachineInfo:
    model, flags, signature = _cpuinfo()
    return {
        "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "cpu_model": model,
        "cpu_signature": signature,
        "isa": {f: f in flags for f in ISA_FLAGS} if flags is not None else {},   # {}: not known here
        "cores": cores(),
        "memory_bytes": _memory_bytes(),
        "python": platform.python_version(),
    }


def _version(dist: str, path: list[str] | None = None) -> str | None:
    if path is not None:
        found = next(iter(metadata.distributions(name=dist, path=path)), None)
        return found.version if found is not None else None
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def package_versions(path: list[str] | None = None) -> dict[str, str | None]:
    """Versions of the packages that matter, from package metadata: this interpreter's, or
    those under ``path`` (another venv's site-packages, see ``tfperf.measure.venvs``)."""
    def v(dist: str) -> str | None:
        return _version(dist, path)

    # A development build's distributions are named apart: tf-nightly (with keras-nightly and
    # tf-keras-nightly beside it); missing them recorded a nightly run with no versions.
    tf = v("tensorflow") or v("tensorflow-cpu") or v("tensorflow-macos") or v("tf-nightly") or v("tf-nightly-cpu")
    return {"tensorflow": tf, "keras3": v("keras") or v("keras-nightly"),
            "tf_keras": v("tf-keras") or v("tf-keras-nightly"),
            "numpy": v("numpy"), "ai_edge_litert": v("ai-edge-litert"),
            "onnxruntime": v("onnxruntime"), "tf2onnx": v("tf2onnx")}


def versions_record(vs: Mapping[str, str | None]) -> Versions:
    """The packages of :func:`package_versions` (with ``keras``, the one ``tf.keras`` is) as
    an environment record stores them."""
    return {"tensorflow": vs.get("tensorflow"), "keras": vs.get("keras"), "numpy": vs.get("numpy"),
            "keras3": vs.get("keras3"), "tf_keras": vs.get("tf_keras"), "ai_edge_litert": vs.get("ai_edge_litert"),
            "onnxruntime": vs.get("onnxruntime"), "tf2onnx": vs.get("tf2onnx")}


def _is_onednn_used(data: object) -> TypeGuard[OneDnnUsed]:
    return (isinstance(data, dict) and set(data) == {"version", "isa", "kernels"}
            and all(v is None or isinstance(v, str) for v in (data["version"], data["isa"]))
            and isinstance(data["kernels"], list) and all(isinstance(k, str) for k in data["kernels"]))


def keras_is_legacy(tf: Any) -> bool:
    """Whether ``tf.keras`` is tf_keras (Keras 2, under TF_USE_LEGACY_KERAS=1) rather than
    Keras 3. Keras 3 serves ``tf.keras`` from a module named ``keras._tf_keras.keras``, so
    only the top-level package tells them apart ("tf_keras" appears in both names)."""
    name = str(getattr(tf.keras, "__name__", ""))
    return name.split(".", 1)[0] == "tf_keras"


def keras_version_for(settings: dict[str, str], versions: dict[str, str | None]) -> str | None:
    """The Keras that ``tf.keras`` resolves to under these process settings: under
    TF_USE_LEGACY_KERAS=1 (``keras=2``) tf_keras, or before TensorFlow 2.15, where the
    variable means nothing, the ``keras`` package, which is Keras 2 there."""
    legacy, builtin = versions["tf_keras"], versions["keras3"]
    if settings.get("keras") == "2":
        return legacy or (builtin if builtin is not None and builtin.split(".", 1)[0] == "2" else None)
    return builtin


def default_runner_label() -> str:
    """A label naming the machine kind by what makes its numbers differ: the OS, the
    architecture, the core count, the CPU (:func:`tfperf.hardware.cpu_class`) and a GPU,
    e.g. ``linux-x86_64-2core-amd-zen4-avx512`` or ``linux-x86_64-8core-intel-avx512-gpu``.
    The TFPERF_RUNNER variable overrides it (``{cpu}`` in it is replaced, see
    :func:`expand_label`). Never includes a host name."""
    env = os.environ.get("TFPERF_RUNNER")
    if env:
        return expand_label(env)
    gpu = "-gpu" if _has_nvidia_gpu() else ""
    return f"{platform.system().lower()}-{platform.machine().lower()}-{cores()}core-{this_cpu_class()}{gpu}"


def this_cpu_class() -> str:
    """This machine's :func:`tfperf.hardware.cpu_class`, e.g. "intel-amx"."""
    info = machine_info()
    return cpu_class(info["cpu_model"], info["isa"], info["machine"], core_name(dict(info)))


def expand_label(label: str) -> str:
    """A runner label as given (``--runner``, TFPERF_RUNNER) with ``{cpu}`` replaced by this
    machine's CPU class: ``gha-ubuntu24-x86_64-{cpu}`` keeps a hosted runner's two CPU
    kinds apart under one workflow label."""
    return label.replace("{cpu}", this_cpu_class()) if "{cpu}" in label else label


def this_cpu() -> str:
    """This machine as :func:`tfperf.hardware.cpu_identity` names it (the form the store
    compares a results file's environments by)."""
    return cpu_identity(dict(machine_info()))


def _has_nvidia_gpu() -> bool:
    return Path("/proc/driver/nvidia/version").exists() or bool(os.environ.get("TFPERF_FAKE_GPU"))


def _nvidia_smi() -> list[Gpu]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    gpus: list[Gpu] = []
    for line in out.stdout.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 3:
            mem = int(float(parts[2]) * 2**20) if re.fullmatch(r"[0-9.]+", parts[2]) else None
            gpus.append({"name": parts[0], "driver": parts[1], "memory_bytes": mem})
    return gpus


def tensorflow_info(tf: Any, settings: dict[str, str], process: ProcessSettings) -> TensorFlowInfo:
    """Everything TensorFlow-specific, read from the imported module inside a worker."""
    build: dict[str, Any] | None
    try:
        build = {k: (list(v) if isinstance(v, (list, tuple)) else v)
                 for k, v in dict(tf.sysconfig.get_build_info()).items()}
    except Exception:  # noqa: BLE001 - metadata must never fail a run
        build = None
    gpus = _nvidia_smi()
    if not gpus:
        gpus = [{"name": d.name, "driver": None, "memory_bytes": None}
                for d in tf.config.list_physical_devices("GPU")]
    versions = package_versions()
    try:
        versions["keras"] = versions["tf_keras"] if keras_is_legacy(tf) else versions["keras3"]
    except Exception:  # noqa: BLE001 - tf.keras does not import (the group is then unavailable)
        versions["keras"] = None
    onednn_built: bool | None
    try:  # whether this build has the oneDNN (formerly MKL) kernels at all
        from tensorflow.python.util import _pywrap_util_port

        onednn_built = bool(_pywrap_util_port.IsMklEnabled())
    except Exception:  # noqa: BLE001 - private API; absence is recorded as unknown
        onednn_built = None
    onednn_env = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
    # oneDNN is on by default on x86 Linux and Windows builds since TF 2.9.
    onednn_default = platform.machine().lower() in ("x86_64", "amd64")
    return {
        "versions": versions_record(versions),
        "tf_build": build,
        "cuda": (build or {}).get("cuda_version") if gpus else None,
        "cudnn": (build or {}).get("cudnn_version") if gpus else None,
        "gpus": gpus,
        "onednn": onednn_default if onednn_env is None else onednn_env not in ("0", "false", "False"),
        "onednn_built": onednn_built,
        "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA"),
        "threads": {
            "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
            "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "cpu_affinity": process.get("cpus"),
        },
    }


def cpu_guard_message(log: str) -> CpuGuard:
    """What TensorFlow's CPU-feature guard said at load time: the instructions this CPU
    has that the build does not use in all operations ("rebuild TensorFlow with the
    appropriate compiler flags"), e.g. ["AVX2", "AVX512F", "FMA"]."""
    m = re.search(r"To enable the following instructions: ([A-Za-z0-9_ ,]+?),? in other operations", log)
    if not m:
        return {"instructions_not_used_everywhere": None}
    return {"instructions_not_used_everywhere": [x.strip() for x in m.group(1).replace(",", " ").split()]}


# Run in a fresh interpreter of the worker's environment: oneDNN reads ONEDNN_VERBOSE once, and
# its lines must not reach the worker's own stderr.
ONEDNN_PROBE = """
import tensorflow as tf
for dtype in (tf.float32, tf.bfloat16):
    a = tf.ones((16, 16), dtype)
    tf.linalg.matmul(a, a).numpy()
"""


def parse_onednn_verbose(log: str) -> OneDnnUsed | None:
    """oneDNN's verbose lines (``onednn_verbose,[v1,]info,cpu,isa:...`` and
    ``...,exec,cpu,PRIMITIVE,IMPL,PROP,src_DT...``, oneDNN 2 and 3 formats) as a record;
    None when the log has no oneDNN line (oneDNN off or not in this build)."""
    version = isa = None
    kernels: list[str] = []
    seen = False
    for line in log.splitlines():
        fields = [f.strip() for f in line.strip().split(",")]
        if not fields or fields[0] not in ("onednn_verbose", "dnnl_verbose"):
            continue
        seen = True
        rest = fields[2:] if len(fields) > 1 and fields[1].startswith("v") and fields[1][1:].isdigit() else fields[1:]
        if rest[:1] == ["info"]:
            text = ",".join(rest[1:])
            if m := re.search(r"isa:([^,]+)", text):
                isa = isa or m.group(1).strip()
            elif m := re.match(r"((?:oneDNN|DNNL) v[0-9][^ ,]*)", text):
                version = version or m.group(1)
        elif "exec" in rest[:2] and len(rest) >= 6:
            i = rest.index("exec")
            _engine, primitive, impl, _prop, descs = rest[i + 1:i + 6]
            dt = m.group(1) if (m := re.search(r"src_([a-z0-9]+)", descs)) else "?"
            kernel = f"{primitive}{':' + impl if impl else ''} ({dt})"
            if kernel not in kernels:
                kernels.append(kernel)
    if not seen:
        return None
    return {"version": version, "isa": isa, "kernels": kernels}


def onednn_used(python: str = sys.executable, cache: Path | None = None,
                run: Any = subprocess.run, timeout_s: float = 180.0) -> OneDnnUsed | None:
    """What oneDNN runs on in this environment: ``ONEDNN_PROBE`` in a subprocess of ``python``
    with ONEDNN_VERBOSE=1. Probed once per environment (interpreter, TensorFlow version and
    the oneDNN/TF variables), kept in ``cache``; None when nothing could be read (metadata
    never fails a run)."""
    env = {**os.environ, "ONEDNN_VERBOSE": "1", "TF_CPP_MIN_LOG_LEVEL": "2"}
    key_parts = [python, str(_version("tensorflow") or _version("tf-nightly")), platform.node(),
                 *sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith(("ONEDNN_", "DNNL_", "TF_ENABLE")))]
    path = None
    if cache is not None:
        path = cache / f"onednn-{hashlib.sha256(chr(0).join(key_parts).encode()).hexdigest()[:16]}.json"
        try:
            cached = json.loads(path.read_text(encoding="utf-8"))
            if cached is None or _is_onednn_used(cached):
                return cached
        except (OSError, ValueError):
            pass
    try:
        proc = run([python, "-c", ONEDNN_PROBE], env=env, capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.SubprocessError):
        return None
    used = parse_onednn_verbose(f"{proc.stdout}\n{proc.stderr}")
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(used), encoding="utf-8")
        except OSError:
            pass
    return used


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


# -- what the operating system says, through psutil ------------------------------------------


# Windows has no load average: psutil emulates one from a counter it samples every 5 seconds
# in a thread it starts on the first call, and answers (0.0, 0.0, 0.0) until then.
_LOAD_WARMUP_S = 5.0
_load_started: float | None = None


def memory_bytes() -> int | None:
    """The machine's physical memory in bytes."""
    try:
        return int(psutil.virtual_memory().total)
    except (OSError, psutil.Error, RuntimeError):
        return None


# A worker above this share of physical memory is killed and its case stored as crashed,
# before the kernel's OOM killer picks a process (possibly not ours) on a shared machine.
MEMORY_SHARE = 0.75


def default_memory_limit_mb() -> int | None:
    """MEMORY_SHARE of physical memory in MB; None (no cap) where the size is unknown."""
    total = memory_bytes()
    return int(total * MEMORY_SHARE / 2**20) if total is not None else None


def memory_limit(value: int | None) -> int | None:
    """--memory-limit-mb: None -> the default share of RAM; 0 -> no limit."""
    if value is None:
        return default_memory_limit_mb()
    return value or None


def rss_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid``; None when it is gone or unreadable."""
    try:
        return int(psutil.Process(pid).memory_info().rss)
    except (OSError, psutil.Error):
        return None


# CPU times that are not busy time, or are counted inside another field already: Linux's
# guest time is inside user time (/proc/stat's first 8 fields are the rest), Windows'
# interrupt and DPC time inside system time.
_NOT_BUSY = frozenset({"idle", "iowait", "guest", "guest_nice", "interrupt", "dpc"})


def busy_cpu_s() -> float | None:
    """Seconds of CPU time the whole machine has spent busy (all cores, since boot): every
    kind of CPU time but idle and, where the platform counts it, waiting for I/O."""
    try:
        times = psutil.cpu_times()
    except (OSError, psutil.Error, RuntimeError):
        return None
    return sum(float(v) for k, v in times._asdict().items() if k not in _NOT_BUSY)


def process_cpu_s(pids: Iterable[int]) -> float:
    """User + system seconds of these processes and of their waited-for children (the
    platforms that count those: Linux); a process that is gone counts nothing."""
    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
        except (OSError, psutil.Error):
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def load_averages() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, rounded to 0.01; None where there are none yet
    (Windows' emulation in its first 5 seconds) or at all."""
    global _load_started
    if _load_started is None:
        _load_started = time.monotonic()
    try:
        load = psutil.getloadavg()
    except (OSError, psutil.Error, AttributeError, RuntimeError):
        return None
    if os.name == "nt" and time.monotonic() - _load_started < _LOAD_WARMUP_S and not any(load):
        return None
    return [round(x, 2) for x in load]


def is_running(proc: psutil.Process) -> bool:
    """Whether ``proc`` is still the process it was (not gone, not a zombie, its pid not
    reused by another). A process psutil may not look at counts as running: the parent
    watch must never end the worker of a parent that is alive."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except (OSError, psutil.Error):
        return True


def parent() -> psutil.Process | None:
    """This process's parent, to watch with :func:`is_running`; None when it is unknown."""
    try:
        return psutil.Process(os.getppid())
    except (OSError, psutil.Error):
        return None


def kill_tree(pid: int) -> None:
    """Kill process ``pid`` and every process it started, children first, so that none is
    left running. A process already gone is skipped."""
    try:
        root = psutil.Process(pid)
        tree = [*root.children(recursive=True), root]
    except (OSError, psutil.Error):
        return
    for p in reversed(tree[:-1]):
        try:
            p.kill()
        except (OSError, psutil.Error):
            pass
    try:
        root.kill()
    except (OSError, psutil.Error):
        pass


# -- which cases cannot exist in the worker's TensorFlow -------------------------------------


STATUS: Final = "unavailable"         # the status of a case that cannot exist in this TensorFlow
API_PACKAGES = ("tensorflow", "keras", "tf_keras")
STAMP = "tfperf-venv.json"            # written by tfperf.measure.venvs into each venv
_MISSING_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")


def keras_major(tf: Any) -> int | None:
    """The Keras major version behind ``tf.keras`` (None when tf.keras does not import)."""
    try:
        if keras_is_legacy(tf):
            return 2
    except Exception:  # noqa: BLE001 - tf.keras failing to import is the answer
        return None
    version = getattr(tf.keras, "__version__", None) or package_versions()["keras3"]
    try:
        return int(str(version).split(".", 1)[0])
    except ValueError:
        return None


def keras_group(tf: Any, settings: dict[str, str]) -> str | None:
    """Why this worker's settings group cannot exist in its TensorFlow, or None."""
    want = settings.get("keras")
    if want not in ("2", "3"):
        return None
    have = keras_major(tf)
    if str(have) == want:
        return None
    if want == "3":
        return (f"keras=3: tf.keras is Keras {have} in TensorFlow {tf.__version__} "
                "(Keras 3 is tf.keras from TensorFlow 2.16)")
    return (f"keras=2: tf.keras is not Keras 2 in TensorFlow {tf.__version__} with TF_USE_LEGACY_KERAS=1 "
            "(the tf_keras package is not installed or does not import)")


def _top(name: str | None) -> str:
    return (name or "").split(".", 1)[0]


def from_exception(exc: BaseException) -> str | None:
    """The reason a case is unavailable when setting it up raised ``exc``, or None when
    ``exc`` is a failure like any other."""
    if isinstance(exc, ImportError):
        text = f"{type(exc).__name__}: {exc}"
        why = not_installed(_top(exc.name))
        return f"{text} ({why})" if why else text
    if isinstance(exc, AttributeError):
        m = _MISSING_ATTR.search(str(exc))
        obj = getattr(exc, "obj", None)
        module = m.group(1) if m else getattr(obj, "__name__", None) if obj is not None else None
        if module and _top(module) in API_PACKAGES:
            return f"AttributeError: {exc} (an API this TensorFlow version does not have)"
    return None


def not_installed(module: str) -> str | None:
    """pip's reason, recorded in this venv's stamp, for the package of ``module`` not
    being installed (None when the stamp does not name it, or there is no stamp)."""
    if not module:
        return None
    try:
        stamp = json.loads((Path(sys.prefix) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for dist, why in (stamp.get("not_installed") or {}).items():
        if dist.replace("-", "_").lower() == module.lower():
            last = str(why).strip().splitlines()[-1:] or ["no reason recorded"]
            return f"{dist} did not install in this TensorFlow's venv: {last[0]}"
    return None
