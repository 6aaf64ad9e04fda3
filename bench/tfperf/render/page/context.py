"""What every block renderer shares: the page's :class:`Context` (the analysed data, the
path to the site root, the SVG cache) and the small pieces each figure carries (finding
badge, a stated finding, "no results yet", stale mark, provenance line). Kept apart from the renderers so
the modules of renderers (``blocks``, ``topic_blocks``) import it and not each other."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from ...analyse import WORDS, Dataset, Finding, Measurement, Sources, Verdict
from ...store.format.schema import schema_path
from .embed import FETCH_ELEMENTS, SvgCache, fetch_placeholder
from .html import Markup, admonition, element, h, hidden, join, link

DATA_URL = "data/results/"        # where the raw results files are published in the site
SCHEMA_URL = f"data/{schema_path().name}"      # the store's schema, the version it writes
SVG_URL = "assets/charts/"


@dataclass
class Context:
    ds: Dataset
    prefix: str                                  # relative path from the page to the site root
    svgs: SvgCache
    notebooks: dict[str, str] = field(default_factory=dict)   # topic -> notebook page url (from root)
    colab: dict[str, str] = field(default_factory=dict)       # topic -> "Open in Colab" url (render/page/colab.py)
    topic_pages: set[str] | None = None          # topics that have a page (None: assume all)
    topic_order: tuple[str, ...] = ()            # topic pages in the nav's reading order
    sources: Sources = field(default_factory=dict)            # topic -> what its sources reported (sources/*.yaml)
    counter: list[int] = field(default_factory=lambda: [0])
    shared_rows: set[str] = field(default_factory=set)        # chart row sets already on the page
    findings: dict[str, str] = field(default_factory=dict)    # topic -> its main finding in charts' words (chart_words)
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
    same figures (tests/test_answers_site.py)."""
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
        e.dates.add(m.finished_at.date().isoformat())
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
