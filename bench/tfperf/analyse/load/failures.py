"""Failed results in words a reader sees: a claim whose cases only failed says "failed: 3
cases", with the first error, rather than "no results yet" (which would hide that the run
happened and broke); and the failures of every topic are listed on the Data page, so that
a topic without a page of its own does not hide them either.

Plain strings and measurements; the renderer escapes them.
"""

from __future__ import annotations

from collections.abc import Iterable

from .records import Measurement
from .versions import UNAVAILABLE

ERROR_CHARS = 200      # a table cell shows this much of an error line


def error_line(m: Measurement, limit: int = ERROR_CHARS) -> str:
    """What went wrong, in one line: the status and the last non-empty line of the error
    text (a traceback ends with the exception and its message)."""
    lines = [line.strip() for line in (m.error or "").splitlines() if line.strip()]
    text = f"{m.status}: {lines[-1] if lines else 'no error text'}"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def distinct(ms: Iterable[Measurement]) -> list[Measurement]:
    """Each (runner, case) once, in the order first met."""
    seen: set[tuple[str, str]] = set()
    out = []
    for m in ms:
        if (m.runner, m.case_id) not in seen:
            seen.add((m.runner, m.case_id))
            out.append(m)
    return out


def failure_summary(ms: Iterable[Measurement]) -> str | None:
    """"failed: 2 cases (first error: error: ValueError: boom)", or None when none failed.
    Results ``unavailable`` in their TensorFlow release (the variant does not exist there)
    are no failure: "not available in this version: 2 cases (Keras 3 is not ...)"."""
    ms = list(ms)
    failed = distinct(m for m in ms if m.status not in ("ok", UNAVAILABLE))
    if not failed:
        na = distinct(m for m in ms if m.status == UNAVAILABLE)
        if not na:
            return None
        why = error_line(na[0])[len(UNAVAILABLE) + 2:]
        return f"not available in this version: {len(na)} case{'s' if len(na) != 1 else ''} ({why})"
    n = len(failed)
    return f"failed: {n} case{'s' if n != 1 else ''} (first error: {error_line(failed[0])})"


def failed_results(current: Iterable[Measurement]) -> list[Measurement]:
    """The current results that failed (not those unavailable in their release), by topic,
    runner and case."""
    return sorted((m for m in current if m.status not in ("ok", UNAVAILABLE)),
                  key=lambda m: (m.topic, m.runner, m.case_id))
