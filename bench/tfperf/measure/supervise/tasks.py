"""A scenario's tasks: what ``orchestrate`` plans for a worker to do, with the key its
record is stored under, and what ``scenario`` sends for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from ...cases import Case
from ...store.record_types import Key
from ..worker.protocol import CaseFields, CaseTask


@dataclass
class Task:
    """One thing a worker does: measure a case, or sample where a call spends its time."""

    id: str
    kind: Literal["case", "breakdown"]
    case: Case
    key: Key
    payload: CaseFields           # BreakdownFields for a breakdown

    def worker_payload(self) -> CaseTask:
        """The task as a ``prepare`` or ``breakdown`` command carries it: its fields, id and
        kind, and under a per-request pattern the case's arrival pattern."""
        task = cast(CaseTask, {**self.payload, "id": self.id, "kind": self.kind})
        if self.kind == "case" and self.case.arrival.per_request:
            task["arrival"] = self.case.arrival.record()
        return task
