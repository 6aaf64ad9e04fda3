"""The one root of user-facing errors. The CLI catches ``TfperfError`` and prints one line."""

from __future__ import annotations


class TfperfError(Exception):
    """An error the user can act on; ``str()`` is the whole message."""


class CaseGridError(TfperfError):
    """A topic's YAML case grid is malformed."""

    def __init__(self, path: str, field: str, problem: str) -> None:
        self.path, self.field, self.problem = path, field, problem
        super().__init__(f"{path}: {field}: {problem}")


class ResultsFileError(TfperfError):
    """A results file cannot be read, validated, migrated or written."""

    def __init__(self, path: str, field: str, problem: str) -> None:
        self.path, self.field, self.problem = path, field, problem
        super().__init__(f"{path}: {field}: {problem}")
