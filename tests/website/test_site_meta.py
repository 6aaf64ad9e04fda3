"""What the site says about its pages outside their text (render/site/page_meta.py): the site's
address (``site_url``) and a sitemap with every page; a description per page from its
first paragraph of prose; notebook pages titled apart from their topic pages; a search
index of prose and headings, without table cells, strips or chart data.

The functions alone, then the site built from the committed results (no browser)."""

from __future__ import annotations

import html
import itertools
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tfperf.render.site.page_meta import (
    DESCRIPTION_LIMIT,
    default_site_url,
    exclude_from_search,
    first_paragraph,
    notebook_title,
    pages_address,
    shorten,
)

ROOT = Path(__file__).resolve().parents[2]
SITE_NAME = "tfperf — TensorFlow performance, measured"
SITE_URL = "https://someone.github.io/tfperf/"    # of conftest's SITE_REPOSITORY, which the build is told


# ---------------------------------------------------------------- the functions

def test_the_pages_address_of_a_repository() -> None:
    assert pages_address("SomeOne", "tfperf") == "https://someone.github.io/tfperf/"
    assert pages_address("SomeOne", "someone.github.io") == "https://someone.github.io/"


def test_site_url_from_the_repository_the_site_is_built_from(tmp_path: Path) -> None:
    url, source = default_site_url({}, env={"GITHUB_REPOSITORY": "Owner/repo"}, root=tmp_path)
    assert url == "https://owner.github.io/repo/" and "GITHUB_REPOSITORY" in source
    url, _ = default_site_url({"repo_url": "https://github.com/a/b"}, env={}, root=tmp_path)
    assert url == "https://a.github.io/b/"
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "git@github.com:c/d.git"], check=True)
    url, source = default_site_url({}, env={}, root=tmp_path)
    assert url == "https://c.github.io/d/" and "origin" in source


def test_site_url_without_a_repository_is_where_mkdocs_serve_shows_the_site(tmp_path: Path) -> None:
    assert default_site_url({"dev_addr": "127.0.0.1:8000"}, env={}, root=tmp_path)[0] == "http://127.0.0.1:8000/"
    # GitHub Enterprise: no github.io address to give
    env = {"GITHUB_REPOSITORY": "o/r", "GITHUB_SERVER_URL": "https://ghe.example.invalid"}
    assert default_site_url({"dev_addr": "127.0.0.1:9000"}, env=env, root=tmp_path)[0] == "http://127.0.0.1:9000/"


def test_shorten_keeps_whole_sentences_or_cuts_at_a_word() -> None:
    first = "A runner is one kind of machine that produced results, named by what makes its numbers differ."
    assert shorten(first + " " + "And then a second sentence that does not fit " * 3) == first
    long = "You trained a model and now call model.predict(x) once per request, or once per frame, or in a " \
           "loop over single samples, and it is far slower than the size of the model can explain."
    out = shorten(long)
    assert len(out) <= DESCRIPTION_LIMIT and out.endswith("…")
    assert long.startswith(out[:-1]) and long[len(out) - 1] == " "          # cut between two words
    assert shorten("Every topic's code prints a table for your machine:") == \
        "Every topic's code prints a table for your machine."
    assert shorten("  two\n  lines ") == "two lines"


def test_the_first_paragraph_is_prose_the_page_wrote() -> None:
    page = ('<div class="admonition warning"><p class="admonition-title">Fixture data</p><p>Synthetic.</p></div>'
            '<div class="tfperf-answers"><p>The question?</p><ul><li><p>an answer</p></li></ul></div>'
            '<p class="tfperf-provenance">Data: x.json</p><details><summary>s</summary><p>folded</p></details>'
            '<div class="tfperf-table-wrap"><table><tr><td><p>cell</p></td></tr></table></div>'
            '<p>You trained <code>a model</code> &amp; <a href="x">called</a>\n it.</p><p>Second.</p>')
    assert first_paragraph(page) == "You trained a model & called it."
    assert first_paragraph('<div class="jp-Cell"><h1>T</h1><p>A notebook\'s first words.</p></div>') == \
        "A notebook's first words."
    assert first_paragraph("<h1>Only a title</h1>") is None


def test_notebook_title_names_the_topic_and_says_notebook() -> None:
    assert notebook_title("tf.function and XLA <code>jit_compile</code>") == "tf.function and XLA jit_compile — notebook"
    assert notebook_title("predict() &amp; call") == "predict() &amp; call — notebook"


def _indexed(content: str) -> str:
    """The text Material's search index keeps of ``content``."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(content)
    parser.close()
    return " ".join("".join(s.title) + " " + "".join(s.text) for s in parser.data)


def test_search_skips_tables_captions_strips_charts_and_data_lines_not_the_prose_between() -> None:
    page = ('<h2 id="a">Across versions</h2><p>Prose before.</p>'
            '<details class="tfperf-runner" open><summary>Runner r1</summary><div class="tfperf-table-wrap">'
            '<table><tr><th>settings</th><th>finding</th></tr><tr><td>baseline</td><td>baseline</td></tr></table>'
            '</div></details><p>Prose between.</p>'
            '<ol class="tfperf-strip" aria-label="x"><li class="tfperf-strip-cell">2.12▲ faster</li></ol>'
            '<figure class="tfperf-figure"><div class="tfperf-chart"></div><figcaption>'
            '<p class="tfperf-provenance">Data: r1/full.json</p></figcaption></figure>'
            '<details class="tfperf-all-settings"><summary>All settings</summary>'
            '<details class="tfperf-runner"><summary>Runner r2</summary><table><tr><td>cellcell</td></tr></table>'
            '</details></details><h3 id="b">Next</h3><p>Prose after.</p>')
    before = _indexed(page)
    assert "baselinebaseline" in before and "2.12▲ faster" in before          # what the test guards against
    after = _indexed(exclude_from_search(page))
    for gone in ("baseline", "settings", "Runner r1", "Runner r2", "All settings", "2.12", "full.json", "cellcell"):
        assert gone not in after, gone
    for kept in ("Across versions", "Prose before.", "Prose between.", "Next", "Prose after."):
        assert kept in after, kept


# ---------------------------------------------------------------- the built site

@pytest.fixture(scope="module")
def site(published_site: Path) -> Path:
    return published_site


def _pages(site: Path) -> dict[str, str]:
    """Every page of the built site: its address under the site -> its HTML."""
    pages = {}
    for p in sorted(site.rglob("index.html")):
        rel = p.parent.relative_to(site).as_posix()
        if not rel.startswith("assets"):
            pages["" if rel == "." else rel + "/"] = p.read_text(encoding="utf-8")
    return pages


def _meta(page: str, name: str) -> str | None:
    m = re.search(rf'<meta name="{name}" content="([^"]*)"', page)
    return html.unescape(m.group(1)) if m else None


def _title(page: str) -> str:
    m = re.search(r"<title>(.*?)</title>", page, re.DOTALL)
    assert m is not None
    return html.unescape(m.group(1))


def test_the_sitemap_lists_every_page_at_the_sites_address(site: Path) -> None:
    pages = _pages(site)
    assert len(pages) >= 17 and "topics/serving_formats/" in pages and "notebooks/xla_jit/" in pages
    locs = re.findall(r"<loc>(.*?)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))
    assert sorted(locs) == sorted(SITE_URL + p for p in pages)
    for address, page in pages.items():
        assert f'<link rel="canonical" href="{SITE_URL}{address}">' in page, address


def test_every_page_has_a_description_of_its_own_from_its_first_paragraph(site: Path) -> None:
    pages = _pages(site)
    described = {a: _meta(p, "description") for a, p in pages.items()}
    assert described[""] == "A TensorFlow performance guide in which every number is measured by a harness and " \
                            "stored as data."                       # home: the site's own description
    assert all(described.values()), [a for a, d in described.items() if not d]
    assert len(set(described.values())) == len(described), "two pages share a description"
    for address, text in described.items():
        assert text is not None and 20 <= len(text) <= DESCRIPTION_LIMIT, (address, text)
        assert not re.search(r"TFPERFSLOT|tfperf:|<!--|\.json|[<>]", text), (address, text)
    for md in sorted((ROOT / "docs" / "topics").glob("*.md")):
        # A topic page opens with its generated answers: its description is the author's
        # first paragraph after them, word for word (less the Markdown).
        first = _first_markdown_paragraph(md.read_text(encoding="utf-8"))
        text = described[f"topics/{md.stem}/"]
        assert text is not None and first.startswith(text.rstrip("…")), (md.name, text, first)


def _first_markdown_paragraph(text: str) -> str:
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if block and not block.startswith(("#", "<!--", "<", "```", "---")):
            block = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", block).replace("`", "").replace("*", "")
            return " ".join(block.split())
    raise AssertionError("no paragraph")


def test_notebook_pages_are_titled_apart_from_their_topic_pages(site: Path) -> None:
    pages = _pages(site)
    titles = {a: _title(p) for a, p in pages.items()}
    assert len(set(titles.values())) == len(titles), "two pages share a title"
    notebooks = [a for a in pages if a.startswith("notebooks/")]
    assert len(notebooks) == len(list((ROOT / "docs" / "topics").glob("*.md")))
    for nb in notebooks:
        topic = titles[nb.replace("notebooks/", "topics/")]
        assert topic.endswith(f" - {SITE_NAME}")
        assert titles[nb] == topic.replace(f" - {SITE_NAME}", f" — notebook - {SITE_NAME}"), (nb, titles[nb])


class _Cells(HTMLParser):
    """The rows of every table (each a list of its cells' text) and the per-release strip cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.strip_cells: list[str] = []
        self._cell: list[str] | None = None
        self._strip: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        cls = (dict(attrs).get("class") or "").split()
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "li" and "tfperf-strip-cell" in cls:
            self._strip = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "li" and self._strip is not None:
            self.strip_cells.append(" ".join("".join(self._strip).split()))
            self._strip = None

    def handle_data(self, data: str) -> None:
        for part in (self._cell, self._strip):
            if part is not None:
                part.append(data)


def _index(site: Path) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    return docs


def test_search_indexes_no_table_cells_and_no_strip(site: Path) -> None:
    texts = [html.unescape(re.sub(r"<[^>]+>", "", d["text"])) for d in _index(site)]
    every = "\n".join(" ".join(t.split()) for t in texts)
    assert "baselinebaseline" not in every
    run_together, strips = set(), set()
    parts = [p.read_text(encoding="utf-8") for p in sorted(site.rglob("part-*.html"))]   # fetched parts
    for page in [*_pages(site).values(), *parts]:
        cells = _Cells()
        cells.feed(page)
        for row in cells.rows:
            filled = [c for c in row if c]
            run_together.update(a + b for a, b in itertools.pairwise(filled))
        strips.update(c for c in cells.strip_cells if c)
    assert len(run_together) > 100 and strips, "the built site has tables and strips to test with"
    found = sorted(s for s in run_together if s in every)
    assert not found, f"table cells run together in the search index: {found[:5]}"
    found = sorted(s for s in strips if s in every)
    assert not found, f"per-release strip cells in the search index: {found[:5]}"


class _Headings(HTMLParser):
    """A page's headings with an id (h2-h6), inside its article."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if re.fullmatch(r"h[2-6]", tag) and a.get("id"):
            self.ids.append(str(a["id"]))


def test_search_keeps_every_heading_and_each_pages_first_paragraph(site: Path) -> None:
    index = _index(site)
    located = {d["location"]: d for d in index}
    for address, page in _pages(site).items():
        if address.startswith("notebooks/"):
            continue          # out of the index: the topic pages explain the same code
        article = page[page.index("<article"):page.index("</article>")]
        headings = _Headings()
        headings.feed(article)
        for hid in headings.ids:
            assert f"{address}#{hid}" in located, (address, hid)
        first = first_paragraph(article[article.index(">") + 1:])
        if first:
            text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", d["text"])) for d in index
                            if d["location"].split("#")[0] == address)
            assert " ".join(first.split()) in " ".join(text.split()), (address, first[:80])
