"""Analysis of stored results: pure functions over loaded documents, no TensorFlow.

Read it bottom up: what is loaded, how it is judged, the dataset that computes it once, and
the views the pages take from that dataset. Loading is three modules, kept at the top (a
folder of three would only add a level); judging (six modules) and the views (five) are the
two roles a reader looks for apart, so each has a folder whose ``__init__`` names its
modules:

* ``versions``  – TensorFlow releases as a dimension of the results: which release a result
  measured, their numeric order, how a page names them, development builds;
* ``records``   – the results files of a data root read into records (measurements, A/A
  pairs, runners), which of them count (stale marking, the current result per case, history
  per release), failed results in words, and the rows charts draw (with the one naming rule
  of the flat table Vega-Lite reads them as);
* ``origins``   – the figures a topic's sources reported, from ``docs/sources/<topic>.yaml``;
* ``judge/``    – judging the records (imports ``records`` and ``versions``, never
  ``dataset`` or ``views``): the one vocabulary of findings (faster, slower, the same,
  unclear), speedups with intervals and noise floors per scenario, recommendations,
  settings groups and controls, claims, per-step and first-call costs, arrival patterns,
  findings per release;
* ``dataset``   – all of it computed once: ``analyse(results_root, snippets_dir)``;
* ``views/``    – what the pages and reports need from a ``Dataset`` or from two sets of
  results compared (nothing else imports them): answers, advice, the home page's tables,
  then and now, this machine against the published runners, regressions, each runner's
  controls and the scenarios it measured twice.

This package is the stage's public API: render and the CLI import the analysis from
``tfperf.analyse`` only, never from its modules (the "facade" contract in pyproject.toml and
tests/codebase/test_layers.py fail on a deep import). It exports exactly the names they use,
``__all__`` below; a new one is added here when a renderer needs it. Three functions of
``views.answers`` are exported under a name that says which table a page gets from them
(``headline_findings`` is ``findings``, ``claims_by_release`` is ``versions_table``,
``topic_then_now`` is ``then_now``). No exported name is also a module's name (checked by
tests/codebase/test_layers.py): it would replace that module on its package and read, to both
checks, as an import of the module. No module of this package imports the package itself
(that would be a cycle): they import each other by module.
"""

from ..cases import Claim
from .dataset import Dataset, analyse, load_topics
from .judge.arrivals import PatternRow, PatternTable
from .judge.claims import ClaimCheck, scenario_labels
from .judge.effects import (
    MARGIN,
    RULE,
    SUMMARY_RULE,
    VERDICT_RULE,
    WORDS,
    Finding,
    Verdict,
    expectation_text,
    ratio_text,
    summarise,
    summary_text,
)
from .judge.per_step import N_BOOT, Headline, Interval, StepGroup, StepSeries, headline, step_groups
from .judge.scenarios import RatioCache, exclusion_reason, nonfinite
from .judge.version_verdicts import (
    FAILED,
    NOT_AVAILABLE,
    NOT_MEASURED,
    SpeedupRow,
    VersionCell,
    VersionStrip,
    change_text,
    speedup_rows,
    steady_text,
)
from .origins import Origin, Sources, load_sources
from .records import (
    PARAM,
    PARAM_WORDS,
    SETTING,
    SETTING_WORDS,
    ChartRow,
    LoadedBreakdown,
    Measurement,
    SettingsRow,
    TableRow,
    error_line,
    failed_results,
    params_id,
    settings_id,
)
from .versions import is_development, listing, release_key, short_labels, sort_versions
from .views.advice import Choice, SettingsAdvice, advise, advise_settings
from .views.answers import (
    ClaimAnswer,
    ClaimRow,
    QuestionAnswer,
    RunnerAnswer,
    ThenNow,
    claim_answer,
    counted_text,
    cpu_text,
    hardware_name,
    machine_differences,
    maybe_one_cpu,
    question_answers,
    runner_name,
)
from .views.answers import findings as headline_findings
from .views.answers import then_now as topic_then_now
from .views.answers import versions_table as claims_by_release
from .views.controls import controls_by_runner
from .views.repeats import repeats_by_runner
from .views.versus import LOCAL_ROOT, ThisMachine, Versus, as_json, compare_files, this_machine

__all__ = [
    "FAILED",
    "LOCAL_ROOT",
    "MARGIN",
    "NOT_AVAILABLE",
    "NOT_MEASURED",
    "N_BOOT",
    "PARAM",
    "PARAM_WORDS",
    "RULE",
    "SETTING",
    "SETTING_WORDS",
    "SUMMARY_RULE",
    "VERDICT_RULE",
    "WORDS",
    "ChartRow",
    "Choice",
    "Claim",
    "ClaimAnswer",
    "ClaimCheck",
    "ClaimRow",
    "Dataset",
    "Finding",
    "Headline",
    "Interval",
    "LoadedBreakdown",
    "Measurement",
    "Origin",
    "PatternRow",
    "PatternTable",
    "QuestionAnswer",
    "RatioCache",
    "RunnerAnswer",
    "SettingsAdvice",
    "SettingsRow",
    "Sources",
    "SpeedupRow",
    "StepGroup",
    "StepSeries",
    "TableRow",
    "ThenNow",
    "ThisMachine",
    "Verdict",
    "VersionCell",
    "VersionStrip",
    "Versus",
    "advise",
    "advise_settings",
    "analyse",
    "as_json",
    "change_text",
    "claim_answer",
    "claims_by_release",
    "compare_files",
    "controls_by_runner",
    "counted_text",
    "cpu_text",
    "error_line",
    "exclusion_reason",
    "expectation_text",
    "failed_results",
    "hardware_name",
    "headline",
    "headline_findings",
    "is_development",
    "listing",
    "load_sources",
    "load_topics",
    "machine_differences",
    "maybe_one_cpu",
    "nonfinite",
    "params_id",
    "question_answers",
    "ratio_text",
    "release_key",
    "repeats_by_runner",
    "runner_name",
    "scenario_labels",
    "settings_id",
    "short_labels",
    "sort_versions",
    "speedup_rows",
    "steady_text",
    "step_groups",
    "summarise",
    "summary_text",
    "this_machine",
    "topic_then_now",
]
