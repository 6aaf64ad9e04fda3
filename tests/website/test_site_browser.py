"""The built site in a real browser (Debian chromium driven by pip's playwright).

Builds the site from synthetic fixture data (tests/fixtures/site/make_fixture.py), serves
it on 127.0.0.1, opens every page at 1400 px and at 400 px, waits for every chart to
render, and checks: nothing wider than the content column (a table or chart that must
scroll scrolls in its own box), no table column out of sight, no chart shrunk below its
size, no console error, no request to any other host, no script run from data (alert), and
that search finds a topic; and axe-core (vendored under tests/vendor/) finds no serious or
critical accessibility violation on any page at either width (of the notebook pages, one
template, the first). Each page's first screen is
photographed to test-artifacts/screenshots/ (git-ignored), named <page>-<width>.png, listed
in index-<width>.txt; whole pages of the real site: scripts/screenshots.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from site_server import serving

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "test-artifacts" / "screenshots"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("site")
    data = tmp / "fixture-data"
    py = sys.executable
    subprocess.run([py, str(ROOT / "tests/fixtures/site/make_fixture.py"), "site", "--out", str(data)],
                   check=True, cwd=ROOT)
    out = tmp / "site"
    env = {**os.environ, "TFPERF_RESULTS": str(data / "results"), "NO_MKDOCS_2_WARNING": "1"}
    subprocess.run([py, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], check=True, cwd=ROOT, env=env)
    return out


@pytest.fixture(scope="module")
def server(built_site: Path) -> Iterator[str]:
    with serving(built_site) as base:
        yield base


def _pages(site: Path) -> list[str]:
    pages = []
    for p in sorted(site.rglob("index.html")):
        rel = p.parent.relative_to(site).as_posix()
        if rel.startswith(("assets", "search", "data")):
            continue
        pages.append("" if rel == "." else rel + "/")
    return pages


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync"])
        yield b
        b.close()


# Every element of the content column, outside charts' SVG, that sticks out of the column
# (Material's .md-content: the text column and the margins its tables and code blocks may
# bleed into) without a box of its own that scrolls and fits; tables wider than their
# scroll box (columns out of sight); charts drawn smaller than their size (vega-embed
# shrinks an SVG to its box: 3 px text on a phone).
_LAYOUT_JS = """() => {
  const col = document.querySelector('.md-content').getBoundingClientRect();
  const fits = r => r.left >= col.left - 1 && r.right <= col.right + 1;
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const scrollBox = el => {
    for (let a = el.parentElement; a && !a.classList.contains('md-content'); a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if ((ox === 'auto' || ox === 'scroll' || ox === 'hidden') && fits(a.getBoundingClientRect())) return a;
    }
    return null;
  };
  const out = {overflow: [], hiddenColumns: [], shrunk: []};
  for (const el of document.querySelectorAll('.md-content__inner *:not(svg *)')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || fits(r) || scrollBox(el)) continue;
    out.overflow.push(name(el) + ' ' + Math.round(r.left) + '..' + Math.round(r.right)
                      + ' in ' + Math.round(col.left) + '..' + Math.round(col.right));
  }
  for (const t of document.querySelectorAll('.md-content__inner table')) {
    const box = scrollBox(t);
    if (box && box.scrollWidth > box.clientWidth + 1 && t.getBoundingClientRect().width > 0)
      out.hiddenColumns.push((t.querySelector('th, td') || t).textContent.trim().slice(0, 60)
                             + ': ' + box.scrollWidth + ' px in a ' + box.clientWidth + ' px box');
  }
  for (const svg of document.querySelectorAll('[data-tfperf-chart] svg.marks')) {
    const drawn = svg.getBoundingClientRect().width, w = svg.width.baseVal.value;
    if (drawn < w - 1) out.shrunk.push(svg.closest('[data-tfperf-chart]').id + ': ' + Math.round(w)
                                       + ' px drawn in ' + Math.round(drawn));
  }
  const se = document.scrollingElement;
  out.page = [se.scrollWidth, se.clientWidth];
  return out;
}"""


AXE = next((ROOT / "tests" / "vendor").glob("axe-core-*/axe.min.js"))
DRAW_ALL = "() => window.tfperfDrawAll()"   # charts are drawn as they near the screen (tfperf.js)
CHARTS_DRAWN = ("() => [...document.querySelectorAll('[data-tfperf-chart]')]"
                ".every(el => el.getAttribute('data-rendered') === 'true' && el.querySelector('svg, canvas'))")
# axe-core's default rules (WCAG 2.x A and AA, best practices) and WCAG 2.2's touch-target size.
AXE_RUN = ("async () => (await axe.run(document, {resultTypes: ['violations'], rules: {'target-size': {enabled: true}}}))"
           ".violations.map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')])")
# The same, on the parts the selectors name.
AXE_RUN_IN = ("async (inc) => (await axe.run({include: inc.map(s => [s])}, {resultTypes: ['violations'], "
              "rules: {'target-size': {enabled: true}}}))"
              ".violations.map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')])")
CHROME = [".md-header", ".md-sidebar", ".md-footer"]       # the page around its content
# What a drawn chart shows in words: its name for a screen reader, its text, the choices above it.
CHART_WORDS = """() => [...document.querySelectorAll('[data-tfperf-chart]')].flatMap(el => [
    el.getAttribute('aria-label') || '',
    ...[...el.querySelectorAll('svg text')].map(t => t.textContent),
    ...[...el.querySelectorAll('.vega-bind-name, select option')].map(o => o.textContent)])"""


@dataclass
class Visit:
    """What one pass over every page at one width found: each page is opened once, its
    charts drawn, and then read for every check below (the checks are tests of their own)."""

    width: int
    pages: list[str] = field(default_factory=list)
    charts: int = 0
    errors: list[str] = field(default_factory=list)       # console errors and uncaught exceptions
    outside: list[str] = field(default_factory=list)      # requests to another host
    dialogs: list[str] = field(default_factory=list)      # alert() and the like: a script from the data
    layout: list[str] = field(default_factory=list)
    shots: list[str] = field(default_factory=list)
    axe: list[str] = field(default_factory=list)          # serious or critical violations
    chart_words: dict[str, list[str]] = field(default_factory=dict)   # topic page -> its charts' words
    tables: int = 0
    table_problems: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)   # step -> time over every page: where a slow pass goes

    def timed(self, step: str, since: float) -> float:
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - since
        return now


def _visit_every_page(site: Path, server: str, browser, width: int) -> Visit:  # type: ignore[no-untyped-def]
    """Every page at ``width``: loaded, every chart drawn, then, in this order, checked for
    placeholders and layout (:data:`_LAYOUT_JS`), its first screen photographed (to
    test-artifacts/screenshots/; whole pages took 34 s of the 137 s pass at 1400 px), its
    charts' words read, axe-core run on it (on the first notebook page of the seven; at 1400 px,
    on the first topic page whole and the others' header, side bars and footer), and last, with
    every fold opened, its tables measured (:data:`_TABLES_JS`, which changes the page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    axe = AXE.read_text(encoding="utf-8")
    v = Visit(width, pages=_pages(site))
    # The notebook pages are one template (mkdocs-jupyter's, over each topic's code cells, no
    # outputs): axe-core reads the first; the others, 7 of 20 pages, cost 10 s a width.
    notebooks = [rel for rel in v.pages if rel.startswith("notebooks/")] or [""]
    # A topic page's content is the same markup at both widths and axe-core reads all of it at
    # 400 px; at 1400 px it reads the first topic page whole and the others' header, side bars
    # and footer, what a wide screen adds (~4 s a page saved of ~6).
    topics = [rel for rel in v.pages if rel.startswith("topics/")] or [""]
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.on("console", lambda m: v.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: v.errors.append(f"{page.url}: {e}"))
    page.on("dialog", lambda d: (v.dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: v.outside.append(r.url)
            if urlparse(r.url).scheme in ("http", "https", "ws", "wss") and urlparse(r.url).hostname != "127.0.0.1"
            else None)
    for rel in v.pages:
        where = f"{rel or '/'} at {width} px"
        t = time.perf_counter()
        page.goto(server + rel, wait_until="load")     # DRAW_ALL waits for what the page fetches
        t = v.timed("load", t)
        page.evaluate(DRAW_ALL)
        page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
        v.charts += page.locator("[data-tfperf-chart]").count()
        t = v.timed("charts", t)
        assert "TFPERFSLOT" not in page.content(), f"{where}: an unreplaced placeholder"
        found = page.evaluate(_LAYOUT_JS)
        sw, cw = found["page"]
        if sw > cw:
            v.layout.append(f"{where}: the page scrolls sideways ({sw} px in {cw})")
        v.layout += [f"{where}: sticks out of the column: {x}" for x in found["overflow"][:5]]
        v.layout += [f"{where}: a table's columns out of sight: {x}" for x in found["hiddenColumns"]]
        v.layout += [f"{where}: a chart drawn smaller than its size: {x}" for x in found["shrunk"]]
        t = v.timed("layout", t)
        shot = SHOTS / f"{rel.strip('/').replace('/', '_') or 'home'}-{width}.png"
        page.screenshot(path=str(shot))
        v.shots.append(str(shot.relative_to(ROOT)))
        t = v.timed("screenshot", t)
        if rel.startswith("topics/"):
            v.chart_words[rel] = page.evaluate(CHART_WORDS)
        if not rel.startswith("notebooks/") or rel == notebooks[0]:
            page.add_script_tag(content=axe)
            chrome_only = width > 400 and rel.startswith("topics/") and rel != topics[0]
            found_axe = page.evaluate(AXE_RUN_IN, CHROME) if chrome_only else page.evaluate(AXE_RUN)
            v.axe += [f"{where}: {rule} ({impact}) on {n} node(s), e.g. {target}"
                      for rule, impact, n, target in found_axe if impact in ("serious", "critical")]
        t = v.timed("axe", t)
        r = page.evaluate(_TABLES_JS)
        v.tables += r["tables"]
        v.table_problems += [f"{where}: a word broken between letters: {x}" for x in r["broken"][:5]]
        v.table_problems += [f"{where}: an empty header in {x}" for x in r["emptyHead"][:3]]
        v.table_problems += [f"{where}: a card without its first cell: {x}" for x in r["cardWithoutName"][:3]]
        v.table_problems += [f"{where}: the first column out of view: {x}" for x in r["lostColumn"]]
        v.timed("tables", t)
    (SHOTS / f"index-{width}.txt").write_text("\n".join(v.shots) + "\n", encoding="utf-8")
    page.close()
    return v


@pytest.fixture(scope="module")
def visit(built_site: Path, server: str, browser) -> Callable[[int], Visit]:  # type: ignore[no-untyped-def]
    """The pass over every page at a width, made once for all the tests that read it."""
    done: dict[int, Visit] = {}

    def at(width: int) -> Visit:
        if width not in done:
            done[width] = _visit_every_page(built_site, server, browser, width)
        return done[width]
    return at


@pytest.mark.parametrize("width", [1400, 400])
def test_every_page_fits_and_renders_locally(visit: Callable[[int], Visit], server: str, browser,  # type: ignore[no-untyped-def]
                                             width: int) -> None:
    """At a desktop width and a phone's, every page: renders every chart at its own size,
    never scrolls sideways, keeps every element inside the content column (or inside a box
    of its own that scrolls), hides no table column, logs no console error and requests
    nothing outside the site. First-screen screenshots go to test-artifacts/screenshots/."""
    v = visit(width)
    assert "topics/predict_vs_call/" in v.pages and "" in v.pages
    print(f"screenshots at {width} px:", *v.shots, sep="\n  ")
    print(f"{len(v.pages)} pages at {width} px, seconds per step:", {k: round(x, 1) for k, x in v.seconds.items()})
    assert v.charts >= 3, "the topic page's charts were not found"
    assert not v.errors, "console errors:\n" + "\n".join(v.errors)
    assert not v.outside, "requests outside the site:\n" + "\n".join(v.outside)
    assert not v.dialogs, f"a script from the data ran: {v.dialogs}"
    assert not v.layout, "layout:\n" + "\n".join(v.layout)
    # Markup in the data is shown as text.
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(server + "runners/", wait_until="networkidle")
    page.evaluate(DRAW_ALL)
    assert page.get_by_text("<script>alert(1)</script> Fixture 16-core CPU").count() >= 1
    page.close()


@pytest.mark.parametrize("width", [1400, 400])
def test_no_page_has_a_serious_accessibility_violation(visit: Callable[[int], Visit], width: int) -> None:
    """axe-core's default rules (WCAG 2.x A and AA, best practices) and WCAG 2.2's touch-target
    size on every page once its charts are drawn (of the seven notebook pages, one template,
    the first; of the topic pages at 1400 px, the first whole, the others' header, side bars
    and footer: their content is read at 400 px): no violation of serious or critical impact (contrast, names of charts, menus
    and dialogs, keyboard access to scrolling regions, links told apart from text, links big
    enough to tap)."""
    v = visit(width)
    assert v.pages
    assert not v.axe, "\n".join(v.axe)


def test_search_finds_a_topic(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server, wait_until="networkidle")
    page.evaluate(DRAW_ALL)
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("predict", delay=50)
    result = page.locator(".md-search-result__item").filter(has_text="predict() vs calling the model")
    result.first.wait_for(timeout=15_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "search.png"))
    page.close()


def test_no_external_url_in_html(built_site: Path) -> None:
    """Nothing the browser would load from another host: no src=, <link href=>, import()
    or url() to one. A link the reader may follow (<a href>, e.g. the Stack Overflow
    question a history box quotes, which its CC BY-SA licence asks to credit) loads nothing,
    and neither does the page's canonical address (<link rel="canonical">, from site_url)."""
    import re

    bad = re.compile(r"""\bsrc\s*=\s*["']?(?:https?:)?//"""
                     r"""|<link\b(?![^>]*\brel=["']?canonical\b)[^>]*\bhref\s*=\s*["']?(?:https?:)?//"""
                     r"""|import\(\s*["']https?://|url\(\s*["']?https?://""")
    hits = [f"{p.relative_to(built_site)}: {m.group(0)}" for p in built_site.rglob("*.html")
            for m in bad.finditer(p.read_text(encoding="utf-8"))]
    assert not hits, "\n".join(hits[:20])
    links = [m.group(1) for p in built_site.rglob("*.html")
             for m in re.finditer(r"""<a\b[^>]*\bhref\s*=\s*["']((?:https?:)?//[^"']*)""", p.read_text(encoding="utf-8"))]
    assert all(u.startswith("https://") for u in links), [u for u in links if not u.startswith("https://")][:5]


def test_charts_are_drawn_as_they_near_the_screen(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """A topic page's first screen does not wait for every chart: on load only the charts
    near the screen are drawn, and one further down is drawn once scrolled to."""
    page = browser.new_page(viewport={"width": 400, "height": 800})
    page.goto(server + "topics/serving_formats/", wait_until="networkidle")
    page.wait_for_timeout(500)
    charts = page.locator("[data-tfperf-chart]")
    total = charts.count()
    drawn = page.locator("[data-tfperf-chart][data-rendered]").count()
    assert total >= 10 and drawn < total / 2, (drawn, total)
    last = charts.nth(total - 1)
    last.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-rendered') === 'true'", arg=last.element_handle(),
                           timeout=30_000)
    page.close()


def test_long_parts_are_fetched_as_they_near_the_screen(built_site: Path, server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """A topic page's long parts (every scenario's table, long code) are files of their own
    (render/page/embed.py): on load only those near the screen are fetched, each is a link a
    reader without JavaScript can open, and tfperfDrawAll() fetches every one."""
    page = browser.new_page(viewport={"width": 400, "height": 800})
    page.goto(server + "topics/serving_formats/", wait_until="networkidle")
    page.wait_for_timeout(500)
    srcs = page.evaluate("() => [...document.querySelectorAll('[data-tfperf-src]')].map(b => b.dataset.tfperfSrc)")
    loaded = page.locator("[data-tfperf-loaded]").count()
    assert len(srcs) >= 5 and loaded < len(srcs) / 2, (loaded, srcs)
    assert all((built_site / "topics" / "serving_formats" / s).is_file() for s in srcs), srcs
    assert page.locator(f'[data-tfperf-src] a[href="{srcs[-1]}"]').count() == 1
    page.evaluate(DRAW_ALL)
    assert page.locator("[data-tfperf-src]:not([data-tfperf-loaded])").count() == 0
    assert page.locator("[data-tfperf-loaded] table").count() >= 3
    assert page.locator("[data-tfperf-loaded] pre").count() >= 1
    page.close()


def test_chart_text_uses_display_names(built_site: Path, visit: Callable[[int], Visit]) -> None:
    """What a drawn chart shows in words (legend entries, axis and panel titles, the choices
    above it, its name for a screen reader) uses display names: no variant id, setting
    value id or runner label that differs from its display name appears in it."""
    ids = _internal_ids(built_site.parent / "fixture-data" / "results")
    words = visit(1400).chart_words
    assert words, "no topic page was read"
    found = [f"{rel}: {ids[token]} {token!r} in {w[:120]!r}" for rel, ws in words.items() for w in ws
             for token in re.split(r"[\s,;:()=]+", w) if token in ids]
    assert not found, "\n".join(sorted(set(found))[:30])


def _internal_ids(results: Path) -> dict[str, str]:
    """Ids a reader should never see in a chart: variant ids and setting values whose display
    name differs from them and that no reader word could be ("function_no_jit", "omp1": an
    underscore or a digit; "eager" or "call" are words of display names too), and runner
    labels ("what it is" per id)."""
    import yaml

    ids: dict[str, str] = {}
    for path in (ROOT / "snippets").glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        display = data.get("display") or {}
        for v, d in data["variants"].items():
            if display.get(v, d.get("label")) != v:
                ids[v] = "variant id"
        for name, labels in (data.get("settings_labels") or {}).items():
            for value, label in labels.items():
                if value != "*" and label != value and not value.isdigit():
                    ids[value] = f"{name} value id"
    ids = {i: what for i, what in ids.items() if re.search(r"[_\d]", i)}
    for runner in results.iterdir():
        ids[runner.name] = "runner label"
    return ids


# -- tables --------------------------------------------------------------------------------

# Every <details> opened, then per table: words broken between two letters or digits (a
# column too narrow for them), generated tables' empty headers, cards whose first cell is
# empty (a card that lost its scenario), and tables wider than their box whose first column
# does not stay in view when the box scrolls to its end.
_TABLES_JS = """() => {
  document.querySelectorAll('.md-content details').forEach(d => { d.open = true; });
  window.tfperfDrawAll();     // what waited for a fold to open (tfperf.whenShown)
  // every block laid out now, not when scrolled to (tfperf.css: content-visibility)
  document.querySelectorAll('.md-typeset > *').forEach(e => { e.style.contentVisibility = 'visible'; });
  const out = {broken: [], emptyHead: [], cardWithoutName: [], lostColumn: [], tables: 0};
  const scroller = el => { for (let a = el.parentElement; a; a = a.parentElement) {
    const ox = getComputedStyle(a).overflowX; if (ox === 'auto' || ox === 'scroll') return a; } return null; };
  const range = document.createRange();
  for (const t of document.querySelectorAll('.md-content table')) {
    if (!t.getBoundingClientRect().width) continue;
    out.tables++;
    const name = (t.querySelector('th') || t).textContent.trim().slice(0, 40);
    for (const cell of t.querySelectorAll('td, th')) {
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (const m of n.data.matchAll(/[\\p{L}\\p{N}]{2,}/gu)) {
          range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
          if (tops.size > 1) out.broken.push(name + ': ' + m[0]);
        }
      }
    }
    if (t.closest('.tfperf-table-wrap'))
      t.querySelectorAll('thead th').forEach(th => { if (!th.textContent.trim()) out.emptyHead.push(name); });
    if (t.hasAttribute('data-tfperf-cards') && getComputedStyle(t).display === 'block')
      t.querySelectorAll('tbody tr').forEach(tr => {
        const first = tr.children[0];
        if (first && !first.textContent.trim()) out.cardWithoutName.push(name + ': ' + tr.textContent.slice(0, 60));
      });
    const box = scroller(t);
    if (box && box.scrollWidth > box.clientWidth + 1) {
      box.scrollLeft = box.scrollWidth;
      const left = box.getBoundingClientRect().left;
      for (const tr of t.querySelectorAll('tbody tr:not(.tfperf-group)')) {
        const r = tr.children[0].getBoundingClientRect();
        if (r.width && Math.abs(r.left - left) > 2) { out.lostColumn.push(name + ': ' + box.scrollWidth + ' px in '
          + box.clientWidth); break; }
      }
      box.scrollLeft = 0;
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", [1400, 400])
def test_tables_fit_or_keep_their_first_column_in_view(visit: Callable[[int], Visit], width: int) -> None:
    """Every table on every page, every fold opened: no word broken between two letters, no
    generated table with an empty header, no card (a phone) whose first cell, its scenario or
    topic, is empty, and a table wider than its box keeps its first column in view when the
    box is scrolled to its end."""
    v = visit(width)
    assert v.tables > 20
    assert not v.table_problems, "\n".join(v.table_problems)


@pytest.mark.parametrize("width", [1400, 400])
def test_long_tables_start_folded_on_a_phone(built_site: Path, server: str, browser, width: int) -> None:  # type: ignore[no-untyped-def]
    """A table of more than a screen's rows (the ten-call means: 40 rows a runner) is open on a
    wide screen and folded on a phone, under a summary that counts its rows."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(server + "topics/xla_jit/", wait_until="networkidle")
    page.evaluate(DRAW_ALL)
    folds = page.evaluate("() => [...document.querySelectorAll('details.tfperf-runner[data-tfperf-fold]')]"
                          ".map(d => [d.open, d.querySelector('summary').textContent])")
    page.close()
    assert folds, "no long table on the page"
    assert all(is_open == (width > 400) for is_open, _s in folds), folds
    assert all(re.search(r"\d+ (rows|scenarios|variants)", s) for _o, s in folds), folds


def test_the_claim_column_stays_in_view_when_the_versions_table_scrolls(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 400, "height": 800})
    page.goto(server, wait_until="networkidle")
    page.evaluate(DRAW_ALL)
    # a box narrower than the table (the fixture has two releases, which fit a phone)
    r = page.evaluate("""() => {
      const t = document.querySelector('.tfperf-versions table');
      const box = t.closest('.md-typeset__scrollwrap') || t.closest('.tfperf-table-wrap');
      box.style.width = '200px';
      box.scrollLeft = box.scrollWidth;
      const th = t.querySelector('tbody th[scope=row]');
      return [box.scrollLeft, box.getBoundingClientRect().left, th.getBoundingClientRect().left];
    }""")
    page.close()
    scrolled, box_left, claim_left = r
    assert scrolled > 0 and abs(claim_left - box_left) <= 1, r


@pytest.mark.parametrize("width", [1400, 400])
def test_a_cells_whole_finding_shows_on_a_tap_or_the_keyboard(server: str, browser, width: int) -> None:  # type: ignore[no-untyped-def]
    """The claims × releases table: a tap (a click at 1400 px) on a cell shows its whole
    finding under the table, named by its claim; the keyboard reaches the first cell with Tab,
    shows its finding, moves to the next with the right arrow, and Escape closes the line."""
    page = browser.new_page(viewport={"width": width, "height": 900}, has_touch=width == 400)
    page.goto(server, wait_until="networkidle")
    page.evaluate(DRAW_ALL)              # the table's cells become buttons when it nears the screen
    panel = page.locator(".tfperf-versions").locator("xpath=..").locator(".tfperf-detail [role=status]")
    cell = page.locator(".tfperf-versions td.tfperf-vcell[title]").nth(1)
    title = cell.get_attribute("title")
    claim = cell.locator("xpath=../th").inner_text().split("\n")[0].strip()
    (cell.tap if width == 400 else cell.click)()
    assert title and panel.inner_text().endswith(title) and claim in panel.inner_text()
    page.keyboard.press("Escape")
    assert panel.inner_text() == ""
    # the keyboard: from the first claim's link, Tab reaches the table's one tab stop
    page.locator(".tfperf-versions tbody th[scope=row] a").first.focus()
    page.keyboard.press("Tab")
    first = page.locator(".tfperf-versions td.tfperf-vcell[title]").first
    assert page.evaluate("() => document.activeElement.closest('td').title") == first.get_attribute("title")
    assert panel.inner_text().endswith(str(first.get_attribute("title")))
    page.keyboard.press("ArrowRight")
    assert panel.inner_text().endswith(str(cell.get_attribute("title")))
    page.keyboard.press("Escape")
    assert panel.inner_text() == ""
    page.close()
