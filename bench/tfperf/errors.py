"""The one root of user-facing errors. The CLI catches ``TfperfError`` and prints one line."""

from __future__ import annotations


class TfperfError(Exception):
    """An error the user can act on; ``str()`` is the whole message."""


def one_line(text: str) -> str:
    """``text`` with its line breaks written as ``\\n``: a file name or a YAML key may hold
    one, and every error is one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


class CaseGridError(TfperfError):
    """A topic's YAML case grid, or its snippet, is malformed."""

    def __init__(self, path: str, field: str, problem: str) -> None:
        self.path, self.field, self.problem = path, field, problem
        super().__init__(one_line(f"{path}: {field}: {problem}"))


class ResultsFileError(TfperfError):
    """A results file cannot be read, validated, migrated or written."""

    def __init__(self, path: str, field: str, problem: str) -> None:
        self.path, self.field, self.problem = path, field, problem
        super().__init__(one_line(f"{path}: {field}: {problem}"))


class ResultsWriteError(ResultsFileError):
    """A results file, or its lock or claims file, cannot be written: the file system refused
    (full, over the file-size limit, read-only, no permission). The file is as it was."""
