"""The messages between the parent (``measure/supervise/pool.py``,
``measure/supervise/scenario.py``) and a worker process (``measure/worker/serve.py``), as
types: one JSON object per line, each kind a TypedDict, told apart by its tag (``cmd`` from
the parent, ``type`` from the worker).

The order of the exchange is in serve.py's docstring; ``tests/measure/worker/test_protocol.py`` holds the
message kinds that docstring names equal to the tags of :data:`Command` and :data:`Answer`.
Types only: JSON carries no types, and both ends are this package, so a received line is
read as the union of what the other end sends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    # Types only: the worker runs in TensorFlow venvs without the store's dependencies
    # (jsonschema), and importing tfperf.store would load them (tests/measure/worker/test_worker_imports.py).
    from ...arrival import ArrivalRecord
    from ...cases import CategoryRule
    from ...store.record_types import (
        Category,
        Environment,
        Output,
        ProcessSettings,
        Scalar,
        Status,
        TopFunction,
        Warmup,
    )


# -- the job: the first line the parent writes, before any command --------------------------


class Job(TypedDict):
    process: ProcessSettings           # fixed before TensorFlow is imported (cases.BUILTIN_SETTINGS)
    settings: dict[str, str]           # the settings group, as declared
    runner: str
    git_commit: str | None


# -- what a command carries ----------------------------------------------------------------


class BudgetFields(TypedDict):
    """``budget.Budget`` as JSON (its fields)."""

    min_samples: int
    max_samples: int
    target_rel_ci: float
    budget_s: float
    warmup_s: float
    min_sample_s: float


class Tolerance(TypedDict):
    rtol: float
    atol: float


class CompareWith(TypedDict):
    """The scenario's output reference, saved by another worker (``outputs.save``)."""

    path: str
    case_id: str


class CaseFields(TypedDict):
    """What a worker needs to know of a case (``orchestrate`` builds them once per case)."""

    case_id: str
    snippet: str                       # the snippet file
    fn: str
    setup: str
    params: dict[str, Scalar]
    budget: BudgetFields
    tolerance: Tolerance
    is_reference: bool
    slot: str                          # topic|params|settings: whose reference output this group keeps
    reference_fn: str
    reference_setup: str
    reference_id: str | None


class Sampling(TypedDict):
    """How a breakdown samples a case: the calls it samples, and the categories their time
    is charged to."""

    calls: int
    categories: list[CategoryRule]


class _CaseTaskRequired(CaseFields):
    id: str                            # the task id the answers name
    kind: Literal["case", "breakdown"]


class CaseTask(_CaseTaskRequired, total=False):
    """One case to set up and measure (``prepare``)."""

    save_reference: str                # this case is the scenario's output reference: save it here
    compare_with: CompareWith          # check against the reference another worker saved
    arrival: ArrivalRecord             # a per-request pattern (its declared fields); absent: back to back


class BreakdownTask(CaseTask):
    """A case to break down (``breakdown``)."""

    calls: int
    categories: list[CategoryRule]


# -- parent -> worker ------------------------------------------------------------------------


class PrepareCommand(TypedDict):
    cmd: Literal["prepare"]
    task: CaseTask


class _SampleCommandRequired(TypedDict):
    cmd: Literal["sample"]
    id: str
    warm: bool                         # the block before ran in another process


class SampleCommand(_SampleCommandRequired, total=False):
    schedule: list[float]              # poisson: the block's arrival times, seconds from its start
    back_to_back: bool                 # a per-request pattern's case: a block of calls timed together instead


class ReleaseCommand(TypedDict):
    cmd: Literal["release"]
    id: str


class BreakdownCommand(TypedDict):
    cmd: Literal["breakdown"]
    task: BreakdownTask


Command = PrepareCommand | SampleCommand | ReleaseCommand | BreakdownCommand


# -- worker -> parent ------------------------------------------------------------------------


class PrepareTiming(TypedDict):
    """A prepared case's timing before any sample: the calls per sample block."""

    inner_loops: int


class WorkerResult(TypedDict):
    """A case as its worker prepared it: the parent adds the case's identity and, once
    sampled, its timing (``supervise.records.result_record``)."""

    status: Status
    error: str | None
    first_call_s: float | None
    warmup: Warmup | None
    timing: PrepareTiming | None
    output: Output | None
    setup_s: float | None
    metrics: dict[str, float]
    started_at: str
    finished_at: str
    duration_s: float


class BreakdownResult(TypedDict):
    """Where a case's calls spend their time (a ``Breakdown`` record without its identity)."""

    tool: str
    calls: int
    total_s: float
    categories: list[Category]
    top_functions: list[TopFunction]


class Ready(TypedDict):
    type: Literal["ready"]
    env: Environment
    import_s: float
    unavailable: str | None            # why no case of this settings group can exist here


class Prepared(TypedDict):
    type: Literal["prepared"]
    id: str
    result: WorkerResult


class _SampledRequired(TypedDict):
    type: Literal["sample"]
    id: str
    seconds: float                     # per call, over one sample block; per request: the block's median latency


class Sampled(_SampledRequired, total=False):
    latencies: list[float]             # per-request patterns: every request's latency, in order


class SampleFailed(TypedDict):
    type: Literal["sample_failed"]
    id: str
    error: str


class Released(TypedDict):
    type: Literal["released"]
    id: str


class BreakdownDone(TypedDict):
    type: Literal["breakdown"]
    id: str
    breakdown: BreakdownResult


class BreakdownFailed(TypedDict):
    type: Literal["breakdown_failed"]
    id: str
    error: str


class UnknownCommand(TypedDict):
    type: Literal["error"]
    error: str


Answer = Ready | Prepared | Sampled | SampleFailed | Released | BreakdownDone | BreakdownFailed | UnknownCommand
