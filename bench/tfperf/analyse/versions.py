"""TensorFlow releases as a dimension of the results: which release a result was measured
with, their numeric order (2.9 before 2.12), and how a page names them.

The release of a result is ``result.key.tensorflow`` (what the worker imported), else
the ``versions.tensorflow`` of the environment the result names. The Keras generation is
no part of the version: a topic that measures both sets ``keras=2``/``keras=3`` as a
setting, so it is part of the scenario. Results of the ``history`` profile
(``tfperf run --tf V --profile history``) are the same runner with other software: they
never count as another runner.

A development build (a ``tf-nightly`` wheel: "2.23.0-dev20261125") is no release: it sorts
after every release, is named by its date ("nightly of 2026-11-25"), and is never counted
among the releases a finding holds in, nor shown as a page's current results.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..store.record_types import Environment

HISTORY_PROFILE = "history"
UNAVAILABLE = "unavailable"       # result status: the variant does not exist in that version

_NUMBERS = re.compile(r"\d+")
_RELEASE = re.compile(r"(\d+(?:\.\d+)*)(.*)")
_DEV = re.compile(r"[-.]?dev(\d{4})(\d{2})(\d{2})")


def is_development(version: str) -> bool:
    """A nightly development build ("2.23.0-dev20261125", pip's "2.23.0.dev20261125"), not a release."""
    return _DEV.search(version) is not None


def build_date(version: str) -> str | None:
    """The date of a development build, "2026-11-25"; None for a release."""
    m = _DEV.search(version)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else None


def nightly_label(version: str) -> str:
    """How a page names a development build: "nightly of 2026-11-25"."""
    return f"nightly of {build_date(version)}"


def tf_version(key: Mapping[str, object], env: Environment | None) -> str:
    """The TensorFlow release of a result: its key's ``tensorflow``, else its environment's
    ``versions.tensorflow``, else "?"."""
    versions = env.get("versions") if env else None
    v = key.get("tensorflow") or (versions.get("tensorflow") if versions else None)
    return str(v) if v else "?"


@lru_cache(maxsize=4096)
def release_key(version: str) -> tuple[Any, ...]:
    """A sort key that orders releases numerically: "2.9.3" < "2.12.1" < "2.16.0rc1" <
    "2.16.0" < "2.16.1" < any development build (ordered by its date). A leading label
    ("TF 2.12.1") is skipped; a string without a number ("?") sorts first. Remembered per
    string: a site build sorts by it over a million times, and the releases are a dozen."""
    date = build_date(version)
    if date is not None:
        return ((1 << 30,), 0, date)           # after every release: the next release, not yet out
    m = _RELEASE.search(version)
    if m is None:
        return ((), 0, version)
    nums = tuple(int(n) for n in m.group(1).split("."))
    while len(nums) > 1 and nums[-1] == 0:     # "2.16" is "2.16.0"
        nums = nums[:-1]
    suffix = m.group(2).strip()
    return (nums, 0 if suffix else 1, suffix)   # a pre-release before its release


def sort_versions(versions: Iterable[str]) -> list[str]:
    return sorted(set(versions), key=release_key)


def minor(version: str) -> str:
    """"2.15.1" -> "2.15"; a version without two numbers is returned as it is."""
    nums = _NUMBERS.findall(version)
    return f"{nums[0]}.{nums[1]}" if len(nums) >= 2 else version


def short_labels(versions: Iterable[str]) -> dict[str, str]:
    """How a page names each release: the minor ("2.15") when only one patch of that minor
    is among ``versions``, else the full version ("2.21.0", "2.21.1"); a development build
    by its date ("nightly of 2026-11-25")."""
    vs = sort_versions(versions)
    per_minor: dict[str, int] = {}
    for v in vs:
        per_minor[minor(v)] = per_minor.get(minor(v), 0) + 1
    return {v: nightly_label(v) if is_development(v) else minor(v) if per_minor[minor(v)] == 1 else v for v in vs}


def listing(labels: list[str]) -> str:
    """"2.12", "2.12 and 2.13", "2.12, 2.13 and 2.21"."""
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def span(labels: list[str]) -> str:
    """"2.15", or "2.12–2.15" for a run of consecutive measured versions."""
    return labels[0] if len(labels) == 1 else f"{labels[0]}–{labels[-1]}"
