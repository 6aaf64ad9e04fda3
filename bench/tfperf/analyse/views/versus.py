"""This machine against the published runners: the analysis behind ``tfperf compare`` and
the site's "this machine" sections.

Given one local results document ("here") and the published results files, say per case
where this machine sits against each published runner and profile:

* the ratio of medians, time here / time there, with a bootstrap CI (``stats.ratio_ci``
  through the shared :class:`RatioCache`): 0.8 means this machine takes 80% of their time;
* whether this machine's median falls inside their spread (their interquartile range, and
  the 95% CI of their median);
* per claim of a topic, the finding here beside the finding on each runner over the same
  cases (``judge.claims``, in the words of ``judge.effects``);
* per scenario, whether the variant the page recommends for that runner is faster than
  the default way here too (``effects.effect`` with this machine's noise floor);
* which published runner has this machine's CPU (``RunnerSummary.same_cpu``).

The site reads two results roots: the published one (``data/results``: every verdict,
count, table and chart line of the guide) and, when it exists, a local one
(``local/results``, written by ``scripts/main``; git-ignored). The local files never
enter the published :class:`~tfperf.analyse.Dataset`; each is compared with the
published runners exactly as ``tfperf compare`` does (:func:`this_machine`, through
:func:`compare_files`), and the pages show that comparison in a section of its own.

Plain functions over loaded documents, no formatting (the words are :mod:`tfperf.render.text`'s).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import stats
from ...cases import Claim, Control, Topic
from ...errors import TfperfError
from ...hardware import cpu_identity, isa_class
from ...store.record_types import Environment, ResultsDoc, Scalar
from ..judge.claims import NO_DATA, ClaimResult, Labeller, check_any_claim, plain_label
from ..judge.effects import MARGIN, Finding, effect
from ..judge.scenarios import (
    NoiseFloor,
    Ratio,
    RatioCache,
    Scenario,
    exclusion_reason,
    noise_floor,
    recommend,
    scenarios,
)
from ..records import Measurement, Noise, back_to_back, current, mark_stale, read_documents, settings_id

HERE = "this machine"


@dataclass
class Side:
    """The current measurements of one results file (here, or one published runner and profile)."""

    name: str                        # "this machine" or "<runner>/<profile>"
    path: str
    runner: str
    profile: str
    description: str | None
    contributed_by: str | None
    environment: Environment | None
    measurements: list[Measurement]
    noise: list[Noise]

    def by_case(self) -> dict[str, Measurement]:
        return {m.case_id: m for m in self.measurements}

    def scenarios(self, topic: str) -> list[Scenario]:
        return scenarios(self.measurements, topic)

    def noise_floor(self, settings: dict[str, str]) -> NoiseFloor:
        return noise_floor(self.noise, self.name, settings_id(settings))


def side(name: str, path: str | Path, doc: ResultsDoc, topics: dict[str, Topic]) -> Side:
    """One loaded results document as a :class:`Side` named ``name`` (stale results marked)."""
    every, all_noise, runners, _ = read_documents([(Path(path), doc)])
    ms, noise, _, _ = back_to_back(every, all_noise)        # the arrival patterns are not compared here yet
    ms = [dataclasses.replace(m, runner=name) for m in mark_stale(ms, topics)]
    noise = [dataclasses.replace(n, runner=name) for n in noise]
    r = next(iter(runners.values()), None)
    return Side(name=name, path=str(path), runner=str(doc["runner"]["label"]), profile=str(doc["profile"]),
                description=r.description if r else None, contributed_by=r.contributed_by if r else None,
                environment=r.latest_environment() if r else None, measurements=current(ms), noise=noise)


# -- per case ------------------------------------------------------------------------------

@dataclass
class CaseVersus:
    topic: str
    case_id: str
    params: dict[str, Scalar]
    settings: dict[str, str]
    variant: str
    runner: str                       # the published side's name
    here_median: float
    there_median: float
    ratio: Ratio                      # time here / time there, 95% CI
    there_q1: float
    there_q3: float
    there_ci: tuple[float, float]
    in_iqr: bool
    in_ci: bool
    here_version: str
    there_version: str
    stale: bool                       # either side's result no longer matches the snippet

    @property
    def same_software(self) -> bool:
        return self.here_version == self.there_version


def case_versus(here: Measurement, there: Measurement, runner: str, cache: RatioCache) -> CaseVersus:
    r = cache.ratio(here.samples, there.samples)
    q1, q3 = stats.quantile(there.samples, 0.25), stats.quantile(there.samples, 0.75)
    lo = there.ci_low if there.ci_low is not None else min(there.samples)
    hi = there.ci_high if there.ci_high is not None else max(there.samples)
    med = float(here.median or 0.0)
    return CaseVersus(topic=here.topic, case_id=here.case_id, params=here.params, settings=here.settings,
                      variant=here.variant, runner=runner, here_median=med, there_median=float(there.median or 0.0),
                      ratio=r, there_q1=q1, there_q3=q3, there_ci=(lo, hi), in_iqr=q1 <= med <= q3,
                      in_ci=lo <= med <= hi, here_version=here.version, there_version=there.version,
                      stale=here.stale or there.stale)


# -- claims --------------------------------------------------------------------------------

@dataclass
class ClaimVersus:
    topic: str
    claim_id: str
    text: str
    here: str                          # the finding here over the cases measured here, in words
    here_finding: Finding
    here_ratio: tuple[float, float] | None   # smallest and largest speedup point here
    there: dict[str, str]              # runner -> its finding over the same scenarios, in words
    there_finding: dict[str, Finding]
    agree: list[str]                   # runners whose finding equals the one here


def _over(res: ClaimResult, runner: str, keys: set[tuple[str, str]] | None = None) -> tuple[Finding, str]:
    """The runner's finding over its checks, limited to the scenarios in ``keys``, and its words."""
    kept = ClaimResult(res.claim, [c for c in res.checks if c.scenario.runner == runner
                                   and (keys is None or c.scenario.key[1:] in keys)], res.label, res.order)
    return kept.summary(runner).finding, kept.summary_text(runner)


def claim_versus(topic: str, claim: Claim, here: Side, others: list[Side],
                 cache: RatioCache, controls: Sequence[Control] = (),
                 label: Labeller = plain_label, order: Sequence[str] = ()) -> ClaimVersus:
    """A claim between variants or between settings groups, here and on each runner over
    the scenarios measured here."""
    res = check_any_claim(claim, here.measurements, topic, here.noise, cache, controls)
    res.label, res.order = label, order
    f_here, t_here = _over(res, here.name)
    points = [c.ratio.point for c in res.checks if c.ratio is not None]
    keys = {c.scenario.key[1:] for c in res.checks}
    there: dict[str, tuple[Finding, str]] = {}
    for o in others:
        theirs = check_any_claim(claim, o.measurements, topic, o.noise, cache, controls)
        theirs.label, theirs.order = label, order
        there[o.name] = _over(theirs, o.name, keys)
    agree = [n for n, (f, _) in there.items() if f == f_here and f != NO_DATA]
    return ClaimVersus(topic=topic, claim_id=str(claim.get("id")), text=str(claim.get("text", claim.get("id"))),
                       here=t_here, here_finding=f_here, here_ratio=(min(points), max(points)) if points else None,
                       there={n: t for n, (_, t) in there.items()}, there_finding={n: f for n, (f, _) in there.items()},
                       agree=agree)


# -- recommendations -----------------------------------------------------------------------

@dataclass
class RecommendationVersus:
    topic: str
    runner: str
    params: dict[str, Scalar]
    settings: dict[str, str]
    default: str
    there_best: str | None             # the variant the page recommends for that runner
    there_speedup: Ratio | None        # over the default, there
    there_finding: Finding | None
    here_best: str | None              # fastest correct variant here
    here_speedup: Ratio | None         # of their recommendation over the default, here
    here_finding: Finding | None
    holds_here: bool | None            # None: cannot tell (missing or failed here)
    note: str | None = None


def recommendation_versus(topic: str, default: str, sc_there: Scenario, sc_here: Scenario, here: Side,
                          cache: RatioCache, there_noise: list[Noise]) -> RecommendationVersus:
    rec_there = recommend(sc_there, default, there_noise, cache)
    rec_here = recommend(sc_here, default, here.noise, cache)
    best = rec_there.best
    out = RecommendationVersus(topic=topic, runner=sc_there.runner, params=sc_there.params,
                               settings=sc_there.settings, default=default, there_best=best,
                               there_speedup=rec_there.speedup, there_finding=rec_there.finding,
                               here_best=rec_here.best, here_speedup=None, here_finding=None, holds_here=None)
    if best is None:
        out.note = "no correct variant there"
        return out
    d, b = sc_here.variants.get(default), sc_here.variants.get(best)
    if d is None or b is None:
        out.note = f"{default if d is None else best} not measured here"
        return out
    why = exclusion_reason(b) or (None if d.ok else exclusion_reason(d))
    if why:
        out.note = f"here: {why}"
        out.holds_here = False if exclusion_reason(b) and b.within_tolerance is False else None
        return out
    if best == default:
        # They recommend the default way: it holds here unless something is clearly faster here.
        out.holds_here = rec_here.best == default or rec_here.finding != Finding.FASTER
        out.here_speedup = rec_here.speedup
        out.here_finding = rec_here.finding
        if not out.holds_here:
            out.note = f"here {rec_here.best} is faster than the default"
        return out
    r = cache.ratio(d.samples, b.samples)
    out.here_speedup = r
    out.here_finding = effect(r.low, r.high, max(here.noise_floor(sc_here.settings).value, MARGIN))
    out.holds_here = out.here_finding == Finding.FASTER
    return out


# -- everything ----------------------------------------------------------------------------

@dataclass
class RunnerSummary:
    name: str
    runner: str
    profile: str
    description: str | None
    contributed_by: str | None
    cpu: str | None
    same_cpu: bool                     # the published runner's CPU is this machine's (hardware.cpu_identity)
    cases: int                         # cases measured on both sides
    typical_ratio: float | None        # median over cases of time here / time there
    in_iqr: int
    in_ci: int


@dataclass
class Versus:
    here: Side
    runners: list[RunnerSummary]
    cases: list[CaseVersus]
    claims: list[ClaimVersus]
    recommendations: list[RecommendationVersus]
    errors: list[str] = field(default_factory=list)   # published files that could not be used

    def topics(self) -> list[str]:
        return sorted({c.topic for c in self.cases} | {c.topic for c in self.claims}
                      | {r.topic for r in self.recommendations})


def versus(here: Side, others: list[Side], topics: dict[str, Topic], cache: RatioCache | None = None,
           errors: Iterable[str] = ()) -> Versus:
    """Compare ``here`` with each of ``others`` on every case measured on both."""
    cache = cache or RatioCache()
    mine = {cid: m for cid, m in here.by_case().items() if m.ok}
    cases: list[CaseVersus] = []
    summaries: list[RunnerSummary] = []
    for o in others:
        theirs = o.by_case()
        rows = [case_versus(m, theirs[cid], o.name, cache)
                for cid, m in sorted(mine.items()) if cid in theirs and theirs[cid].ok]
        cases += rows
        summaries.append(RunnerSummary(
            name=o.name, runner=o.runner, profile=o.profile, description=o.description,
            contributed_by=o.contributed_by, cpu=o.environment.get("cpu_model") if o.environment else None,
            same_cpu=bool(here.environment and o.environment
                          and cpu_identity(dict(here.environment)) == cpu_identity(dict(o.environment))),
            cases=len(rows),
            typical_ratio=stats.median([c.ratio.point for c in rows]) if rows else None,
            in_iqr=sum(c.in_iqr for c in rows), in_ci=sum(c.in_ci for c in rows)))
    measured_topics = sorted({m.topic for m in here.measurements})
    claims: list[ClaimVersus] = []
    recs: list[RecommendationVersus] = []
    for topic in measured_topics:
        info = topics.get(topic)
        if info is None:
            continue
        claims += [claim_versus(topic, c, here, others, cache, info.controls, info.value_label,
                                tuple(info.param_values))
                   for c in (*info.claims, *info.settings_claims)]
        mine_sc = {sc.key[1:]: sc for sc in here.scenarios(topic)}
        for o in others:
            for sc in o.scenarios(topic):
                if sc.key[1:] in mine_sc:
                    recs.append(recommendation_versus(topic, info.default, sc, mine_sc[sc.key[1:]], here,
                                                      cache, o.noise))
    return Versus(here=here, runners=summaries, cases=cases, claims=claims, recommendations=recs,
                  errors=list(errors))


def as_json(v: Versus) -> dict[str, object]:
    """Plain JSON data (what ``tfperf compare --json`` prints)."""

    def ratio(r: Ratio | None) -> dict[str, float] | None:
        return None if r is None else {"point": r.point, "low": r.low, "high": r.high}

    env: Mapping[str, object] = v.here.environment or {}
    return {
        "here": {"runner": v.here.runner, "profile": v.here.profile, "path": v.here.path,
                 "cpu": env.get("cpu_model"), "cores": env.get("cores"),
                 "cpu_class": isa_class(isa) if isinstance(isa := env.get("isa"), Mapping) else None,
                 "results": len(v.here.measurements)},
        "ratio_meaning": "time here / time there (median over median); below 1 means faster here",
        "runners": [dataclasses.asdict(s) for s in v.runners],
        "cases": [{"topic": c.topic, "case_id": c.case_id, "runner": c.runner, "here_median_s": c.here_median,
                   "there_median_s": c.there_median, "ratio": ratio(c.ratio),
                   "there_iqr_s": [c.there_q1, c.there_q3], "there_ci_s": list(c.there_ci),
                   "inside_iqr": c.in_iqr, "inside_ci": c.in_ci, "here_version": c.here_version,
                   "there_version": c.there_version, "stale": c.stale} for c in v.cases],
        "claims": [{"topic": c.topic, "claim": c.claim_id, "text": c.text, "here": c.here,
                    "here_finding": str(c.here_finding),
                    "here_speedup_range": list(c.here_ratio) if c.here_ratio else None,
                    "there": c.there, "there_finding": {k: str(f) for k, f in c.there_finding.items()},
                    "agree": c.agree} for c in v.claims],
        "recommendations": [{"topic": r.topic, "runner": r.runner, "params": r.params, "settings": r.settings,
                             "default": r.default, "recommended": r.there_best,
                             "there_speedup": ratio(r.there_speedup),
                             "there_finding": str(r.there_finding) if r.there_finding else None,
                             "here_speedup": ratio(r.here_speedup),
                             "here_finding": str(r.here_finding) if r.here_finding else None,
                             "best_here": r.here_best, "holds_here": r.holds_here, "note": r.note}
                            for r in v.recommendations],
        "errors": v.errors,
    }


def compare_files(here_path: str | Path, published_root: str | Path, snippets_dir: str | Path,
                  only: Iterable[str] = (), cache: RatioCache | None = None,
                  topics_only: Iterable[str] = ()) -> Versus:
    """Load the local results file and every published one under ``published_root``
    (``data/results``) and compare. A published file that cannot be read is listed in
    ``errors`` (file and field named) and the others are still used; the local file must load.
    ``only`` restricts the published side to these runner labels or "<runner>/<profile>" names;
    ``topics_only`` restricts the comparison to these topics."""
    from ...store import load
    from ..dataset import load_topics
    from ..records import load_results

    topics, topic_errors = load_topics(snippets_dir)
    here_path = Path(here_path)
    doc = load(here_path)
    wanted_topics = set(topics_only)
    if wanted_topics:
        known = {r["topic"] for r in doc["results"]} | set(topics)
        if wanted_topics - known:
            raise TfperfError(f"unknown topic(s): {', '.join(sorted(wanted_topics - known))} "
                              f"(known: {', '.join(sorted(known))})")
        doc = doc.copy()
        doc["results"] = [r for r in doc["results"] if r["topic"] in wanted_topics]
    here = side(HERE, here_path, doc, topics)
    docs, load_errors = load_results(published_root)
    wanted = set(only)
    others: list[Side] = []
    for path, doc in docs:
        if path.resolve() == here_path.resolve():
            continue
        name = f"{doc['runner']['label']}/{doc['profile']}"
        if wanted and not wanted & {name, str(doc["runner"]["label"])}:
            continue
        others.append(side(name, path, doc, topics))
    others.sort(key=lambda s: s.name)
    return versus(here, others, topics, cache, errors=[str(e) for e in [*load_errors, *topic_errors]])


# -- this machine on the site ------------------------------------------------------------------

LOCAL_ROOT = "local/results"     # relative to the checkout (mkdocs.yml's folder)


@dataclass
class ThisMachine:
    """Every local results file, each compared with the published runners."""

    root: str                    # as the reader should see it (e.g. "local/results"), never absolute
    views: list[Versus] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)   # local files that could not be used

    def __bool__(self) -> bool:
        return bool(self.views or self.errors)

    def topic_views(self, topic: str) -> list[Versus]:
        return [v for v in self.views if any(m.topic == topic for m in v.here.measurements)]

    def file_of(self, v: Versus) -> str:
        """The local file of one view, below the root as shown ("local/results/<runner>/quick.json")."""
        return "/".join([self.root.rstrip("/"), *Path(v.here.path).parts[-2:]])


def local_files(root: str | Path) -> list[Path]:
    """The results files under a local root (``<root>/<runner>/<profile>.json``)."""
    root = Path(root)
    return sorted(p for p in root.glob("*/*.json") if p.is_file()) if root.is_dir() else []


def this_machine(local_root: str | Path, published_root: str | Path, snippets_dir: str | Path,
                 cache: RatioCache | None = None, shown_as: str | None = None) -> ThisMachine:
    """Compare each local results file with every published one. A local file that cannot
    be read is named in ``errors``; the published data is never touched. ``shown_as`` is
    the root as pages name it (default: ``local_root`` as given)."""
    out = ThisMachine(root=shown_as or str(local_root))
    for path in local_files(local_root):
        try:
            out.views.append(compare_files(path, published_root, snippets_dir, cache=cache))
        except TfperfError as exc:
            out.errors.append(str(exc))
    return out

