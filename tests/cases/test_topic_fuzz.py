"""Fuzzed topics and site intake: mutate a valid topic YAML and its snippet every way a typo,
a broken editor or a hostile pull request could (wrong types, huge and non-finite numbers,
nesting, aliases, bad bytes and encodings), and mutate the files a site build reads
(results, topic, snippet; links, folders and FIFOs in their place). Loading a topic either
gives one that the run can plan or raises a ``CaseGridError`` naming the file in one line;
the site's intake (analysis, notebooks, the pages' blocks, publishing) never raises at all.

Seeded (``derandomize``) so that CI runs the same cases every time. The number of examples
scales with ``TFPERF_FUZZ_EXAMPLES`` (default 1500: 1500 topics and 300 site trees):

    TFPERF_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q tests/cases/test_topic_fuzz.py
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_intake_fuzz import EXAMPLES as SCALE
from test_intake_fuzz import FUZZ_OPTIONS as FUZZ
from test_intake_fuzz import mutated as mutated_results
from test_intake_fuzz import paths_into

from tfperf import cases
from tfperf.errors import CaseGridError
from tfperf.measure import envinfo
from tfperf.measure.supervise import orchestrate
from tfperf.render.site.site import Site

ROOT = Path(__file__).resolve().parents[2]
ANALYSIS = ROOT / "tests" / "fixtures" / "site" / "analysis"
# A small topic that uses every section of the schema (tfperf.cases.topic_schema.TOPIC), and a
# fixture topic whose settings are mapped with a "*" entry: the mutations start from these.
RICH = b"""\
topic: rich
title: "Every section"
snippet: rich.py
setup: setup
reference: a
default: b
tolerance: {rtol: 1.0e-4, atol: 1e-5}
timeout_s: 60
per_call: {divide_by: steps, unit: step}
per_step: {param: steps}
variants:
  a: {fn: f, label: "the a way"}
  b: {fn: g, setup: setup_b}
exclude: [{variant: b, steps: 8}]
settings_map:
  threads: {"*": {intra_op_threads: "{value}", env: {OMP: "{value}"}}, default: {}}
  mode: {graph: {eager: false, cpus: [0]}, eager: {inter_op_threads: 1, cpus: "0"}}
baseline_settings: {threads: default, mode: eager}
settings_labels: {threads: {default: "default", "*": "{value} threads"}}
profiles:
  quick:
    params: {steps: [1, 4], size: small}
    settings: {threads: [default, "1..cores"], mode: [eager, graph]}
    variants: [a, b]
    exclude: [{mode: graph, threads: "1"}]
    budget: {min_samples: 3, max_samples: 9, target_rel_ci: 0.05, budget_s: 0.5, warmup_s: 0, min_sample_s: 0.001}
    timeout_s: 30
  full:
    params: {steps: [1, 8], size: [small, big]}
    settings: {threads: [default], mode: [eager]}
claims:
  - {id: b_wins, text: "b is faster.", candidate: b, baseline: a, where: {size: small}, min_effect: 0.1}
  - {id: b_per_step, text: "b per step.", candidate: b, baseline: a, compare: per_step, expect: same}
settings_claims:
  - {id: graph_wins, text: "graph is faster.", candidate: a, baseline: a,
     candidate_settings: {mode: graph}, baseline_settings: {mode: eager}, where: {threads: [default]}}
questions:
  - {id: b_faster, ask: "Is b faster than a?", claims: [b_wins, b_per_step], yes_if: faster, note: "a note"}
names: {a: "the a way", b: "the b way"}
controls:
  - {id: same, text: "the same", variant: a, settings: {threads: "{cores}"}, same_as: {threads: default},
     where: {size: [small]}}
breakdowns:
  - {variant: a, params: {steps: 1}, settings: {mode: eager}, calls: 10, profiles: [quick]}
breakdown_categories:
  - {name: "steps", match: ["rich.py"]}
"""
RICH_PY = b"def setup(p):\n    return {}\n\ndef setup_b(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 1\n"
GAPS = ROOT / "tests" / "fixtures" / "site" / "gaps" / "snippets"
BASES = {"rich": (RICH, RICH_PY),
         "fixture_settings": ((GAPS / "fixture_settings.yaml").read_bytes(), (GAPS / "fixture_settings.py").read_bytes())}


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for seg in path:
        doc = doc[seg]
    return doc


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(),
    st.text(max_size=12), st.sampled_from(["1..cores", "{value}", "../../etc/passwd", "1e-5", "nan", "-0", "quick",
                                           "a\nb", "\x00", "é", "*", "1,2", ""]),
)
values = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=6)
NASTY_YAML = [b"[" * 40 + b"]" * 40, b"[" * 100_000, b"&a [*a, *a]", b"!!python/object:os.system x", b"7" * 5000,
              b".inf", b"-.nan", b"!!binary aGk=", b"2020-01-01", b"{? [a]: b}", b"<<: *x", b"\xff\xfe", b"\x00",
              b"\xef\xbb\xbf", b"'\xe9'", b"|\n  multi\n  line"]


@st.composite
def topic_files(draw: st.DrawFn) -> tuple[str, bytes, bytes]:
    """A topic (its name), its YAML and its snippet, one of them mutated."""
    name = draw(st.sampled_from(sorted(BASES)))
    return (name, *_mutated(draw, *BASES[name]))


PARSED = {text: yaml.safe_load(text) for text, _ in BASES.values()}
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)        # libyaml's, where installed: the same YAML, faster


def _mutated(draw: st.DrawFn, text: bytes, snippet: bytes) -> tuple[bytes, bytes]:
    kind = draw(st.sampled_from(["value", "value", "drop_key", "unknown_key", "yaml_bytes", "yaml_nasty",
                                 "yaml_truncate", "snippet"]))
    if kind in ("value", "drop_key", "unknown_key"):
        data = copy.deepcopy(PARSED[text])
        paths = paths_into(data)
        if kind == "value":
            path = draw(st.sampled_from(paths[1:]))
            _get(data, path[:-1])[path[-1]] = draw(values)
        else:
            target = _get(data, draw(st.sampled_from([p for p in paths if isinstance(_get(data, p), dict)])))
            if kind == "unknown_key":
                target[draw(st.text(min_size=1, max_size=8))] = draw(values)
            elif target:
                target.pop(draw(st.sampled_from(sorted(target, key=str))))
        return yaml.dump(data, Dumper=DUMPER, allow_unicode=True).encode(), snippet
    if kind == "yaml_bytes":
        at = draw(st.integers(0, len(text) - 1))
        return text[:at] + draw(st.binary(min_size=1, max_size=4)) + text[at + 1:], snippet
    if kind == "yaml_nasty":
        lines = text.split(b"\n")
        at = draw(st.integers(0, len(lines) - 1))
        line = lines[at]
        colon = line.find(b": ")
        lines[at] = (line[:colon + 2] if colon >= 0 else line) + draw(st.sampled_from(NASTY_YAML))
        return b"\n".join(lines), snippet
    if kind == "yaml_truncate":
        return text[:draw(st.integers(0, len(text) - 1))], snippet
    how = draw(st.sampled_from(["bytes", "truncate", "nul", "latin1", "deep"]))
    at = draw(st.integers(0, len(snippet) - 1))
    changed = {"bytes": snippet[:at] + draw(st.binary(min_size=1, max_size=4)) + snippet[at + 1:],
               "truncate": snippet[:at], "nul": snippet[:at] + b"\x00" + snippet[at:],
               "latin1": snippet + b"# caf\xe9\n", "deep": snippet + b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n"}
    return text, changed[how]


@pytest.fixture()
def quick_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package versions of a plan without asking the installed metadata every time."""
    versions = envinfo.package_versions(None)
    monkeypatch.setattr(envinfo, "package_versions", lambda _=None: versions)


@settings(max_examples=max(100, SCALE), **FUZZ)  # type: ignore[arg-type]
@given(files=topic_files())
def test_a_mutated_topic_loads_and_plans_or_is_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                                  quick_versions: None,
                                                                  files: tuple[str, bytes, bytes]) -> None:
    d = tmp_path_factory.mktemp("topic")
    name, text, snippet = files
    (d / f"{name}.yaml").write_bytes(text)
    (d / f"{name}.py").write_bytes(snippet)
    try:
        topic = cases.load(d / f"{name}.yaml", cores=4)
    except CaseGridError as exc:
        assert str(d) in str(exc), f"the error does not name the file: {exc}"
        assert "\n" not in str(exc), "one line per error"
        event("refused")
        return
    event("loaded")
    for profile in topic.profiles:          # what the run does next, before any worker starts
        options = orchestrate.RunOptions(profile=profile, runner="fuzz-box", data_root=d / "data", progress=False)
        plan = orchestrate.plan(options, topics=[topic])
        for sc in plan.scenarios:
            json.dumps([t.payload for t in sc.tasks + sc.breakdowns], allow_nan=False)


# -- the site build's intake ----------------------------------------------------------------

PAGE = "<!-- tfperf:claims fixture_topic -->\n\n<!-- tfperf:recommendations fixture_topic -->\n"
RESULTS = ANALYSIS / "data" / "results" / "fixture-a" / "full.json"


def _replace(path: Path, how: str) -> None:
    """Put something other than a regular file where ``path`` was."""
    path.unlink()
    if how == "link":
        path.symlink_to("/etc/passwd")
    elif how == "dangling":
        path.symlink_to(path.parent / "nowhere")
    elif how == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)


@st.composite
def site_trees(draw: st.DrawFn) -> tuple[str, str, Any]:
    """Which file of the tree is changed, and how."""
    which = draw(st.sampled_from(["results", "results", "topic", "snippet", "path"]))
    if which == "results":
        return which, "bytes", draw(mutated_results())
    if which == "path":
        return which, draw(st.sampled_from(["results", "topic", "snippet", "nested"])), \
            draw(st.sampled_from(["link", "dangling", "folder", "fifo"]))
    text = (ANALYSIS / "snippets" / "fixture_topic.yaml").read_bytes()
    snippet = (ANALYSIS / "snippets" / "fixture_topic.py").read_bytes()
    base = {"topic": text, "snippet": snippet}[which]
    how = draw(st.sampled_from(["bytes", "truncate", "nasty"] if which == "topic" else ["bytes", "truncate", "nul"]))
    at = draw(st.integers(0, len(base) - 1))
    if how == "bytes":
        return which, how, base[:at] + draw(st.binary(min_size=1, max_size=4)) + base[at + 1:]
    if how == "truncate":
        return which, how, base[:at]
    if how == "nul":
        return which, how, base[:at] + b"\x00" + base[at:]
    return which, how, base + b"\nexclude: " + draw(st.sampled_from(NASTY_YAML)) + b"\n"


@settings(max_examples=max(30, SCALE // 5), **FUZZ)  # type: ignore[arg-type]
@given(tree=site_trees())
def test_the_site_build_never_stops_on_a_mutated_input(tmp_path_factory: pytest.TempPathFactory,
                                                       tree: tuple[str, str, Any]) -> None:
    root = tmp_path_factory.mktemp("site")
    results, snippets = root / "data" / "results", root / "snippets"
    shutil.copytree(ANALYSIS / "data" / "results", results)
    shutil.copytree(ANALYSIS / "snippets", snippets)
    which, how, change = tree
    target = {"results": results / "fixture-a" / "full.json", "topic": snippets / "fixture_topic.yaml",
              "snippet": snippets / "fixture_topic.py"}.get(which if which != "path" else how)
    if which == "path" and how == "nested":
        (results / "fixture-a" / "sub").mkdir()
        shutil.copyfile(RESULTS, results / "fixture-a" / "sub" / "full.json")
    elif which == "path":
        assert target is not None
        _replace(target, change)
    else:
        assert target is not None
        target.write_bytes(change)
    site = Site(root, results, snippets, root / "cache")
    site.prepare()                                              # analysis, sources, notebooks
    assert site.ds is not None
    for err in site.ds.errors:
        assert str(root) in str(err) and "\n" not in str(err), err
    html = site.page_markdown(PAGE, "index.md", "index/")      # the blocks of the topic's page
    assert "TFPERFSLOT" in html
    site.post_build(root / "site")                              # publishing
    published = {p.relative_to(root / "site" / "data" / "results") for p in
                 (root / "site" / "data" / "results").rglob("*") if p.is_file()}
    assert published == {p.relative_to(results) for p in site.ds.files}
    assert all(not p.is_symlink() for p in (root / "site").rglob("*"))
