"""Which stored results count: stale marking, the newest result per case, history.

Nothing is dropped: a result whose key no longer matches the current snippet is kept
and marked stale; the page shows it as such. Among several results of one case, the one
of the newest TensorFlow release is current (then the newest non-stale ok one); the
others remain history (verdicts and charts across versions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ... import HARNESS_VERSION
from ...cases import Topic
from .records import Measurement
from .versions import HISTORY_PROFILE, is_development, release_key


def mark_stale(measurements: Iterable[Measurement], topics: Mapping[str, Topic],
               harness_version: str = HARNESS_VERSION) -> None:
    """Set ``stale`` and ``stale_reason`` on each measurement, comparing its key with the
    key the current snippet and harness would give it."""
    for m in measurements:
        topic = topics.get(m.topic)
        reasons = []
        if topic is None:
            reasons.append("the topic no longer exists")
        elif "source_hash" in m.key:
            if m.key["source_hash"] != topic.source_hashes.get(m.variant):
                reasons.append("the code this variant runs, or its entry in the topic YAML, changed since")
        elif m.key.get("snippet_hash") != topic.snippet_hash:
            reasons.append("the snippet or its case grid changed since")
        if str(m.key.get("harness_version")) != str(harness_version):
            reasons.append(f"the harness changed since (it measured with version {m.key.get('harness_version')}, "
                           f"this is {harness_version})")
        m.stale = bool(reasons)
        m.stale_reason = "; ".join(reasons) or None


def _rank(m: Measurement) -> tuple[Any, ...]:
    # Within one TensorFlow release: current beats stale, the runner's main profile beats
    # the history profile (the published grid is not replaced by the smaller one that
    # measured the same release), ok beats failed, then newest first.
    return (not m.stale, m.source.profile != HISTORY_PROFILE, m.ok, m.finished_at)


def per_version(measurements: Iterable[Measurement], ok_only: bool = False) -> list[Measurement]:
    """One measurement per (runner, case_id, TensorFlow release): the best by the rule of
    :func:`current`. Stale results are left out (their key no longer matches the code);
    with ``ok_only``, failed and unavailable ones too."""
    best: dict[tuple[str, str, str], Measurement] = {}
    for m in measurements:
        if m.stale or (ok_only and not m.ok):
            continue
        k = (m.runner, m.case_id, m.tensorflow)
        if k not in best or _rank(m) > _rank(best[k]):
            best[k] = m
    return sorted(best.values(), key=lambda m: (m.runner, m.case_id, release_key(m.tensorflow), m.finished_at))


def current(measurements: Iterable[Measurement]) -> list[Measurement]:
    """One measurement per (runner, case_id): from the newest TensorFlow release measured
    (an older release's result, however recent, never displaces it; the others are
    history), and within it the best by :func:`_rank` (so a failure of the newest release
    is shown as such). A non-stale result beats a stale one of any release. A development
    build (tf-nightly) is never current: its results are history only, a column apart."""
    best: dict[tuple[str, str], Measurement] = {}

    def rank(m: Measurement) -> tuple[Any, ...]:
        r = _rank(m)
        return (r[0], release_key(m.tensorflow), *r[1:])

    # A history profile that does not vary a parameter of the runner's main grid (serving's
    # history has no `model`) names its cases without it: other case ids for the same
    # scenarios, which would stand beside the main ones on the page. Such results are
    # history only; a history case with the main grid's parameters still fills a gap.
    measurements = list(measurements)
    main: dict[tuple[str, str], set[str]] = {}
    for m in measurements:
        if not m.stale and m.source.profile != HISTORY_PROFILE:
            main.setdefault((m.runner, m.topic), set()).update(m.params)
    for m in measurements:
        if m.source.profile == HISTORY_PROFILE and set(m.params) < main.get((m.runner, m.topic), set()):
            continue
        if is_development(m.tensorflow):
            continue
        k = (m.runner, m.case_id)
        if k not in best or rank(m) > rank(best[k]):
            best[k] = m
    return sorted(best.values(), key=lambda m: (m.runner, m.case_id))


def history(measurements: Iterable[Measurement]) -> list[Measurement]:
    """The ok, non-stale measurement of each (runner, case_id) per TensorFlow release:
    the input for trends and charts across versions."""
    return per_version(measurements, ok_only=True)
