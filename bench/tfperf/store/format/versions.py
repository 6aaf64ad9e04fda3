"""Which tfperf wrote a results file, against the tfperf reading it.

A file passes validation when its schema version is one this tfperf reads, but a newer
tfperf may have measured differently within the same schema (a changed harness, another
rule for a field). The merged file records the version that merged it, so the writer's
version would be lost without a word: ``tfperf merge`` warns, naming both versions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ... import __version__
from .validate import short

_RELEASE = re.compile(r"(\d{1,9}(?:\.\d{1,9}){0,9})(?!\d)")     # bounded: a hostile "999…9" is no version
_PLAIN = re.compile(r"[\w.+-]{1,40}")


def release(version: Any) -> tuple[int, ...] | None:
    """The numeric release of a version string ("0.2.0rc1" -> (0, 2, 0)), without trailing
    zeros so that "1.0" equals "1"; None when it does not start with one ("fixture")."""
    m = _RELEASE.match(version) if isinstance(version, str) else None
    if m is None:
        return None
    parts = [int(p) for p in m.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def newer_than_this(version: Any, this: str = __version__) -> bool:
    """True when ``version`` names a later release than ``this`` (both must be readable)."""
    theirs, ours = release(version), release(this)
    return theirs is not None and ours is not None and theirs > ours


def newer_warning(path: str, doc: Mapping[str, object], this: str = __version__) -> str | None:
    """One line for ``tfperf merge`` about a file written by a newer tfperf than ``this``,
    else None."""
    theirs = doc.get("tfperf_version")
    if not isinstance(theirs, str) or not newer_than_this(theirs, this):
        return None
    shown = theirs if _PLAIN.fullmatch(theirs) else short(theirs, 40)
    return (f"warning: {path} was written by tfperf {shown}, newer than this tfperf {this}; it was merged, "
            f"and the merged file says {this}: update this checkout (git pull) and merge again if the newer "
            "tfperf measures differently")
