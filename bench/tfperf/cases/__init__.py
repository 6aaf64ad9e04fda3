"""The cases stage: a topic YAML (``snippets/<topic>.yaml``) read and checked into a
:class:`Topic`, and its case grid.

Read:   ``load(path)`` (the topic checked completely, its grid included), ``discover(folder)``
Grid:   ``expand(topic, profile)`` -> ``Case``s, ``shard(cases, i, n)``
Topic:  ``Topic`` (what the run and the analysis read of a topic, the reader's words for its
        variants and values included), ``read_yaml`` (a YAML file read within the size and
        depth limits)
Rules:  ``Claim``, ``Control``, ``Question``, ``CategoryRule`` (what a topic declares),
        ``where_holds``, ``control_applies`` (which parameters a claim or control covers),
        ``PARAM_KEY``, ``with_step_param`` (a per-step claim's step parameter)

The modules: ``topic_schema`` (the keys a topic may use and what each value must be),
``variant_source`` (what a variant runs, as a hash), ``topic`` (the YAML read into a
:class:`Topic`), ``grid`` (its cases). The measuring budget (``tfperf.stats.Budget``) and the
arrival patterns (``tfperf.arrival``) are the foundation's: the worker, which runs without
YAML, and the store read them too.
"""

from .grid import Case, discover, expand, load, shard
from .topic import Topic, read_yaml
from .topic_schema import (
    PARAM_KEY,
    PER_STEP,
    CategoryRule,
    Claim,
    Control,
    Question,
    control_applies,
    where_holds,
    with_step_param,
)

__all__ = [
    "PARAM_KEY",
    "PER_STEP",
    "Case",
    "CategoryRule",
    "Claim",
    "Control",
    "Question",
    "Topic",
    "control_applies",
    "discover",
    "expand",
    "load",
    "read_yaml",
    "shard",
    "where_holds",
    "with_step_param",
]
