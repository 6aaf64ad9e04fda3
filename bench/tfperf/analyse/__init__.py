"""Analysis of stored results: pure functions over loaded documents, no TensorFlow.

Three sub-packages by role, each lower one imported by the ones above it, and the module that
puts them together:

* ``load/``   – loading and selecting results: the files read, flattened into records, the
  current result per case, releases, noise floors, failures, the sources' figures;
* ``judge/``  – judging them: speedups with intervals, the one vocabulary of findings (faster,
  slower, the same, unclear), recommendations, claims, controls, per-step costs, arrival
  patterns, findings per release;
* ``dataset`` – all of it computed once: ``analyse(results_root, snippets_dir)``;
* ``views/``  – what the pages and reports need from a ``Dataset``: answers, advice, the home
  page's tables, then and now, this machine against the published runners, regressions.

Each sub-package's ``__init__`` names its modules and what each is for.

This package is the stage's public API: render and the CLI import the analysis from
``tfperf.analyse`` only, never from its modules (the "facade" contract in pyproject.toml and
tests/test_layers.py fail on a deep import). It exports exactly the names they use,
``__all__`` below; a new one is added here when a renderer needs it. Three are exported under
another name than their module gives them (``headline_findings``, ``claims_by_release``,
``topic_then_now``): a name equal to a module's would replace that module on its package
and read, to both checks, as an import of the module. No module of this package imports
the package itself (that would be a cycle): they import each other by module.
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
from .judge.ratios import RatioCache
from .judge.scenarios import exclusion_reason, nonfinite
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
from .load.failures import error_line, failed_results
from .load.origins import Origin, Sources, load_sources
from .load.records import ChartRow, LoadedBreakdown, Measurement, params_id, settings_id
from .load.versions import is_development, listing, release_key, short_labels, sort_versions
from .views.advice import advise
from .views.answers import ClaimAnswer, QuestionAnswer, claim_answer, hardware_name, question_answers, runner_name
from .views.findings import findings as headline_findings
from .views.local import LOCAL_ROOT, ThisMachine, this_machine
from .views.settings_advice import Choice, SettingsAdvice, advise_settings
from .views.then_now import ThenNow
from .views.then_now import then_now as topic_then_now
from .views.versions_table import versions_table as claims_by_release
from .views.versus import Versus, as_json, compare_files

__all__ = [
    "FAILED",
    "LOCAL_ROOT",
    "MARGIN",
    "NOT_AVAILABLE",
    "NOT_MEASURED",
    "N_BOOT",
    "RULE",
    "SUMMARY_RULE",
    "VERDICT_RULE",
    "WORDS",
    "ChartRow",
    "Choice",
    "Claim",
    "ClaimAnswer",
    "ClaimCheck",
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
    "SettingsAdvice",
    "Sources",
    "SpeedupRow",
    "StepGroup",
    "StepSeries",
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
    "nonfinite",
    "params_id",
    "question_answers",
    "ratio_text",
    "release_key",
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
