"""The one-line errors of storing results (no TensorFlow)."""

from __future__ import annotations

from tfperf.measure.supervise import orchestrate


def test_a_schema_error_while_storing_is_one_line_not_a_type_error() -> None:
    """A ResultsSchemaError takes a list of problems, not (path, field, problem): re-raising
    it as its own type to add the scenario raised a TypeError traceback instead."""
    from tfperf.errors import ResultsFileError, ResultsWriteError
    from tfperf.store import ResultsSchemaError

    err = orchestrate.not_stored(ResultsSchemaError("r.json", [("results.0.key", "missing"), ("env", "bad")]), "t/box", 3)
    assert type(err) is ResultsFileError and "\n" not in str(err)
    assert str(err).startswith("r.json: results.0.key: missing (and 1 more: env); t/box was measured but not stored (3")
    full = orchestrate.not_stored(ResultsWriteError("r.json", "(file)", "cannot write: File too large"), "t/box", 3)
    assert type(full) is ResultsWriteError
