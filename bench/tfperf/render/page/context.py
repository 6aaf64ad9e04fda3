"""What a block renderer is given: the placeholder it fills, parsed (:class:`Directive`), and
the page's :class:`Context` (the analysed data, the path to the site root, the SVG cache),
with the small pieces each figure carries (finding badge, a stated finding, "no results
yet", stale mark, provenance line). Kept apart from the renderers so the modules of
renderers (``blocks``, ``topic_blocks``) import it and not each other.

Block placeholders, each alone on a line (an HTML comment, invisible if not replaced)::

    <!-- tfperf:chart predict_vs_call view=latency x=batch facet=model -->
    <!-- tfperf:recommendations predict_vs_call -->
    <!-- tfperf:claims predict_vs_call -->
    <!-- tfperf:trends predict_vs_call -->      (verdicts per TensorFlow release: render/blocks/version_blocks.py)
    <!-- tfperf:changes predict_vs_call -->     <!-- tfperf:versions -->
    <!-- tfperf:breakdown predict_vs_call -->
    <!-- tfperf:notebook predict_vs_call -->
    <!-- tfperf:findings -->   <!-- tfperf:differences -->   <!-- tfperf:runners -->   <!-- tfperf:datafiles -->   <!-- tfperf:errors -->
    <!-- tfperf:failures -->
    <!-- tfperf:chart cpu_threads view=settings x=threads color=onednn facet=model row=batch -->
    <!-- tfperf:settings cpu_threads threads=default,inter1,omp1 onednn=1 -->
    <!-- tfperf:metrics serving_formats fields=load_s,convert_s,file_bytes -->
    <!-- tfperf:breakeven xla_jit baseline=function candidate=xla -->
    <!-- tfperf:tenrun xla_jit -->
    <!-- tfperf:outputs mixed_precision isa=avx512_bf16,amx_bf16 -->   (each output's distance from the reference's)
    <!-- tfperf:perstep train_step -->        (fixed cost per call apart from cost per step: render/blocks/per_step_block.py)
    <!-- tfperf:answers xla_jit -->   <!-- tfperf:questions -->   (the questions first: render/blocks/answers_block.py)

Inline figures inside prose (a Python-like call; only literal arguments)::

    {{ tfperf.speedup("predict_vs_call", "call_beats_predict_single") }}
    {{ tfperf.speedup("predict_vs_call", "call_beats_predict_single", model="tiny", runner="x") }}
    {{ tfperf.verdict("predict_vs_call", "compile_slows_predict") }}
    {{ tfperf.median("predict_vs_call", "predict", model="tiny", batch=1) }}
    {{ tfperf.runners() }}
    {{ tfperf.when("cpu_threads", "omp1_faster", faster="still helps", slower="now hurts",
                   same="makes no difference", depends="depends on the model") }}
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...analyse import WORDS, Dataset, Finding, Measurement, Sources, Verdict
from ...errors import TfperfError
from ...store.schema import schema_path
from .embed import FETCH_ELEMENTS, SvgCache, fetch_placeholder
from .html import Markup, admonition, element, h, hidden, join, link

# -- placeholders -------------------------------------------------------------------------

BLOCK_KINDS = ("chart", "recommendations", "claims", "trends", "breakdown", "notebook",
               "findings", "runners", "datafiles", "errors", "failures", "settings", "metrics", "breakeven", "tenrun",
               "dothis", "changes", "versions", "perstep", "answers", "questions", "vocabulary", "arrivals",
               "outputs", "differences", "controls", "repeats")
INLINE_FUNCS = ("speedup", "verdict", "median", "runners", "when", "share")

BLOCK_RE = re.compile(r"^[ \t]*<!--\s*tfperf:(?P<body>.*?)-->[ \t]*$", re.MULTILINE)
INLINE_RE = re.compile(r"\{\{\s*tfperf\.(?P<call>.*?)\s*\}\}")


class DirectiveError(TfperfError, ValueError):
    """A placeholder the hook cannot understand: an author's mistake, reported by line.
    Also a ValueError, so that a caller catching one catches it."""


@dataclass
class Directive:
    kind: str
    args: list[Any] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    inline: bool = False
    text: str = ""          # the placeholder as written, for messages

    @property
    def topic(self) -> str | None:
        return str(self.args[0]) if self.args else None


def parse_block(body: str) -> Directive:
    parts = body.split()
    if not parts:
        raise DirectiveError("empty tfperf placeholder")
    kind, rest = parts[0], parts[1:]
    if kind not in BLOCK_KINDS:
        raise DirectiveError(f"unknown placeholder kind {kind!r} (known: {', '.join(BLOCK_KINDS)})")
    args = [p for p in rest if "=" not in p]
    opts = dict(p.split("=", 1) for p in rest if "=" in p)
    return Directive(kind, args, opts, text=f"<!-- tfperf:{body.strip()} -->")


def parse_inline(call: str) -> Directive:
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError as exc:
        raise DirectiveError(f"cannot parse tfperf.{call}: {exc.msg}") from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise DirectiveError(f"tfperf.{call} is not a call like tfperf.speedup(\"topic\", \"claim\")")
    name = node.func.id
    if name not in INLINE_FUNCS:
        raise DirectiveError(f"unknown inline figure tfperf.{name} (known: {', '.join(INLINE_FUNCS)})")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        opts = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise DirectiveError(f"tfperf.{call}: arguments must be literals") from None
    return Directive(name, args, opts, inline=True, text="{{ tfperf." + call + " }}")


# -- the page's context -------------------------------------------------------------------

DATA_URL = "data/results/"        # where the raw results files are published in the site
SCHEMA_URL = f"data/{schema_path().name}"      # the store's schema, the version it writes
SVG_URL = "assets/charts/"


@dataclass
class Context:
    ds: Dataset
    prefix: str                                  # relative path from the page to the site root
    svgs: SvgCache
    notebooks: dict[str, str] = field(default_factory=dict)   # topic -> notebook page url (from root)
    colab: dict[str, str] = field(default_factory=dict)       # topic -> "Open in Colab" url (render/page/notebooks.py)
    topic_pages: set[str] | None = None          # topics that have a page (None: assume all)
    topic_order: tuple[str, ...] = ()            # topic pages in the nav's reading order
    sources: Sources = field(default_factory=dict)            # topic -> what its sources reported (sources/*.yaml)
    counter: list[int] = field(default_factory=lambda: [0])
    shared_rows: set[str] = field(default_factory=set)        # chart row sets already on the page
    findings: dict[str, str] = field(default_factory=dict)    # topic -> its main finding in charts' words (builder)
    # A long part's HTML by file name, written next to the page and fetched when needed
    # (render/page/embed.py); None keeps every part in the page.
    fragments: dict[str, str] | None = None

    def next_id(self, kind: str) -> str:
        self.counter[0] += 1
        return f"tfperf-{kind}-{self.counter[0]}"

    def fetched(self, body: Markup, what: str, least: int = FETCH_ELEMENTS, lines: int = 0) -> Markup:
        """``body`` in the page, or, when it is long (more than ``least`` elements), a
        link to it in a file of its own that the page fetches when the part nears the screen
        or its fold opens (docs/assets/tfperf.js); ``what`` names it ("the table"), ``lines``
        the height kept for it while it loads."""
        return fetch_placeholder(self.fragments, body, what, lines=lines, least=least)


def badge(word: Finding | Verdict | None, extra: str = "") -> Markup:
    """A finding or a verdict as a badge: its symbol and word (never colour alone), in the
    vocabulary's CSS class (``analyse.effects.WORDS``)."""
    if word is None:
        return Markup("–")
    w = WORDS[word]
    return element("span", join([element("span", w.symbol, class_="tfperf-sym", aria_hidden="true"), " ",
                                 w.text + extra]), class_=f"tfperf-verdict tfperf-{w.css}")


def no_result_tag(failed: bool, wrong_output: bool) -> Markup | None:
    """Where a comparison has no finding because its results failed or its output was
    wrong, a tag that says which ("no results yet" would hide a fault); None otherwise."""
    if wrong_output:
        return element("span", "✗ wrong output", class_="tfperf-tag tfperf-fails")
    if failed:
        return element("span", "✗ failed", class_="tfperf-tag tfperf-fails")
    return None


def stated(text: str, topic: str, claim_id: str, runner: str, release: str, finding: Finding | None,
           scope: str = "all", strong: bool = False) -> Markup:
    """A claim's finding in words where a page states it, marked with what it is a finding
    of (the claim, runner, release, and ``scope``: all its scenarios, or a subset), so that a
    check over the built site can hold every place stating it to the same finding and the
    same figures (tests/website/test_answers_site.py)."""
    return element("strong" if strong else "span", text, class_="tfperf-stated",
                   data_claim=f"{topic}/{claim_id}", data_runner=runner, data_release=release,
                   data_finding=str(finding) if finding is not None else None, data_scope=scope)


def no_results(ds: Dataset, what: str) -> Markup:
    """The box a block shows without results: where other topics have results (a new topic
    not measured yet on the published runners), it says so in the reader's words; with no
    results at all (a checkout without data), where they go and how to make them."""
    if ds.current:
        return admonition("info", "Not measured yet",
                          Markup(f"<p>{h(what)}: not measured yet. It appears here once this topic has been "
                                 "measured on the published runners.</p>"))
    return admonition("info", "No results yet",
                      Markup(f"<p>{h(what)}: no results in <code>{h(os.path.relpath(ds.results_root))}</code> yet. "
                             "Run <code>tfperf run</code> (see “Run it yourself”) and rebuild.</p>"))


STALE_HEAD = hidden("stale")     # the header of a column of stale marks: the mark says what it is


def stale_mark(ms: Iterable[Measurement]) -> Markup:
    reasons = sorted({m.stale_reason or "stale" for m in ms if m.stale})
    if not reasons:
        return Markup("")
    return element("span", "stale", class_="tfperf-stale", title="; ".join(reasons))


# -- provenance ---------------------------------------------------------------------------

@dataclass
class _Origin:
    """Where one results file's figures were measured: its runner, commits and dates."""

    runner: str
    commits: set[str] = field(default_factory=set)
    dates: set[str] = field(default_factory=set)


def provenance(ctx: Context, ms: Iterable[Measurement]) -> Markup:
    """The raw files a figure was drawn from, with runner, commit(s) and date(s)."""
    by_src: dict[str, _Origin] = {}
    for m in ms:
        e = by_src.setdefault(m.source.rel, _Origin(m.runner))
        if m.commit:
            e.commits.add(m.commit[:10])
        e.dates.add(m.finished.date().isoformat())
    if not by_src:
        return Markup("")
    items = []
    for rel, e in sorted(by_src.items(), key=lambda item: item[0]):
        dates = sorted(e.dates)
        when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
        commits = ", ".join(sorted(e.commits)) or "unknown"
        items.append(join([link(ctx.prefix + DATA_URL + rel, rel), " — runner ", element("code", e.runner),
                           ", commit ", element("code", commits), ", measured ", when]))
    return Markup('<p class="tfperf-provenance">Data: ' + "; ".join(items) + "</p>")
