"""The stored records: a results file (``ResultsDoc``) and what it holds as types, field for
field what ``schema_v2.json`` allows (``tests/store/test_record_types.py`` holds the two equal:
every property, which are required, and the JSON types of each), and the stable identifiers
records carry: a case's id and its parts, the hash of a result's key and of an environment
record.

The types are for mypy: ``load`` and ``validate`` check a document against the schema, and a
``ResultsDoc`` is what they hand on. A field the schema leaves out may be absent; one it
allows ``null`` is ``X | None``. Optional fields are those of the ``total=False`` class of
each pair (Python 3.10 has no ``NotRequired``).

The identifiers have one definition each: the harness names results with them
(``cases.Case``) and the analysis groups and pairs results by them (``analyse.records``),
so a second copy that drifted (an empty parameter set written "" in one and "-" in the
other) would make the analysis miss results that are there.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from ..arrival import ArrivalRecord, Pattern, suffix

Scalar = str | int | float | bool                     # a parameter's value
Status = Literal["ok", "error", "timeout", "crashed", "unavailable"]
StoppedBy = Literal["ci", "budget", "max_samples", "max_rounds", "no_rounds"]     # one case's samples
ScenarioStoppedBy = Literal["ci", "budget", "max_rounds", "no_rounds"]            # one scenario's rounds
Profile = Literal["quick", "full", "history"]                                     # schema.PROFILES


# -- environment ---------------------------------------------------------------------------

class _GpuRequired(TypedDict):
    name: str


class Gpu(_GpuRequired, total=False):
    driver: str | None
    memory_bytes: int | None


class _VersionsRequired(TypedDict):
    tensorflow: str | None
    keras: str | None                             # the Keras that tf.keras resolves to
    numpy: str | None


class Versions(_VersionsRequired, total=False):
    """Package versions in the worker's process. The schema lets a file name other packages
    too (a string or null each), which a TypedDict cannot say: read them with ``.get``."""

    keras3: str | None
    tf_keras: str | None
    ai_edge_litert: str | None                    # the serving runtimes the harness records
    onnxruntime: str | None
    tf2onnx: str | None


class Threads(TypedDict, total=False):
    intra_op: int | None
    inter_op: int | None
    omp_num_threads: str | None
    cpu_affinity: list[int] | None


class OneDnnUsed(TypedDict):
    version: str | None
    isa: str | None
    kernels: list[str]


class _EnvironmentRequired(TypedDict):
    runner: str
    os: str
    cpu_model: str
    isa: dict[str, bool]
    cores: int
    memory_bytes: int | None
    gpus: list[Gpu]
    python: str
    versions: Versions
    onednn: bool | None
    threads: Threads
    settings: dict[str, str]
    time: str


class Environment(_EnvironmentRequired, total=False):
    machine: str
    cpu_signature: dict[str, int] | None          # /proc/cpuinfo's family and model numbers (x86), part (Arm)
    tf_cpu_features: dict[str, Any] | None        # what TensorFlow reports: open-ended
    cuda: str | None
    cudnn: str | None
    tf_build: dict[str, Any] | None               # tf.sysconfig.get_build_info(): open-ended
    git_commit: str | None
    onednn_built: bool | None
    onednn_max_cpu_isa: str | None
    onednn_used: OneDnnUsed | None               # what oneDNN's verbose output says it ran on



# -- result --------------------------------------------------------------------------------

class ProcessSettings(TypedDict, total=False):
    env: dict[str, str]
    intra_op_threads: int
    inter_op_threads: int
    eager: bool
    cpus: list[int]


class KeySettings(TypedDict, total=False):
    declared: dict[str, str]
    process: ProcessSettings


class _KeyRequired(TypedDict):
    snippet_hash: str                             # the whole snippet file and the YAML's variants
    harness_version: str
    tensorflow: str | None
    keras: str | None
    settings: KeySettings | dict[str, str]        # the harness's form, or a hand-made file's
    runner: str


class Key(_KeyRequired, total=False):
    """What a result is a result of: it is stale when any of these changes."""

    source_hash: str          # what the variant ran (tfperf.cases.variant_source); when present it decides
                              # staleness, not snippet_hash (results from before it have none)


class Warmup(TypedDict, total=False):
    calls: int
    seconds: float


class _SummaryRequired(TypedDict):
    n: int
    median: float
    iqr: float
    ci_low: float
    ci_high: float
    min: float
    max: float


class Summary(_SummaryRequired, total=False):
    mean: float
    stdev: float


class Percentile(TypedDict):
    value: float
    ci_low: float | None                          # None: too few requests for this bound
    ci_high: float | None


class Tail(TypedDict):
    """Percentiles of a per-request pattern's latencies, every round pooled."""

    n: int
    p50: Percentile
    p90: Percentile
    p99: Percentile


class _TimingRequired(TypedDict):
    inner_loops: int
    summary: Summary
    samples: list[float]                          # seconds per call (per request: each round's median), in order


class Timing(_TimingRequired, total=False):
    stopped_by: StoppedBy
    rounds: list[int]                             # the round of each sample
    latencies: list[list[float]]                  # per-request patterns: every request's latency, per round
    tail: Tail


class _OutputRequired(TypedDict):
    max_abs_diff: float | None
    max_rel_diff: float | None
    within_tolerance: bool | None


class Output(_OutputRequired, total=False):
    rtol: float
    atol: float
    note: str | None
    compared_with: str | None                     # the reference's case id (harness 4 on)
    values: int | None                            # how many values the output has
    nonfinite: int | None                         # of them NaN/inf where the reference is finite


class _InterleaveRequired(TypedDict):
    id: str
    baseline: str


class Interleave(_InterleaveRequired, total=False):
    seed: str
    output_reference: str
    processes: int              # worker processes per settings group (absent: 1); round i in process i % processes


class _ResultRequired(TypedDict):
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
    timing: Timing | None
    output: Output | None
    finished_at: str


class Result(_ResultRequired, total=False):
    is_reference: bool
    is_default: bool
    warmup: Warmup | None
    started_at: str
    duration_s: float
    setup_s: float | None
    metrics: dict[str, float]                     # what a snippet's setup reports (load_s, ...)
    interleave: Interleave | None
    arrival: ArrivalRecord                        # absent: back to back


# -- noise, breakdowns, scenarios ----------------------------------------------------------

class _NoiseRequired(TypedDict):
    case_id: str
    env_id: str | None
    ratio: float
    ci_low: float
    ci_high: float
    rel_noise: float
    time: str


class NoiseTail(TypedDict):
    """The A/A ratio of a per-request pattern's 99th percentiles."""

    ratio: float
    ci_low: float
    ci_high: float
    rel_noise: float


class Noise(_NoiseRequired, total=False):
    """An A/A pair: the baseline measured twice."""

    key_hash: str
    interleave: str
    samples: list[float]
    rounds: list[int]
    arrival: str                                  # the pattern's id; absent: back to back
    latencies: list[list[float]]
    p99: NoiseTail


class Category(TypedDict):
    name: str
    seconds: float
    share: float


class _TopFunctionRequired(TypedDict):
    function: str
    cumulative_s: float
    calls: int


class TopFunction(_TopFunctionRequired, total=False):
    own_s: float


class _BreakdownRequired(TypedDict):
    case_id: str
    topic: str
    variant: str
    params: dict[str, Scalar]
    settings: dict[str, str]
    key_hash: str
    env_id: str | None
    calls: int
    total_s: float
    categories: list[Category]
    top_functions: list[TopFunction]


class Breakdown(_BreakdownRequired, total=False):
    tool: str


class MachineState(TypedDict, total=False):
    load: list[float] | None
    governor: str | None
    freq_mhz: float | None
    probe_ms: float | None     # measure.host_probe's milliseconds; absent in runs before it


class _ScenarioRequired(TypedDict):
    id: str
    topic: str
    params: dict[str, Scalar]
    runner: str
    baseline: str
    cases: list[str]
    rounds: int
    stopped_by: ScenarioStoppedBy
    seconds: float
    before: MachineState
    after: MachineState
    loaded: bool
    time: str


class Scenario(_ScenarioRequired, total=False):
    seed: str
    rounds_seconds: float
    budget_s: float                               # seconds of rounds given before any extension
    budget_scale: float                           # budget_s was the profile's times this; absent: 1
    workers: int
    widest_rel_ci: float | None
    aa_noise: float | None
    others_share: float | None
    arrival: str                                  # the pattern's id; absent: back to back


# -- the file ------------------------------------------------------------------------------

class _RunnerRequired(TypedDict):
    label: str


class Runner(_RunnerRequired, total=False):
    description: str | None
    contributed_by: str | None


class _ResultsDocRequired(TypedDict):
    schema_version: Literal[2]
    runner: Runner
    profile: Profile
    environments: dict[str, Environment]
    results: list[Result]
    noise: list[Noise]
    breakdowns: list[Breakdown]
    scenarios: list[Scenario]


class ResultsDoc(_ResultsDocRequired, total=False):
    tfperf_version: str


# -- identifiers ---------------------------------------------------------------------------

def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def key_hash(key: Mapping[str, object]) -> str:
    """16 hex digits identifying a result's complete key (snippet hash, harness
    version, TensorFlow and Keras versions, settings, runner)."""
    return _digest(key)


def env_id(env: Mapping[str, object]) -> str:
    """16 hex digits identifying an environment record, ignoring when it was taken."""
    return _digest({k: v for k, v in env.items() if k != "time"})


def params_id(params: Mapping[str, object]) -> str:
    """"batch=1,model=tiny": the parameters sorted by name, booleans lower-case; "" for
    none (as the stored case ids of such a topic read: "<topic>//<settings>/<variant>")."""
    return ",".join(f"{k}={_fmt(v)}" for k, v in sorted(params.items()))


def settings_id(settings: Mapping[str, object]) -> str:
    """"keras=3,threads=1": the process settings sorted by name; "default" for none."""
    return ",".join(f"{k}={v}" for k, v in sorted(settings.items())) or "default"


def case_id(topic: str, params: Mapping[str, object], settings: Mapping[str, object], variant: str,
            aa: bool = False, arrival: str = Pattern.BACK_TO_BACK.value) -> str:
    """"<topic>/<params_id>/<settings_id>/<variant>", with "@<arrival id>" for a pattern of
    requests other than back to back ("@idle-10ms") and "#aa" for the second measurement
    of an A/A noise pair."""
    return f"{topic}/{params_id(params)}/{settings_id(settings)}/{variant}{suffix(arrival)}" + ("#aa" if aa else "")


def _fmt(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)
