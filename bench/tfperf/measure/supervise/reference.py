"""A scenario's output reference: the case whose first output every settings group checks
its own against, and the file that holds that output.

The baseline (the reference variant under the baseline settings) is prepared first and
saves its first output to the scenario's file; when it cannot run (Keras 3 before
TensorFlow 2.16), the first reference variant of another group that does takes its place.
The cases of the other settings groups are sent the file and that case's id, and compare
with it in their own process (``worker.outputs``); the cases of the reference's own group
compare with the reference output their worker already holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ..worker.protocol import CompareWith
from .tasks import Task


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

    def check(self, task: Task) -> OutputCheck:
        """What ``task``'s worker needs to check its output: to save it to the file while no
        reference has saved one and the task is a reference variant (or is the reference
        itself, prepared again); to compare with the file when the reference is of another
        settings group; nothing when it is of the reference's own group."""
        ref = self.task
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
