"""What a run finds already stored in its results file, read when it plans and again each
time it is about to measure a scenario.

Two ``tfperf run`` processes may write one results file (two terminals, or two topics run
at once). Each claims a scenario before measuring it (:class:`tfperf.store.Claims`)
and then reads the file again: cases the other run stored meanwhile are not measured a
second time. Without that second look, the later run would measure them again and then
either be refused by the store or store every result twice.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ... import store
from ...errors import ResultsFileError
from ...hardware import cpu_identity
from ...store.record_types import key_hash
from .tasks import Task

Ident = tuple[str, str]          # (case_id, key_hash): one case measured with one key


@dataclass(frozen=True)
class Stored:
    """What a results file held when it was read."""

    done: frozenset[Ident] = frozenset()       # needs no new measurement (per --force/--retry-failed)
    seen: frozenset[Ident] = frozenset()       # has a result of any status
    breakdowns: frozenset[str] = field(default_factory=frozenset)   # key hashes (empty with --force)
    cpus: frozenset[str] = frozenset()         # the CPUs its environments name (hardware.cpu_identity)


def read_stored(path: Path, force: bool = False, retry_failed: bool = False) -> Stored:
    """The file's results as the run sees them: with ``force`` nothing counts as done; with
    ``retry_failed`` only ok results do; otherwise every result does (a failure is data).
    A path that is there but is not a regular file (a link, a folder) is refused by the
    store, naming it, before anything is measured."""
    if not os.path.lexists(path):
        return Stored()
    doc = store.load(path)
    results = doc["results"]
    seen = frozenset((r["case_id"], r["key_hash"]) for r in results)
    cpus = frozenset(cpu_identity(dict(e)) for e in doc["environments"].values())
    if force:
        return Stored(seen=seen, cpus=cpus)
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
