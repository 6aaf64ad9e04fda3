"""What the analysis reads: the results files of a data root, each result as the store's model
(:class:`tfperf.store.result.ResultRecord`) with where it came from (a :class:`Measurement`),
the A/A pairs and the runners; which of those results count; and a failed result in words.

Every later stage (comparisons, claims, rendering) works on these records, never on the
raw JSON.

**The files** (:func:`load_results`). A data root (``data/results``) holds one file per
runner and profile, ``<root>/<runner>/<profile>.json``; only regular files there are read,
through the store's loader (limits, migration, validation). Anything else a reader could
take for a results file (a symbolic link, a folder or FIFO named ``*.json``, a file at
another depth) and every file that cannot be used becomes a :class:`ResultsFileError` in
the error list, naming the path and what it is; the other files still load.

**Which results count** (:func:`mark_stale`, :func:`current`, :func:`history`). Nothing is
dropped: a result whose key no longer matches the current snippet is kept and marked
stale; the page shows it as such. Among several results of one case, the one of the
newest TensorFlow release is current (then the newest non-stale ok one); the others
remain history (verdicts and charts across versions).

**Failures in words** (:func:`failure_summary`, :func:`failed_results`). A claim whose
cases only failed says "failed: 3 cases", with the first error, rather than "no results
yet" (which would hide that the run happened and broke); and the failures of every topic
are listed on the Data page, so that a topic without a page of its own does not hide them
either. Plain strings; the renderer escapes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .. import HARNESS_VERSION
from ..arrival import BACK_TO_BACK
from ..cases import Topic
from ..errors import ResultsFileError
from ..store import load_dir

# Re-exported (the "as" marks it so for mypy): analysis and render name results by the
# harness's own identities.
from ..store.record_types import Breakdown, Environment, ResultsDoc, Scalar
from ..store.record_types import params_id as params_id  # noqa: PLC0414
from ..store.record_types import settings_id as settings_id  # noqa: PLC0414
from ..store.result import ResultRecord
from .versions import HISTORY_PROFILE, UNAVAILABLE, is_development, release_key, tf_version

Loaded = tuple[list[tuple[Path, ResultsDoc]], list[ResultsFileError]]


def load_results(root: str | Path) -> Loaded:
    """All results documents under ``root`` (e.g. ``data/results``) with the errors met."""
    root = Path(root)
    if not root.is_dir():
        return [], []
    return load_dir(root, layout=True)


@dataclass(frozen=True)
class Source:
    """One results file."""

    path: str            # as given to the loader, e.g. data/results/<runner>/full.json
    runner: str
    profile: str

    @property
    def rel(self) -> str:
        """Path below the results root ("<runner>/<profile>.json"), used in site links."""
        parts = Path(self.path).parts
        return "/".join(parts[-2:]) if len(parts) >= 2 else self.path


# -- chart rows -------------------------------------------------------------------------------
# A chart's data goes to Vega-Lite as one flat table (its inline dataset), a column per field
# the chart reads. A row's case becomes four families of columns, named by the topic's grid:
# each parameter by its value (``p_batch``) and in reader words (``v_batch``), each setting
# likewise (``s_threads``, ``l_threads``). These prefixes are that table's only convention.
PARAM, PARAM_WORDS, SETTING, SETTING_WORDS = "p_", "v_", "s_", "l_"

TableRow = dict[str, Scalar | None]       # one row of a chart's Vega-Lite table


@dataclass(frozen=True)
class RowCase:
    """What a chart row says about its case: its parameters and settings, by value (for
    filtering) and in reader words (what the reader sees), its variant and the variant's
    display name."""

    params: Mapping[str, Scalar]
    param_words: Mapping[str, str]
    settings: Mapping[str, Scalar]
    setting_words: Mapping[str, str]
    variant: str
    label: str

    def columns(self) -> TableRow:
        return {**{PARAM + k: v for k, v in self.params.items()},
                **{PARAM_WORDS + k: v for k, v in self.param_words.items()},
                **{SETTING + k: v for k, v in self.settings.items()},
                **{SETTING_WORDS + k: v for k, v in self.setting_words.items()},
                "variant": self.variant, "label": self.label}


def _table_row(row: ChartRow | SettingsRow) -> TableRow:
    """The row's fields as the table's columns, in the order they are declared, with its
    case's columns in place of ``case``."""
    out: TableRow = {}
    for f in fields(row):
        value = getattr(row, f.name)
        if isinstance(value, RowCase):
            out.update(value.columns())
        else:
            out[f.name] = value
    return out


@dataclass(frozen=True)
class ChartRow:
    """One (runner, case, software version) of a topic's charts: its time per call (per
    step where the topic says so), its first call and its speedup over the default variant."""

    runner: str                    # the series name ("<label>/<profile>" where a label has several)
    profile: str
    version: str
    tensorflow: str
    keras: str
    newest: bool                   # of the newest release measured for the runner and settings
    case: RowCase
    median: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    first_call: float | None
    speedup: float | None
    speedup_low: float | None
    speedup_high: float | None
    correct: bool
    stale: bool
    status: str
    commit: str
    date: str
    source: str

    def columns(self) -> TableRow:
        return _table_row(self)


@dataclass(frozen=True)
class SettingsRow:
    """One (runner, case) of a settings chart: its speedup over the topic's baseline settings."""

    runner: str
    version: str
    case: RowCase
    median: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    speedup: float | None
    speedup_low: float | None
    speedup_high: float | None
    finding: str                   # "baseline", a finding, or why there is none
    noise: float | None
    status: str
    commit: str
    date: str

    def columns(self) -> TableRow:
        return _table_row(self)


@dataclass(frozen=True)
class LoadedBreakdown:
    """A stored profiler breakdown with where it came from: the runner's series name, the
    file, and the environment record it names."""

    record: Breakdown
    runner: str
    source: Source
    env: Environment | None


@dataclass(frozen=True, kw_only=True)
class Measurement(ResultRecord):
    """A stored result as the analysis reads it: the store's record (its fields and readings,
    :class:`tfperf.store.result.ResultRecord`) with where it came from (the file and the
    series name of its runner), the environment record it names, and why it is stale, if it is."""

    source: Source
    runner: str
    env: Environment | None = None
    stale_reason: str | None = None

    @classmethod
    def of(cls, record: ResultRecord, source: Source, runner: str, env: Environment | None = None) -> Measurement:
        return cls(**{f.name: getattr(record, f.name) for f in fields(ResultRecord)},
                   source=source, runner=runner, env=env)

    @property
    def stale(self) -> bool:
        return self.stale_reason is not None

    def paired_with(self, other: Measurement) -> tuple[list[float], list[float]] | None:
        """Both sample lists restricted to the rounds both have, when the two were measured
        in the same interleave (side by side); None when they were not."""
        if not self.interleave_id or self.interleave_id != other.interleave_id or not self.rounds or not other.rounds:
            return None
        mine = dict(zip(self.rounds, self.samples))
        theirs = dict(zip(other.rounds, other.samples))
        common = sorted(set(mine) & set(theirs))
        return [mine[i] for i in common], [theirs[i] for i in common]

    def paired_processes(self, other: Measurement) -> list[int] | None:
        """With :meth:`paired_with`, which worker process pair took each common round, when
        the interleave ran each settings group in more than one process (round ``i`` in
        process ``i % processes``); None when it ran one or the two were not paired."""
        k = self.interleave.processes if self.interleave else 1
        if k < 2 or self.paired_with(other) is None:
            return None
        return [i % k for i in sorted(set(self.rounds) & set(other.rounds))]

    @property
    def tensorflow(self) -> str:
        """The TensorFlow release measured (:func:`tfperf.analyse.versions.tf_version`)."""
        return tf_version(self.key, self.env)

    @property
    def keras(self) -> str:
        return str(self.key.get("keras") or "?")

    @property
    def version(self) -> str:
        """The software the result was measured with, as a label for trends: the TensorFlow
        release ("TF 2.15.1"). The Keras generation is a setting of the scenario (keras=2/3),
        not a version: Keras 2 beside Keras 3 under one TensorFlow is one version."""
        return f"TF {self.tensorflow}"

    @property
    def commit(self) -> str | None:
        c = self.env.get("git_commit") if self.env else None
        return str(c) if c else None


@dataclass(frozen=True)
class Noise:
    runner: str
    settings_id: str
    rel_noise: float
    case_id: str
    time: str
    interleave: str | None = None      # schema 2: the scenario whose baseline was measured twice
    rounds: int = 0
    arrival: str = BACK_TO_BACK.id     # the scenario's arrival pattern
    p99_noise: float | None = None     # per-request patterns: the A/A pair's relative noise at the 99th percentile

    @property
    def topic(self) -> str:
        """The topic of the A/A pair's case ("<topic>/<params>/<settings>/<variant>")."""
        return self.case_id.split("/", 1)[0]


@dataclass
class Runner:
    label: str
    description: str | None = None
    contributed_by: str | None = None
    sources: list[Source] = field(default_factory=list)
    environments: dict[str, Environment] = field(default_factory=dict)
    # Interleave (scenario) id -> the multiple of its profile's time budget it was given
    # (`tfperf run --budget-scale`), for the scenarios that had one other than 1.
    budget_scales: dict[str, float] = field(default_factory=dict)
    # Interleave id -> the host probe's milliseconds before and after it (``measure.host_probe``),
    # for the scenarios that recorded one.
    probes: dict[str, tuple[float, ...]] = field(default_factory=dict)
    # latest_environment's answer and the number of environments it was read from: they
    # are only ever added (an environment's id is the digest of its record, so an id names
    # one record), and the pages ask for it thousands of times.
    _latest: tuple[int, Environment | None] = field(default=(0, None), init=False, repr=False, compare=False)

    def scaled_scenarios(self, interleaves: Iterable[str]) -> tuple[int, Counter[float]]:
        """Of ``interleaves`` (the scenarios a page publishes for this runner): how many there
        are, and how many of them had each budget scale other than 1."""
        ids = set(interleaves)
        return len(ids), Counter(self.budget_scales[i] for i in ids if i in self.budget_scales)

    def latest_environment(self) -> Environment | None:
        """The environment of the newest TensorFlow release measured, the latest of those (a
        history run of TF 2.12 after the full run of 2.21 does not make the runner "2.12")."""
        if not self.environments:
            return None
        if self._latest[0] != len(self.environments):
            self._latest = (len(self.environments),
                            max(self.environments.values(),
                                key=lambda e: (release_key(tf_version({}, e)), str(e.get("time", "")))))
        return self._latest[1]

    def versions_in_use(self) -> dict[str, list[str]]:
        """Every version of each package recorded by the worker processes of the newest
        TensorFlow release, e.g. ``{"keras": ["2.21.0", "3.15.1"], ...}``: a runner's Keras 3
        and tf_keras processes each record the Keras they really used (``versions.keras``),
        and one environment alone would name only one of them."""
        latest = self.latest_environment()
        if latest is None:
            return {}
        release = release_key(tf_version({}, latest))
        out: dict[str, set[str]] = {}
        for env in self.environments.values():
            if release_key(tf_version({}, env)) != release:
                continue
            for name, version in (env.get("versions") or {}).items():
                if version:
                    out.setdefault(name, set()).add(str(version))
        return {k: sorted(v, key=release_key) for k, v in out.items()}


def settings_of_case_id(case_id: str) -> str:
    """The settings part of "<topic>/<params>/<settings>/<variant>[#aa]"."""
    parts = case_id.split("/")
    return parts[2] if len(parts) >= 4 else "default"


def series_names(docs: Sequence[tuple[Path, ResultsDoc]]) -> dict[tuple[str, str], str]:
    """The name each (runner label, profile) goes by in the analysis: the label, unless the
    same label also has results of another profile; then every profile but ``full`` is
    named "<label>/<profile>". Everything downstream (current results, scenarios, noise
    floors, claims, chart series) groups by that name, so a quick run and a full one of
    one machine are never joined into one result, verdict or chart line.

    The ``history`` profile (other TensorFlow releases on the same machine) is the same
    runner with other software: it always goes by the name of the label's main series,
    and the analysis keeps its releases apart (:func:`current`, ``versions``)."""
    profiles: dict[str, set[str]] = {}
    for _, doc in docs:
        label = str((doc.get("runner") or {}).get("label", "?"))
        profiles.setdefault(label, set()).add(str(doc.get("profile", "?")))
    keep = {label: ("full" if "full" in ps else min(ps - {HISTORY_PROFILE} or ps)) for label, ps in profiles.items()}
    return {(label, p): label if p in (keep[label], HISTORY_PROFILE) else f"{label}/{p}"
            for label, ps in profiles.items() for p in ps}


def read_documents(docs: Sequence[tuple[Path, ResultsDoc]]
                   ) -> tuple[list[Measurement], list[Noise], dict[str, Runner], list[LoadedBreakdown]]:
    """Flatten loaded documents into measurements, noise records, runners and breakdowns."""
    measurements: list[Measurement] = []
    noise: list[Noise] = []
    runners: dict[str, Runner] = {}
    breakdowns: list[LoadedBreakdown] = []
    names = series_names(docs)
    for path, doc in docs:
        rdoc = doc.get("runner") or {}
        label = names[(str(rdoc.get("label", "?")), str(doc.get("profile", "?")))]
        source = Source(path=str(path), runner=label, profile=str(doc.get("profile", "?")))
        runner = runners.setdefault(label, Runner(label=label))
        runner.description = runner.description or rdoc.get("description")
        runner.contributed_by = runner.contributed_by or rdoc.get("contributed_by")
        runner.sources.append(source)
        envs: dict[str, Environment] = doc.get("environments") or {}
        runner.environments.update(envs)
        for r in doc.get("results") or []:
            env_id = r.get("env_id")
            measurements.append(Measurement.of(ResultRecord.from_json(r), source, label,
                                               envs.get(env_id) if env_id else None))
        for a in doc.get("noise") or []:
            noise.append(Noise(runner=label, settings_id=settings_of_case_id(str(a.get("case_id", ""))),
                               rel_noise=float(a.get("rel_noise", 0.0)), case_id=str(a.get("case_id", "")),
                               time=str(a.get("time", "")), interleave=a.get("interleave"),
                               rounds=len(a.get("rounds") or []), arrival=a.get("arrival") or BACK_TO_BACK.id,
                               p99_noise=float(a["p99"]["rel_noise"]) if a.get("p99") else None))
        for s in doc.get("scenarios") or []:
            if s.get("budget_scale", 1) != 1:
                runner.budget_scales[str(s.get("id"))] = float(s["budget_scale"])
            probes = [float(p) for state in (s.get("before"), s.get("after")) if state and (p := state.get("probe_ms"))]
            if probes:
                runner.probes[str(s.get("id"))] = tuple(probes)
        for b in doc.get("breakdowns") or []:
            breakdowns.append(LoadedBreakdown(b, label, source, envs.get(str(b.get("env_id")))))
    return measurements, noise, runners, breakdowns


def back_to_back(measurements: Sequence[Measurement], noise: Sequence[Noise]
                 ) -> tuple[list[Measurement], list[Noise], list[Measurement], list[Noise]]:
    """Measurements and A/A records of back to back (what every table of the guide reads),
    then those of the per-request arrival patterns, kept apart: a pattern's result has the
    parameters, settings and variant of a back-to-back one, and would otherwise take its
    place in a scenario."""
    return ([m for m in measurements if m.arrival_id == BACK_TO_BACK.id], [n for n in noise if n.arrival == BACK_TO_BACK.id],
            [m for m in measurements if m.arrival_id != BACK_TO_BACK.id], [n for n in noise if n.arrival != BACK_TO_BACK.id])


# -- which results count -----------------------------------------------------------------------

def mark_stale(measurements: Iterable[Measurement], topics: Mapping[str, Topic],
               harness_version: str = HARNESS_VERSION) -> list[Measurement]:
    """The measurements, each with its ``stale_reason`` (None: current), found by comparing
    its key with the key the current snippet and harness would give it."""
    return [replace(m, stale_reason=stale_reason(m, topics.get(m.topic), harness_version)) for m in measurements]


def stale_reason(m: ResultRecord, topic: Topic | None, harness_version: str = HARNESS_VERSION) -> str | None:
    """Why a result no longer stands for what the current code would measure, or None."""
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
    return "; ".join(reasons) or None


def _rank(m: Measurement) -> tuple[Any, ...]:
    # Within one TensorFlow release: current beats stale, the runner's main profile beats
    # the history profile (the published grid is not replaced by the smaller one that
    # measured the same release), ok beats failed, then newest first.
    return (not m.stale, m.source.profile != HISTORY_PROFILE, m.ok, m.finished)


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
    return sorted(best.values(), key=lambda m: (m.runner, m.case_id, release_key(m.tensorflow), m.finished))


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


# -- failed results in words -------------------------------------------------------------------

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
