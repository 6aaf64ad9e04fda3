"""A topic's case grid, read from ``snippets/<topic>.yaml``, expanded into cases.

A case is one (parameters, process settings, variant) of a topic. Cases with the same
process settings share a worker process; the settings that must be fixed before
TensorFlow is imported (environment variables, thread counts, eager off) are what
separate them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..arrival import BACK_TO_BACK, Arrival, suffix
from ..stats import Budget
from ..store import record_types
from ..store.record_types import ProcessSettings, Scalar
from ..store.schema import NAME_RULE, is_name
from .topic import Topic, load_topic
from .topic_schema import MAX_COUNT, require, shown

# Budgets per profile; a topic may override any field under profiles.<name>.budget.
# ``processes``: worker processes per settings group, taking the rounds in turn
# (supervise.rounds.RoundRule): the full profile, whose intervals the pages publish,
# measures each group in two, so a difference between processes widens the interval
# instead of hiding in it.
DEFAULT_BUDGETS: dict[str, dict[str, float]] = {
    "quick": {"min_samples": 7, "max_samples": 30, "target_rel_ci": 0.05, "budget_s": 0.6,
              "warmup_s": 0.1, "min_sample_s": 0.005},
    "full": {"min_samples": 15, "max_samples": 200, "target_rel_ci": 0.02, "budget_s": 3.0,
             "warmup_s": 0.3, "min_sample_s": 0.02, "processes": 2},
    # One TensorFlow version per run (tfperf run --tf V): as quick, a topic narrows the grid.
    "history": {"min_samples": 7, "max_samples": 30, "target_rel_ci": 0.05, "budget_s": 0.6,
                "warmup_s": 0.1, "min_sample_s": 0.005},
}

# Process settings every topic understands. A topic may declare more under `settings:`.
# Each value maps to: env (set before TensorFlow is imported), intra_op_threads,
# inter_op_threads, eager (False = tf.compat.v1.disable_eager_execution()), cpus (the CPU
# numbers the worker is pinned to before TensorFlow is imported, e.g. [1] or "0,1"; Linux).
BUILTIN_SETTINGS: dict[str, dict[str, ProcessSettings]] = {
    "keras": {
        "3": {"env": {"TF_USE_LEGACY_KERAS": "0"}},
        "2": {"env": {"TF_USE_LEGACY_KERAS": "1"}},
    },
}

PROCESS_FIELDS = {"env", "intra_op_threads", "inter_op_threads", "eager", "cpus"}


@dataclass
class Case:
    topic: str
    variant: str
    params: dict[str, Scalar]
    settings: dict[str, str]          # setting name -> value, as declared ({"keras": "3"})
    process: ProcessSettings          # resolved process settings (see BUILTIN_SETTINGS)
    snippet: str                      # path of the snippet file
    fn: str                           # function in the snippet that is timed
    setup: str                        # function(params) -> kwargs for fn
    reference: str                    # variant whose output the others are checked against
    default: str                      # "the default way" users reach for
    tolerance: dict[str, float]
    timeout_s: float
    budget: Budget
    snippet_hash: str                 # the whole snippet file's (results measured before source hashes)
    source_hash: str                  # what the variant runs (:mod:`.variant_source`): its results' staleness
    aa: bool = False                  # the second measurement of an A/A noise pair
    arrival: Arrival = BACK_TO_BACK   # how its requests arrive (a scenario per pattern)

    @property
    def params_id(self) -> str:
        return record_types.params_id(self.params)

    @property
    def scenario_id(self) -> str:
        """"<params_id>" for back to back, "<params_id>@<arrival id>" for another pattern:
        the cases measured side by side (one interleave each, split only when the settings
        groups do not fit in memory)."""
        return self.params_id + suffix(self.arrival.id)

    @property
    def settings_id(self) -> str:
        return record_types.settings_id(self.settings)

    @property
    def case_id(self) -> str:
        return record_types.case_id(self.topic, self.params, self.settings, self.variant, self.aa, self.arrival.id)

    @property
    def group_key(self) -> str:
        """Cases with equal group keys may share one worker process."""
        return json.dumps(self.process, sort_keys=True)

    @property
    def is_reference(self) -> bool:
        return self.variant == self.reference


def _resolve_values(values: Iterable[Any], cores: int) -> list[Any]:
    """Expand the token "1..cores" into 1, 2, 4, ..., cores (powers of two plus cores)."""
    out: list[Any] = []
    for v in values:
        if v == "1..cores":
            n = 1
            while n < cores:
                out.append(n)
                n *= 2
            out.append(cores)
        else:
            out.append(v)
    seen: list[Any] = []
    for v in out:
        if v not in seen:
            seen.append(v)
    return seen


def _cpu_list(val: Any, path: Path, where: str) -> list[int]:
    """CPU numbers to pin a worker to: a list of integers or a string like "1" or "0,2"."""
    items = str(val).split(",") if isinstance(val, (str, int)) else val if isinstance(val, list) else []
    try:
        cpus = sorted({int(str(c).strip()) for c in items})
    except (TypeError, ValueError):
        cpus = []
    require(bool(cpus) and cpus[0] >= 0, path, where, f"expected CPU numbers such as [1] or \"0,1\", got {val!r}")
    return cpus


def _process_for(topic: Topic, settings: dict[str, str], cores: int) -> ProcessSettings:
    # The topic's settings_map is YAML: each field is converted (or passed on) here.
    declared: dict[str, Mapping[str, Mapping[str, Any]]] = {**BUILTIN_SETTINGS, **topic.settings_map}
    env: dict[str, str] = {}
    process: ProcessSettings = {"env": env}
    for key, value in sorted(settings.items()):
        table = declared.get(key)
        require(table is not None, topic.path, f"settings.{key}", "no mapping for this setting")
        entry = table.get(str(value)) if table else None
        if entry is None and table is not None and "*" in table:
            entry = _filled(table["*"], str(value))
        require(entry is not None, topic.path, f"settings.{key}", f"no mapping for value {value!r}")
        assert entry is not None
        for fld, val in entry.items():
            require(fld in PROCESS_FIELDS, topic.path, f"settings_map.{key}.{value}.{fld}", "unknown process field")
            where = f"settings_map.{key}.{value}.{fld}"
            if fld == "env":
                require(isinstance(val, dict), topic.path, where, "must map variables to values")
                env.update({str(k): str(v) for k, v in val.items()})
            elif fld == "intra_op_threads":
                process["intra_op_threads"] = _threads(val, topic.path, where)
            elif fld == "inter_op_threads":
                process["inter_op_threads"] = _threads(val, topic.path, where)
            elif fld == "cpus":
                process["cpus"] = _cpu_list(val, topic.path, where)
            else:                                   # "eager", the last of PROCESS_FIELDS: as the YAML says
                require(isinstance(val, bool), topic.path, where, f"must be true or false, got {shown(val)}")
                process["eager"] = val
    return process


def _filled(template: Any, value: str) -> Any:
    """A ``"*"`` entry of a settings_map with ``{value}`` replaced in every text of it."""
    if isinstance(template, str):
        return template.replace("{value}", value)
    if isinstance(template, dict):
        return {k: _filled(v, value) for k, v in template.items()}
    if isinstance(template, list):
        return [_filled(v, value) for v in template]
    return template


def _threads(val: Any, path: Path, where: str) -> int:
    """A thread count of a settings_map entry, once ``{value}`` is replaced: a whole number."""
    try:
        n = int(str(val).strip())
    except ValueError:
        n = -1
    require(0 <= n <= MAX_COUNT, path, where, f"must be a whole number from 0 to {MAX_COUNT}, got {shown(val)}")
    return n


def expand(topic: Topic, profile: str, cores: int | None = None) -> list[Case]:
    """All cases of a loaded topic (:func:`load`) for a profile, in a stable order: per
    arrival pattern (back to back first, as the profile lists them), per settings group, per
    parameter combination, the reference variant first (the others are checked against it)."""
    cores = cores or os.cpu_count() or 1
    prof = topic.profiles.get(profile)
    require(prof is not None, topic.path, f"profiles.{profile}", "profile not declared for this topic")
    assert prof is not None
    params, settings = prof.params, prof.settings
    budget = _budget(topic, profile)
    variants = topic.variants
    only = prof.variants if prof.variants is not None else list(variants)
    order = [topic.reference] + [v for v in only if v != topic.reference]
    excludes = topic.exclude + prof.exclude
    pkeys = sorted(params)
    skeys = sorted(settings)
    cases: list[Case] = []
    for arrival, svals in itertools.product(prof.arrivals,
                                            itertools.product(*(_resolve_values(settings[k], cores) for k in skeys))):
        sdict = {k: str(v) for k, v in zip(skeys, svals)}
        process = _process_for(topic, sdict, cores)
        for pvals in itertools.product(*(params[k] for k in pkeys)):
            pdict = dict(zip(pkeys, pvals))
            for vname in order:
                scope = {**pdict, **sdict, "variant": vname, "arrival": arrival.id}
                if any(all(_matches(scope.get(k), want) for k, want in ex.items()) for ex in excludes):
                    continue
                vdef = variants[vname]
                cases.append(Case(
                    topic=topic.name, variant=vname, params=pdict, settings=sdict, process=process,
                    snippet=str(topic.snippet), fn=vdef["fn"], setup=vdef.get("setup", topic.setup),
                    reference=topic.reference, default=topic.default, tolerance=dict(topic.tolerance),
                    timeout_s=prof.timeout_s if prof.timeout_s is not None else topic.timeout_s,
                    budget=budget, snippet_hash=topic.snippet_hash, source_hash=topic.source_hashes[vname],
                    arrival=arrival,
                ))
    return cases


def _budget(topic: Topic, profile: str) -> Budget:
    fields: dict[str, Any] = {**DEFAULT_BUDGETS[profile], **topic.profiles[profile].budget}  # names, types: on load
    return Budget(**fields)


def load(path: str | Path, cores: int | None = None) -> Topic:
    """A topic YAML and its snippet read and checked completely: its keys and values
    (:func:`.topic.load_topic`), then its grid in every profile it declares. A setting
    without a mapping, a thread count that is not a number, a parameter value that is not a
    name, a budget whose minimum is above its maximum or a grid with no case fails here,
    naming the file and the key; :func:`expand` of a loaded topic does not fail. ``tfperf
    run`` and the analysis both load topics through this, so they accept exactly the same ones."""
    topic = load_topic(path)
    cores = cores or os.cpu_count() or 1
    for profile, prof in topic.profiles.items():
        budget = _budget(topic, profile)
        require(budget.min_samples <= budget.max_samples, topic.path, f"profiles.{profile}.budget",
                f"min_samples ({budget.min_samples}) is above max_samples ({budget.max_samples})")
        for key, values in sorted(prof.settings.items()):
            for value in _resolve_values(values, cores):
                _process_for(topic, {key: str(value)}, cores)
                require(is_name(str(value)), topic.path, "params", f"value {str(value)!r} is not a valid name ({NAME_RULE})")
        for values in prof.params.values():
            for value in values:
                require(is_name(str(value)), topic.path, "params", f"value {str(value)!r} is not a valid name ({NAME_RULE})")
        require(bool(expand(topic, profile, cores)), topic.path, f"profiles.{profile}",
                "the grid has no case (every case is excluded)")
    return topic


def discover(snippets_dir: str | Path) -> list[Topic]:
    """Every topic of a snippets folder (``*.yaml``), loaded by :func:`load`."""
    return [load(p) for p in sorted(Path(snippets_dir).glob("*.yaml"))]


def _matches(value: Any, want: Any) -> bool:
    if isinstance(want, list):
        return value in want or str(value) in map(str, want)
    return value == want or str(value) == str(want)


def shard(cases: list[Case], index: int, count: int) -> list[Case]:
    """Shard ``index`` (1-based) of ``count``. All variants of one parameter combination
    stay together (the output check needs the reference beside them); combinations are
    assigned by a stable hash, so the shards partition the case list whatever the order."""
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: index must be between 1 and {count}")
    def bucket(c: Case) -> int:
        h = hashlib.sha256(f"{c.topic}|{c.group_key}|{c.params_id}".encode()).hexdigest()
        return int(h, 16) % count
    return [c for c in cases if bucket(c) == index - 1]
