"""Everything the guide shows, computed once from the results files and the topic YAMLs.

``analyse(results_root, snippets_dir)`` returns a :class:`Dataset`; its methods are the
tables the renderer draws (it never computes statistics itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..errors import CaseGridError, ResultsFileError, TfperfError
from .claims import ClaimResult, ClaimTrend, check_claim, claim_trends
from .compare import Recommendation, Scenario, exclusion_reason, recommend, scenarios
from .noise import noise_floor
from .ratios import RatioCache
from .records import Measurement, Noise, Runner, read_documents, settings_id
from .select import TopicInfo, current, history, mark_stale
from .source import load_results


def load_topics(snippets_dir: str | Path) -> tuple[dict[str, TopicInfo], list[TfperfError]]:
    from ..cases import load_topic

    topics: dict[str, TopicInfo] = {}
    errors: list[TfperfError] = []
    for path in sorted(Path(snippets_dir).glob("*.yaml")):
        try:
            t = load_topic(path)
        except CaseGridError as exc:
            errors.append(exc)
            continue
        labels = {v: str((d or {}).get("label", v)) for v, d in t.variants.items()}
        order: dict[str, list] = {}
        for prof in ("full", "quick"):
            for k, vals in ((t.data["profiles"].get(prof) or {}).get("params") or {}).items():
                order.setdefault(k, [])
                order[k] += [v for v in vals if v not in order[k]]
        topics[t.name] = TopicInfo(name=t.name, title=t.title, snippet_hash=t.snippet_hash,
                                   default=str(t.data["default"]), reference=str(t.data["reference"]),
                                   claims=tuple(c for c in t.claims if isinstance(c, dict)),
                                   variant_labels=labels, yaml_path=str(path), param_values=order)
    return topics, errors


@dataclass
class Dataset:
    results_root: str
    topics: dict[str, TopicInfo]
    measurements: list[Measurement]
    noise: list[Noise]
    runners: dict[str, Runner]
    breakdowns: list[dict[str, Any]]
    errors: list[TfperfError]
    cache: RatioCache = field(default_factory=RatioCache)

    @cached_property
    def current(self) -> list[Measurement]:
        return current(self.measurements)

    @cached_property
    def history(self) -> list[Measurement]:
        return history(self.measurements)

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
        return info.variant_labels.get(variant, variant) if info else variant

    def claims_of(self, topic: str) -> list[dict[str, Any]]:
        info = self.topics.get(topic)
        return list(info.claims) if info else []

    def claim(self, topic: str, claim_id: str) -> dict[str, Any] | None:
        return next((c for c in self.claims_of(topic) if str(c.get("id")) == claim_id), None)

    # -- tables ---------------------------------------------------------------------------

    def scenarios(self, topic: str) -> list[Scenario]:
        return self._scenarios.setdefault(topic, scenarios(self.current, topic))

    def recommendations(self, topic: str) -> list[Recommendation]:
        if topic not in self._recs:
            default = self.default_variant(topic)
            self._recs[topic] = [] if default is None else [
                recommend(sc, default, self.noise, self.cache) for sc in self.scenarios(topic)]
        return self._recs[topic]

    def claim_results(self, topic: str) -> list[ClaimResult]:
        if topic not in self._claims:
            self._claims[topic] = [check_claim(c, self.scenarios(topic), self.noise, self.cache)
                                   for c in self.claims_of(topic)]
        return self._claims[topic]

    def claim_result(self, topic: str, claim_id: str) -> ClaimResult | None:
        return next((c for c in self.claim_results(topic) if c.id == claim_id), None)

    def trends(self, topic: str) -> list[ClaimTrend]:
        if topic not in self._trends:
            self._trends[topic] = [t for c in self.claims_of(topic)
                                   for t in claim_trends(c, self.history, topic, self.noise, self.cache)]
        return self._trends[topic]

    def versions(self, topic: str) -> list[str]:
        from .claims import version_sort_key
        return sorted({m.version for m in self.history if m.topic == topic}, key=version_sort_key)

    def chart_rows(self, topic: str) -> list[dict[str, Any]]:
        """One row per (runner, case, software version): the data behind a topic's charts."""
        default = self.default_variant(topic)
        rows: list[dict[str, Any]] = []
        newest_version = {}
        for m in self.history:
            if m.topic == topic:
                k = (m.runner, m.settings_id)
                if k not in newest_version or m.finished_at > newest_version[k][1]:
                    newest_version[k] = (m.version, m.finished_at)
        pool = [m for m in self.history if m.topic == topic]
        stale_current = [m for m in self.current if m.topic == topic and m.stale and m.ok]
        base: dict[tuple[str, str, str, str], Measurement] = {}
        for m in pool + stale_current:
            if m.variant == default:
                base[(m.runner, m.settings_id, m.params_id, m.version)] = m
        for m in pool + stale_current:
            d = base.get((m.runner, m.settings_id, m.params_id, m.version))
            sp = self.cache.ratio(d.samples, m.samples) if d is not None else None
            rows.append({
                "runner": m.runner, "version": m.version, "tensorflow": m.tensorflow, "keras": m.keras,
                "newest": newest_version.get((m.runner, m.settings_id), ("",))[0] == m.version,
                **{f"p_{k}": v for k, v in m.params.items()},
                **{f"s_{k}": v for k, v in m.settings.items()},
                "variant": m.variant, "label": self.label(topic, m.variant),
                "median": m.median, "ci_low": m.ci_low, "ci_high": m.ci_high, "n": m.n,
                "first_call": m.first_call_s,
                "speedup": sp.point if sp else None, "speedup_low": sp.low if sp else None,
                "speedup_high": sp.high if sp else None,
                "correct": exclusion_reason(m) is None, "stale": m.stale,
                "status": "stale" if m.stale else ("ok" if exclusion_reason(m) is None else "output outside tolerance"
                                                   if m.within_tolerance is False else "not recommended"),
                "commit": (m.commit or "")[:10], "date": m.finished_at.date().isoformat(),
                "source": m.source.rel,
            })
        return rows

    def noise_floor(self, runner: str, settings: dict[str, str]):  # type: ignore[no-untyped-def]
        return noise_floor(self.noise, runner, settings_id(settings))

    def __post_init__(self) -> None:
        self._scenarios: dict[str, list[Scenario]] = {}
        self._recs: dict[str, list[Recommendation]] = {}
        self._claims: dict[str, list[ClaimResult]] = {}
        self._trends: dict[str, list[ClaimTrend]] = {}


def analyse(results_root: str | Path, snippets_dir: str | Path, cache: RatioCache | None = None) -> Dataset:
    docs, load_errors = load_results(results_root)
    topics, topic_errors = load_topics(snippets_dir)
    measurements, noise, runners, breakdowns = read_documents(docs)
    mark_stale(measurements, topics)
    errors: list[TfperfError] = [*load_errors, *topic_errors]
    return Dataset(results_root=str(results_root), topics=topics, measurements=measurements, noise=noise,
                   runners=runners, breakdowns=breakdowns, errors=errors, cache=cache or RatioCache())


__all__ = ["Dataset", "analyse", "load_topics", "ResultsFileError"]
