"""Analysis of stored results: pure functions over loaded documents, no TensorFlow.

* ``source``   – read the results files (through the store when available);
* ``records``  – flatten documents into measurements, A/A noise records, runners;
* ``select``   – stale marking, the current result per case, history per version;
* ``effects``  – the one vocabulary: a comparison's finding (faster, slower, the same,
  unclear), a summary over scenarios, a claim's verdict, their words, symbols and CSS;
* ``compare``  – scenarios and recommendations (fastest correct variant vs the default);
* ``claims``   – claims tested per scenario and runner;
* ``answers``  – each claim and each of a topic's questions answered in words;
* ``arrivals`` – the per-request arrival patterns: percentiles, speedups, claims per pattern;
* ``versions`` – TensorFlow releases: which one a result measured, numeric order, labels;
* ``version_verdicts`` – a claim's finding per release on a runner, and where it changed;
* ``versions_table``   – the home page's claims × releases table;
* ``findings`` – the home page's table of every claim;
* ``failures`` – failed results in words ("failed: N cases", the first error);
* ``dataset``  – all of it computed once: ``analyse(results_root, snippets_dir)``.

This package is the stage's public API: render and the CLI import the analysis from
``tfperf.analyse`` only, never from its modules (tests/test_layers.py and the "facade"
contract in pyproject.toml fail on a deep import). It exports exactly the names they use,
``__all__`` below; a new one is added here when a renderer needs it. Three are exported under
another name than their module gives them (``headline_findings``, ``claims_by_release``,
``topic_then_now``): a name equal to a module's would replace that module on the package
and read, to both checks, as an import of the module. No module of this package imports
the package itself (that would be a cycle): they import each other by module.
"""

from ..cases import Claim
from .advice import advise
from .answers import ClaimAnswer, QuestionAnswer, claim_answer, hardware_name, question_answers
from .arrivals import PatternRow, PatternTable
from .claims import ClaimCheck, scenario_labels
from .compare import exclusion_reason, nonfinite
from .dataset import Dataset, analyse, load_topics
from .effects import (
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
from .failures import error_line, failed_results
from .findings import findings as headline_findings
from .local import LOCAL_ROOT, ThisMachine, this_machine
from .origins import Origin, Sources, load_sources
from .per_step import N_BOOT, Headline, Interval, StepGroup, StepSeries, headline, step_groups
from .ratios import RatioCache
from .records import ChartRow, LoadedBreakdown, Measurement, params_id, settings_id
from .settings_advice import Choice, SettingsAdvice, advise_settings
from .then_now import ThenNow
from .then_now import then_now as topic_then_now
from .version_verdicts import (
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
from .versions import is_development, listing, release_key, short_labels, sort_versions
from .versions_table import versions_table as claims_by_release
from .versus import Versus, as_json, compare_files

__all__ = [
    "FAILED", "LOCAL_ROOT", "MARGIN", "NOT_AVAILABLE", "NOT_MEASURED", "N_BOOT", "RULE", "SUMMARY_RULE", "VERDICT_RULE",
    "WORDS",
    "ChartRow", "Choice", "Claim", "ClaimAnswer", "ClaimCheck", "Dataset", "Finding", "Headline", "Interval", "LoadedBreakdown",
    "Measurement", "Origin", "PatternRow", "PatternTable", "QuestionAnswer", "RatioCache", "SettingsAdvice", "Sources",
    "SpeedupRow",
    "StepGroup", "StepSeries", "ThenNow", "ThisMachine", "Verdict", "VersionCell", "VersionStrip", "Versus",
    "advise", "advise_settings", "analyse", "as_json", "change_text", "claim_answer", "claims_by_release",
    "compare_files", "error_line", "exclusion_reason", "expectation_text", "failed_results", "hardware_name",
    "headline", "headline_findings", "is_development", "listing", "load_sources", "load_topics", "nonfinite", "params_id",
    "question_answers", "ratio_text", "release_key", "scenario_labels", "settings_id", "short_labels",
    "sort_versions", "speedup_rows", "steady_text", "step_groups", "summarise", "summary_text", "this_machine",
    "topic_then_now",
]
