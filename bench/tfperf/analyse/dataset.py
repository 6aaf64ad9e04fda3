"""Everything the guide shows, computed once from the results files and the topic YAMLs.

``analyse(results_root, snippets_dir)`` returns a :class:`Dataset`; its methods are the
tables the renderer draws (it never computes statistics itself).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, update_wrapper
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from ..cases import Claim, Topic, load
from ..errors import ResultsFileError, TfperfError
from ..store.record_types import ResultsDoc
from .judge.arrivals import PatternTable, pattern_claims, pattern_ids, pattern_tables
from .judge.claims import ClaimResult, check_claim, check_settings_claim, is_settings_claim, plain_label
from .judge.per_step import BreakEven, TenRunView, breakeven_table, ten_run_view
from .judge.scenarios import (
    RatioCache,
    Recommendation,
    Scenario,
    SettingsSpeedup,
    exclusion_reason,
    noise_floor,
    recommend,
    scenarios,
    settings_speedups,
)
from .judge.version_verdicts import VersionStrip, version_strips
from .records import (
    ChartRow,
    LoadedBreakdown,
    Measurement,
    Noise,
    RowCase,
    Runner,
    SettingsRow,
    back_to_back,
    current,
    history,
    load_results,
    mark_stale,
    per_version,
    read_documents,
    settings_id,
)
from .versions import HISTORY_PROFILE, release_key


def load_topics(snippets_dir: str | Path) -> tuple[dict[str, Topic], list[TfperfError]]:
    """Each topic YAML of the folder, by its name, loaded by ``tfperf.cases.load`` as ``tfperf
    run`` loads it (so both accept the same topics); a topic that does not load is an error
    on the pages, not a crash."""
    topics, failed = _load_topics(snippets_dir)
    return topics, list(failed.values())


def _load_topics(snippets_dir: str | Path) -> tuple[dict[str, Topic], dict[str, TfperfError]]:
    """The topics that load, and the error of each one that does not, by its YAML's name."""
    topics: dict[str, Topic] = {}
    failed: dict[str, TfperfError] = {}
    for path in sorted(Path(snippets_dir).glob("*.yaml")):
        try:
            t = load(path)
        except TfperfError as exc:
            failed[path.stem] = exc
            continue
        topics[t.name] = t
    return topics, failed


_D = TypeVar("_D", bound="Dataset")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _once_per_dataset(method: Callable[Concatenate[_D, _P], _R]) -> Callable[Concatenate[_D, _P], _R]:
    """A :class:`Dataset` method computed once per dataset and arguments (its tables do not
    change once the files are read): the answers are kept in the dataset's ``_memo``, so
    that two datasets never share them."""
    def once(self: _D, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        key = (method.__name__, args, tuple(sorted(kwargs.items())))
        memo = self._memo
        if key not in memo:
            memo[key] = method(self, *args, **kwargs)
        return memo[key]  # type: ignore[no-any-return]
    update_wrapper(once, method)     # its name and docstring
    return once


@dataclass
class Dataset:
    results_root: str
    topics: dict[str, Topic]
    measurements: list[Measurement]
    noise: list[Noise]
    runners: dict[str, Runner]
    breakdowns: list[LoadedBreakdown]
    errors: list[TfperfError]
    cache: RatioCache = field(default_factory=RatioCache)
    files: list[Path] = field(default_factory=list)     # the results files that loaded (what the site publishes)
    topic_errors: dict[str, TfperfError] = field(default_factory=dict)   # topic (its YAML's name) -> why it did not load
    # Results and A/A pairs of the per-request arrival patterns (idle, poisson): apart from
    # ``measurements`` and ``noise``, which are back to back.
    arrivals: list[Measurement] = field(default_factory=list)
    arrival_noise: list[Noise] = field(default_factory=list)
    # What the methods marked @_once_per_dataset computed, by method and arguments.
    _memo: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def forget(self) -> None:
        """Drop every table computed so far, for a caller that changed the dataset's fields
        (a report restricted to one runner, a test without arrivals)."""
        self._memo.clear()
        for name in ("current", "history", "by_version"):
            self.__dict__.pop(name, None)

    @cached_property
    def current(self) -> list[Measurement]:
        return current(self.measurements)

    @cached_property
    def history(self) -> list[Measurement]:
        return history(self.measurements)

    @cached_property
    def by_version(self) -> list[Measurement]:
        """One result per (runner, case, TensorFlow release), failed and unavailable ones
        included: what the verdicts per release are judged on."""
        return per_version(self.measurements)

    @_once_per_dataset
    def shown_scenarios(self, runner: str) -> frozenset[str]:
        """The interleave ids of ``runner``'s scenarios the pages show: its results per
        release, back to back, and its newest results of the arrival patterns."""
        shown = [*self.by_version, *per_version(self.arrivals)]
        return frozenset(m.interleave_id for m in shown if m.runner == runner and m.interleave_id)

    def topic_names(self) -> list[str]:
        return sorted(set(self.topics) | {m.topic for m in self.measurements})

    def default_variant(self, topic: str) -> str | None:
        if topic in self.topics:
            return self.topics[topic].default
        for m in self.measurements:
            if m.topic == topic and m.is_default:
                return m.variant
        return None

    def label(self, topic: str, variant: str) -> str:
        info = self.topics.get(topic)
        return info.display.get(variant, variant) if info else variant

    def claims_of(self, topic: str) -> list[Claim]:
        """The topic's claims: between variants, then between settings groups."""
        info = self.topics.get(topic)
        return [*info.claims, *info.settings_claims] if info else []

    def claim(self, topic: str, claim_id: str) -> Claim | None:
        return next((c for c in self.claims_of(topic) if str(c.get("id")) == claim_id), None)

    # -- tables ---------------------------------------------------------------------------

    @_once_per_dataset
    def scenarios(self, topic: str) -> list[Scenario]:
        return scenarios(self.current, topic)

    @_once_per_dataset
    def recommendations(self, topic: str) -> list[Recommendation]:
        default = self.default_variant(topic)
        return [] if default is None else [
            recommend(sc, default, self.noise, self.cache, bounds=self.topics[topic].bounds
                      if topic in self.topics else ()) for sc in self.scenarios(topic)]

    @_once_per_dataset
    def claim_results(self, topic: str) -> list[ClaimResult]:
        results = [
            check_settings_claim(c, self.current, topic, self.noise, self.cache, self.topics[topic].controls)
            if is_settings_claim(c)
            else check_claim(c, self.scenarios(topic), self.noise, self.cache) for c in self.claims_of(topic)]
        return [self.named(r, topic) for r in results]

    def named(self, result: ClaimResult, topic: str) -> ClaimResult:
        """``result`` naming its scenarios as the topic's YAML does (its labels, its
        parameters' order)."""
        info = self.topics.get(topic)
        if info is not None:
            result.label, result.order = info.value_label, tuple(info.param_values)
        return result

    def claim_result(self, topic: str, claim_id: str, arrival: str | None = None) -> ClaimResult | None:
        """A claim judged back to back, or on the per-request pattern ``arrival`` names."""
        results = self.claim_results(topic) if arrival is None else self.arrival_claim_results(topic, arrival)
        return next((c for c in results if c.id == claim_id), None)

    # -- per-request arrival patterns (analyse/judge/arrivals.py) ------------------------------------

    def arrival_ids(self, topic: str) -> list[str]:
        """The per-request patterns the topic has results of ([] for most topics)."""
        return pattern_ids(self.arrivals, topic)

    @_once_per_dataset
    def arrival_tables(self, topic: str) -> list[PatternTable]:
        """Per runner, profile and pattern: each variant's p50/p90/p99 and its speedups over the default."""
        info = self.topics.get(topic)
        return pattern_tables(self.arrivals, self.arrival_noise, topic, self.default_variant(topic), self.cache,
                              info.baseline_settings if info is not None else None)

    @_once_per_dataset
    def arrival_claim_results(self, topic: str, arrival: str) -> list[ClaimResult]:
        """The topic's claims judged on one per-request pattern's results ([] without any)."""
        results = (pattern_claims(self.claims_of(topic), self.arrivals, self.arrival_noise, topic, arrival,
                                  self.cache) if arrival in self.arrival_ids(topic) else [])
        return [self.named(r, topic) for r in results]

    @_once_per_dataset
    def version_strips(self, topic: str) -> list[VersionStrip]:
        """Per claim and runner measured with two or more TensorFlow releases, the finding in
        each release (claims in the YAML's order); the headline's release is the headline."""
        info = self.topics.get(topic)
        controls = info.controls if info is not None else []
        return [s for c in self.claims_of(topic)
                for s in version_strips(c, self.by_version, topic, self.noise, self.cache, controls,
                                        headline=self.claim_result(topic, str(c.get("id"))),
                                        label=info.value_label if info is not None else plain_label,
                                        order=tuple(info.param_values) if info is not None else (),
                                        values=info.param_values if info is not None else None)]

    def changed_claims(self, topic: str) -> set[str]:
        """Claims whose finding changed between TensorFlow releases on some runner, by the
        rule of the "Across versions" section (:attr:`VersionStrip.changes`), so that a
        claims table's "changed" mark never contradicts it."""
        return {s.claim_id for s in self.version_strips(topic) if s.changed}

    @_once_per_dataset
    def settings_speedups(self, topic: str) -> list[SettingsSpeedup]:
        """Each settings group against the topic's ``baseline_settings`` (empty when the
        topic declares none)."""
        info = self.topics.get(topic)
        if info is None or not info.baseline_settings:
            return []
        return settings_speedups(self.current, topic, info.baseline_settings, self.noise, self.cache)

    def settings_rows(self, topic: str) -> list[SettingsRow]:
        """One row per (runner, case) with its speedup over the baseline settings: the data
        behind a settings chart (current results only)."""
        rows = []
        for sp in self.settings_speedups(topic):
            m = sp.measurement
            div = self.per_call_divisor(topic, m.params)
            rows.append(SettingsRow(
                runner=m.runner, version=m.version, case=self.row_case(topic, m),
                median=_div(m.median, div), ci_low=_div(m.ci_low, div), ci_high=_div(m.ci_high, div), n=m.n,
                speedup=sp.ratio.point if sp.ratio else None,
                speedup_low=sp.ratio.low if sp.ratio else None,
                speedup_high=sp.ratio.high if sp.ratio else None,
                finding="baseline" if sp.is_baseline else (str(sp.finding) if sp.finding else sp.problem or "–"),
                noise=sp.noise.value if sp.noise else None,
                status="stale" if m.stale else ("ok" if m.ok else m.status),
                commit=(m.commit or "")[:10], date=m.finished.date().isoformat()))
        return rows

    def row_case(self, topic: str, m: Measurement) -> RowCase:
        """A chart row's case: each parameter and setting by its value and in reader words,
        the variant and its display name."""
        info = self.topics.get(topic)
        return RowCase(params=m.params,
                       param_words={k: info.value_label(k, v) if info else f"{k} {v}" for k, v in m.params.items()},
                       settings=m.settings,
                       setting_words={k: self.setting_label(topic, k, v) for k, v in m.settings.items()},
                       variant=m.variant, label=self.label(topic, m.variant))

    def breakeven(self, topic: str, baseline: str, candidate: str) -> list[tuple[BreakEven, list[Measurement]]]:
        """Per runner and scenario: after how many calls ``candidate``'s slower first call is
        repaid (:func:`~tfperf.analyse.judge.per_step.breakeven_table` over the current ok results), with the two
        measurements it was computed from."""
        out = []
        by_runner: dict[str, list[Measurement]] = {}
        for m in self.current:
            if m.topic == topic and m.ok and m.first_call_s is not None and m.variant in (baseline, candidate):
                by_runner.setdefault(m.runner, []).append(m)
        for runner, ms in sorted(by_runner.items()):
            out += [(row, [b, c]) for row, b, c in breakeven_table(ms, baseline, candidate, runner=runner)]
        return out

    def ten_runs(self, topic: str, runs: int = 10) -> list[tuple[Measurement, TenRunView]]:
        """What one ``runs``-call mean would have said, beside the median, per current ok result."""
        out = []
        for m in self.current:
            if m.topic == topic and m.ok:
                view = ten_run_view(m.samples, m.inner_loops, runs)
                if view is not None:
                    out.append((m, view))
        return out

    def setting_label(self, topic: str, name: str, value: object) -> str:
        info = self.topics.get(topic)
        return info.setting_label(name, value) if info else f"{name}={value}"

    def params_words(self, topic: str, params: Mapping[str, object]) -> str:
        """A scenario's parameters in reader words, as its charts name them ("mlp, batch 1")."""
        info = self.topics.get(topic)
        return ", ".join(info.value_label(k, v) if info else f"{k} {v}" for k, v in params.items()) or "–"

    def settings_words(self, topic: str, settings: Mapping[str, object]) -> str:
        """A scenario's settings in reader words, as its charts name them ("eager on, Keras 2")."""
        return ", ".join(self.setting_label(topic, k, v) for k, v in sorted(settings.items())) or "–"

    def unit(self, topic: str) -> str:
        """What one timed quantity is: "call", or the YAML's ``per_call.unit`` (e.g. "step")."""
        info = self.topics.get(topic)
        return info.per_call.unit if info and info.per_call else "call"

    def per_call_divisor(self, topic: str, params: Mapping[str, object]) -> float:
        """How many units one call does (``per_call.divide_by`` names the parameter); 1 if
        the topic declares none or the parameter is not a positive number."""
        info = self.topics.get(topic)
        if not (info and info.per_call):
            return 1.0
        v = params.get(info.per_call.divide_by)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else 1.0

    def versions(self, topic: str) -> list[str]:
        return sorted({m.version for m in self.history if m.topic == topic}, key=release_key)

    def chart_rows(self, topic: str) -> list[ChartRow]:
        """One row per (runner, case, software version): the data behind a topic's charts."""
        default = self.default_variant(topic)
        rows: list[ChartRow] = []
        newest_version: dict[tuple[str, str], tuple[str, tuple[Any, ...]]] = {}
        for m in self.history:
            if m.topic == topic:       # the newest release, not the latest run (a history run of 2.12)
                k = (m.runner, m.settings_id)
                rank = (release_key(m.tensorflow), m.finished)
                if k not in newest_version or rank > newest_version[k][1]:
                    newest_version[k] = (m.version, rank)
        # A history profile that does not vary a parameter of the main grid (serving's history
        # has no `model`) measured, at a release the main grid also has, scenarios the main
        # grid names in full: those rows would draw a panel of their own, so the main grid's
        # stand for them; at the other releases they are the only rows and stay.
        main = {(m.runner, m.settings_id, m.version): set(m.params) for m in self.current
                if m.topic == topic and m.source.profile != HISTORY_PROFILE}
        pool = [m for m in self.history if m.topic == topic
                and not set(m.params) < main.get((m.runner, m.settings_id, m.version), set())]
        stale_current = [m for m in self.current if m.topic == topic and m.stale and m.ok]
        base: dict[tuple[str, str, str, str], Measurement] = {}
        for m in pool + stale_current:
            if m.variant == default:
                base[(m.runner, m.settings_id, m.params_id, m.version)] = m
        for m in pool + stale_current:
            d = base.get((m.runner, m.settings_id, m.params_id, m.version))
            sp = self.cache.speedup(d, m) if d is not None else None
            div = self.per_call_divisor(topic, m.params)   # time per step where the YAML says so
            # A chart series is one runner name: "<label>/<profile>" when a label has results
            # of several profiles (records.series_names), so profiles never join.
            rows.append(ChartRow(
                runner=m.runner, profile=m.source.profile, version=m.version, tensorflow=m.tensorflow,
                keras=m.keras, newest=newest_version.get((m.runner, m.settings_id), ("",))[0] == m.version,
                case=self.row_case(topic, m),
                median=_div(m.median, div), ci_low=_div(m.ci_low, div), ci_high=_div(m.ci_high, div), n=m.n,
                first_call=m.first_call_s,
                speedup=sp.point if sp else None, speedup_low=sp.low if sp else None,
                speedup_high=sp.high if sp else None,
                correct=exclusion_reason(m) is None, stale=m.stale,
                status="stale" if m.stale else ("ok" if exclusion_reason(m) is None else "output outside tolerance"
                                                if m.within_tolerance is False else "not recommended"),
                commit=(m.commit or "")[:10], date=m.finished.date().isoformat(), source=m.source.rel))
        return rows

    def noise_floor(self, runner: str, settings: dict[str, str], topic: str | None = None):  # type: ignore[no-untyped-def]
        return noise_floor(self.noise, runner, settings_id(settings), topic)


def _div(x: float | None, by: float) -> float | None:
    return None if x is None else x / by


def analyse(results_root: str | Path, snippets_dir: str | Path, cache: RatioCache | None = None) -> Dataset:
    docs, load_errors = load_results(results_root)
    return analyse_documents(docs, snippets_dir, results_root, cache, load_errors)


def analyse_documents(docs: Sequence[tuple[Path, ResultsDoc]], snippets_dir: str | Path,
                      results_root: str | Path = "", cache: RatioCache | None = None,
                      load_errors: list[ResultsFileError] | None = None) -> Dataset:
    """The dataset of documents already loaded (:func:`~tfperf.analyse.records.load_results` validates them)."""
    load_errors = load_errors or []
    topics, failed = _load_topics(snippets_dir)
    every, all_noise, runners, breakdowns = read_documents(docs)
    every = mark_stale(every, topics)
    measurements, noise, arrivals, arrival_noise = back_to_back(every, all_noise)
    errors: list[TfperfError] = [*load_errors, *failed.values()]
    return Dataset(results_root=str(results_root), topics=topics, measurements=measurements, noise=noise,
                   runners=runners, breakdowns=breakdowns, errors=errors, cache=cache or RatioCache(),
                   files=[p for p, _ in docs], topic_errors=failed, arrivals=arrivals, arrival_noise=arrival_noise)


__all__ = ["Dataset", "ResultsFileError", "analyse", "analyse_documents", "load_topics"]
