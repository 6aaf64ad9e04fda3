"""Which stored results count: stale marking, the newest result per case, history.

Nothing is dropped: a result whose key no longer matches the current snippet is kept
and marked stale; the page shows it as such. Among several results of one case, the one
of the newest TensorFlow release is current (then the newest non-stale ok one); the
others remain history (verdicts and charts across versions).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ... import HARNESS_VERSION
from ...cases import Claim, Control, Question
from .records import Measurement
from .versions import HISTORY_PROFILE, is_development, release_key


@dataclass(frozen=True)
class TopicInfo:
    """What the analysis needs from a topic's YAML (see tfperf.cases.Topic)."""

    name: str
    title: str
    snippet_hash: str
    default: str
    reference: str
    claims: tuple[Claim, ...]
    variant_labels: dict[str, str]            # variant -> its display name (tfperf.cases.topic._display)
    yaml_path: str
    groups: dict[str, list[str]] = field(default_factory=dict)   # variants a chart shows together
    bounds: tuple[str, ...] = ()              # variants that are limits to compare with, never recommended
    param_values: dict[str, list[Any]] = field(default_factory=dict)   # declared order, all profiles
    # Comparisons between process settings (e.g. cpu_threads): the group every other group
    # is compared with, the claims that compare groups, and how to name a setting's values.
    baseline_settings: dict[str, str] = field(default_factory=dict)
    settings_claims: tuple[Claim, ...] = ()
    controls: tuple[Control, ...] = ()        # settings pairs that must measure the same (analyse/judge/controls.py)
    settings_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    settings_values: dict[str, list[str]] = field(default_factory=dict)  # declared order, all profiles
    source_hashes: dict[str, str] = field(default_factory=dict)          # variant -> what it runs now
    # `per_call: {divide_by: <param>, unit: <word>}`: one call does <param> units of work.
    per_call: dict[str, str] | None = None
    # `per_step: {param: <param>}`: a call runs <param> steps; fixed and per-step cost (analyse/judge/per_step.py).
    per_step: str | None = None
    questions: tuple[Question, ...] = ()      # what the page answers first (analyse/views/answers.py)
    names: dict[str, str] = field(default_factory=dict)    # variant -> its short name in the answers

    def value_label(self, name: str, value: object) -> str:
        """A parameter's or setting's value in reader words: its ``settings_labels`` text
        when the YAML gives one, else a name as it is ("mlp") and a number with its
        parameter ("batch 1")."""
        labels = self.settings_labels.get(name) or {}
        if str(value) in labels or "*" in labels:
            return self.setting_label(name, value)
        return str(value) if isinstance(value, str) and not value.isdigit() else f"{name} {value}"

    def display_name(self, variant: str) -> str:
        """The variant's short name (``names:``), else its label."""
        return self.names.get(variant) or self.variant_labels.get(variant, variant)

    def setting_label(self, name: str, value: object) -> str:
        """The YAML's `settings_labels` text for one value ("*" is a template), else name=value."""
        labels = self.settings_labels.get(name) or {}
        if str(value) in labels:
            return labels[str(value)]
        if "*" in labels:
            return labels["*"].replace("{value}", str(value))
        return f"{name}={value}"


def mark_stale(measurements: Iterable[Measurement], topics: dict[str, TopicInfo],
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
