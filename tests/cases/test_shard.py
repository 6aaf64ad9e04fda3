"""``tfperf run --shard I/N`` splits a profile across CI jobs: the shards of a case list
must partition it (their union is the unsharded list, no case twice) and keep every
variant of one parameter combination together (the output check needs the reference
beside the other variants). No TensorFlow: only the case grid is expanded."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfperf.cases import Case, discover, expand, shard
from tfperf.cases.topic import Topic, load_topic
from tfperf.stats import Budget

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
COUNTS = range(1, 8)


def slot(c: Case) -> tuple[str, str, str]:
    """The cases that must share a shard: one topic, settings group and parameter combination."""
    return (c.topic, c.settings_id, c.params_id)


def check_partition(cases: list[Case], count: int) -> list[list[Case]]:
    """Assert the shards of ``cases`` partition it; return them."""
    ids = [c.case_id for c in cases]
    assert len(ids) == len(set(ids)), "precondition: the unsharded list has no duplicate case"
    shards = [shard(cases, i, count) for i in range(1, count + 1)]
    seen: dict[str, int] = {}
    for i, part in enumerate(shards, 1):
        for c in part:
            assert c.case_id not in seen, f"{c.case_id} is in shard {seen[c.case_id]} and shard {i} of {count}"
            seen[c.case_id] = i
        # Each shard keeps the unsharded order (the reference runs before its variants).
        positions = [ids.index(c.case_id) for c in part]
        assert positions == sorted(positions)
    assert sorted(seen) == sorted(ids), "the union of the shards is not the unsharded case list"
    where: dict[tuple[str, str, str], int] = {}
    for c in cases:
        s = where.setdefault(slot(c), seen[c.case_id])
        assert s == seen[c.case_id], f"variants of {slot(c)} are split across shards {s} and {seen[c.case_id]}"
    return shards


# ---------------------------------------------------------------- the real topics

@cache
def _topics() -> dict[str, Topic]:
    return {t.name: t for t in discover(SNIPPETS)} if SNIPPETS.is_dir() else {}


def real_case_lists() -> list[str]:
    """'topic:profile:Ncores' of every topic, profile and runner size: "1..cores" settings
    expand differently per runner. The cases themselves are expanded by the test that takes
    them (:func:`real_cases`), not at collection, which every pytest worker repeats."""
    return [f"{topic.name}:{profile}:{cores}cores" for topic in _topics().values()
            for profile in topic.profiles for cores in (2, 4)]


@cache
def real_cases(name: str) -> list[Case]:
    topic, profile, cores = name.split(":")
    return expand(_topics()[topic], profile, cores=int(cores.removesuffix("cores")))


REAL = real_case_lists()


@pytest.mark.skipif(not REAL, reason="no topic YAML in snippets/ yet")
@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize("count", COUNTS)
def test_real_topics_partition(name: str, count: int) -> None:
    check_partition(real_cases(name), count)


@pytest.mark.skipif(not REAL, reason="no topic YAML in snippets/ yet")
def test_all_real_topics_together_partition() -> None:
    """CI shards the case list of every topic at once (tfperf run without --topic)."""
    cases = [c for name in REAL if name.endswith(":2cores") and ":full:" in name for c in real_cases(name)]
    for count in (2, 3, 4):
        shards = check_partition(cases, count)
        if len({slot(c) for c in cases}) >= 4 * count:
            assert all(shards), f"an empty shard among {count} for {len(cases)} cases"


# ---------------------------------------------------------------- a synthetic topic through the YAML path

SYNTHETIC_YAML = """
topic: synth
reference: ref
default: slow
variants:
  ref: {fn: f}
  slow: {fn: f}
  fast: {fn: f}
  odd: {fn: f}
profiles:
  quick:
    params: {size: [1, 2, 3, 4, 5], mode: [a, b], flag: [true, false]}
    settings: {keras: ["3", "2"], threads: ["1..cores"]}
  full:
    params: {size: [1, 10, 100, 1000], mode: [a, b, c]}
    variants: [ref, fast]
settings_map:
  threads: {"*": {intra_op_threads: "{value}", env: {OMP_NUM_THREADS: "{value}"}}}
exclude:
  - {size: 5, variant: odd}
  - {mode: b, keras: "2"}
"""


@pytest.fixture()
def synthetic_topic(tmp_path: Path) -> Topic:
    (tmp_path / "synth.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    path = tmp_path / "synth.yaml"
    path.write_text(SYNTHETIC_YAML, encoding="utf-8")
    return load_topic(path)


@pytest.mark.parametrize("profile", ["quick", "full"])
@pytest.mark.parametrize("cores", [1, 3, 8])
@pytest.mark.parametrize("count", COUNTS)
def test_synthetic_topic_partitions(synthetic_topic: Topic, profile: str, cores: int, count: int) -> None:
    cases = expand(synthetic_topic, profile, cores=cores)
    assert len({c.group_key for c in cases}) > 1 or profile == "full"
    check_partition(cases, count)


def test_excluded_variant_does_not_move_its_combination(synthetic_topic: Topic) -> None:
    """An excluded variant leaves a combination with fewer cases; it still lands in one shard."""
    cases = expand(synthetic_topic, "quick", cores=2)
    short = [c for c in cases if c.params["size"] == 5]
    assert short and all(c.variant != "odd" for c in short)
    for count in (2, 5):
        check_partition(cases, count)


# ---------------------------------------------------------------- synthetic case lists

BUDGET = Budget(min_samples=3, max_samples=5, target_rel_ci=0.1, budget_s=0.1, warmup_s=0.0, min_sample_s=0.001)


def make_case(topic: str, params: dict[str, object], settings: dict[str, str], variant: str) -> Case:
    return Case(topic=topic, variant=variant, params=params, settings=settings,
                process={"env": {f"S_{k}": v for k, v in settings.items()}}, snippet=f"{topic}.py", fn="f",
                setup="setup", reference="v0", default="v0", tolerance={"rtol": 1e-4, "atol": 1e-5},
                timeout_s=10.0, budget=BUDGET, snippet_hash="0" * 16, source_hash="0" * 16)


grids = st.lists(
    st.tuples(
        st.sampled_from(["alpha", "beta", "gamma"]),                         # topic
        st.dictionaries(st.sampled_from(["batch", "size", "model"]),
                        st.one_of(st.integers(0, 9), st.sampled_from(["tiny", "large"]), st.booleans()),
                        max_size=3),                                          # params
        st.dictionaries(st.sampled_from(["keras", "threads"]), st.sampled_from(["1", "2", "3"]), max_size=2),
        st.lists(st.sampled_from(["v0", "v1", "v2", "v3"]), min_size=1, max_size=4, unique=True),
    ),
    max_size=25,
)


def cases_from(grid: list[tuple[str, dict[str, object], dict[str, str], list[str]]]) -> list[Case]:
    out: dict[str, Case] = {}
    for topic, params, sets, variants in grid:
        for v in variants:
            c = make_case(topic, params, sets, v)
            out.setdefault(c.case_id, c)
    return list(out.values())


@settings(max_examples=150, deadline=None)
@given(grid=grids, count=st.integers(1, 9))
def test_any_case_list_partitions(grid: list[tuple[str, dict[str, object], dict[str, str], list[str]]],
                                  count: int) -> None:
    check_partition(cases_from(grid), count)


@settings(max_examples=60, deadline=None)
@given(grid=grids, count=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_assignment_does_not_depend_on_order(grid: list[tuple[str, dict[str, object], dict[str, str], list[str]]],
                                             count: int, seed: int) -> None:
    """Each job expands the grid itself; the shards must agree whatever order it comes in."""
    cases = cases_from(grid)
    shuffled = cases[:]
    random.Random(seed).shuffle(shuffled)
    for i in range(1, count + 1):
        assert {c.case_id for c in shard(cases, i, count)} == {c.case_id for c in shard(shuffled, i, count)}


def test_one_shard_is_everything() -> None:
    cases = cases_from([("alpha", {"batch": b}, {"keras": k}, ["v0", "v1"]) for b in range(5) for k in "23"])
    assert [c.case_id for c in shard(cases, 1, 1)] == [c.case_id for c in cases]


def test_shards_are_not_all_in_one() -> None:
    """The hash spreads combinations: 60 combinations over 3 shards leave none empty."""
    cases = cases_from([("alpha", {"batch": b}, {"keras": k}, ["v0", "v1"]) for b in range(30) for k in "23"])
    sizes = [len(shard(cases, i, 3)) for i in (1, 2, 3)]
    assert sum(sizes) == len(cases) and min(sizes) >= len(cases) // 6, sizes


@pytest.mark.parametrize("index,count", [(0, 3), (4, 3), (-1, 2), (1, 0)])
def test_out_of_range_shard_is_refused(index: int, count: int) -> None:
    with pytest.raises(ValueError):
        shard([], index, count)


def test_assignment_is_stable_across_processes() -> None:
    """Jobs run in different processes on different machines: the assignment may not
    depend on Python's per-process string hash."""
    cases = cases_from([("alpha", {"batch": b, "model": m}, {"keras": "3"}, ["v0", "v1"])
                        for b in range(12) for m in ("tiny", "large")])
    here = {c.case_id: next(i for i in (1, 2, 3) if c in shard(cases, i, 3)) for c in cases}
    code = (
        "import json, sys\n"
        "sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "from test_shard import cases_from\n"
        "from tfperf.cases import shard\n"
        "cases = cases_from([('alpha', {'batch': b, 'model': m}, {'keras': '3'}, ['v0', 'v1'])"
        " for b in range(12) for m in ('tiny', 'large')])\n"
        "print(json.dumps({c.case_id: i for i in (1, 2, 3) for c in shard(cases, i, 3)}))\n"
    )
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(ROOT / "bench")],
                             env=env, capture_output=True, text=True, check=True, timeout=60)
        assert json.loads(out.stdout) == here
