"""The ``history`` profile (one run per TensorFlow version, ``tfperf run --tf V``) of every
topic decides each of its claims, in every version from 2.12 on: both sides of each claim
are measured in one scenario that matches the claim's ``where``, in a settings group that
exists before TensorFlow 2.16 too (Keras 3 groups are "not available" there, so a claim
must also be measurable under Keras 2). No TensorFlow needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tfperf.cases import Case, expand
from tfperf.cases.topic import load_topic

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets"
TOPICS = sorted(p.stem for p in SNIPPETS.glob("*.yaml"))


def _where_ok(case: Case, where: dict[str, Any]) -> bool:
    scope = {**{k: str(v) for k, v in case.params.items()}, **case.settings}
    return all(str(scope.get(k)) in map(str, want) for k, want in where.items())


def _sides(claim: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    return [(claim["candidate"], {k: str(v) for k, v in claim.get("candidate_settings", {}).items()}),
            (claim["baseline"], {k: str(v) for k, v in claim.get("baseline_settings", {}).items()})]


def _decided(cases: list[Case], claim: dict[str, Any], pre_keras3: bool) -> bool:
    """Some scenario and settings (apart from the claim's own settings keys) hold both sides."""
    own = set(claim.get("candidate_settings", {})) | set(claim.get("baseline_settings", {}))
    by_scenario: dict[tuple[str, tuple[tuple[str, str], ...]], set[tuple[str, tuple[tuple[str, str], ...]]]] = {}
    for c in cases:
        if pre_keras3 and c.settings.get("keras") == "3":
            continue
        if not _where_ok(c, claim.get("where", {})):
            continue
        rest = tuple(sorted((k, v) for k, v in c.settings.items() if k not in own))
        mine = tuple(sorted((k, v) for k, v in c.settings.items() if k in own))
        by_scenario.setdefault((c.params_id, rest), set()).add((c.variant, mine))
    for measured in by_scenario.values():
        if all(any(v == variant and all(dict(s).get(k) == val for k, val in settings.items())
                   for v, s in measured) for variant, settings in _sides(claim)):
            return True
    return False


def _decided_per_step(cases: list[Case], claim: dict[str, Any], pre_keras3: bool, param: str) -> bool:
    """A claim with ``compare: per_step`` is decided at two step counts (``param``) or more of
    one scenario apart from the step count: one step count gives no per-step cost."""
    groups: dict[str, list[Case]] = {}
    for c in cases:
        groups.setdefault(",".join(f"{k}={v}" for k, v in sorted(c.params.items()) if k != param), []).append(c)
    return any(sum(_decided([c for c in g if c.params[param] == n], claim, pre_keras3)
                   for n in {c.params[param] for c in g}) >= 2 for g in groups.values())


@pytest.mark.parametrize("name", TOPICS)
@pytest.mark.parametrize("pre_keras3", [False, True], ids=["tf>=2.16", "tf<2.16"])
def test_the_history_profile_decides_every_claim(name: str, pre_keras3: bool) -> None:
    topic = load_topic(SNIPPETS / f"{name}.yaml")
    cases = expand(topic, "history", cores=2)
    claims = [*topic.claims, *topic.settings_claims]
    assert claims
    param = topic.per_step
    undecided = [c["id"] for c in claims if not (_decided_per_step(cases, c, pre_keras3, param)
                                                  if c.get("compare") == "per_step" else _decided(cases, c, pre_keras3))]
    assert undecided == [], f"{name}: the history profile cannot decide {undecided}"


@pytest.mark.parametrize("name", TOPICS)
def test_the_history_profile_is_smaller_than_full_and_keeps_its_keras_groups(name: str) -> None:
    topic = load_topic(SNIPPETS / f"{name}.yaml")
    history, full = expand(topic, "history", cores=2), expand(topic, "full", cores=2)
    assert len({c.params_id for c in history}) < len({c.params_id for c in full})
    assert {c.settings.get("keras") for c in history} == {c.settings.get("keras") for c in full}
