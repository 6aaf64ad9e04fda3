"""Tables as the render stage writes them (bench/tfperf/render/page/html.py and the blocks), on
frozen fixtures, no browser: every column shown has a named header and a column with nothing
in it is left out; a row names its scenario (or topic) even where the row above already did,
so that a card on a phone keeps it; a long table has a summary that counts its rows and folds
on a phone; the claims × releases table and the scenario table name each row in a header cell
and give each finding's whole text to the tap-to-read line. The browser side (sticky first
column, the line under the table, no word broken between letters, cards) is
tests/website/test_site_browser.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from history_data import dataset as history_dataset

from tfperf.analyse import analyse
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import parse_block
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.html import FOLD_ROWS, Markup, again, fold, hidden, table

FIX = Path(__file__).parents[2] / "fixtures" / "site"


class _Tables(HTMLParser):
    """Each table's header texts (screen-reader text included) and its rows' cells, as text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, list]] = []
        self._cell: list[str] | None = None
        self._head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append({"heads": [], "rows": []})
        elif tag == "thead":
            self._head = True
        elif tag == "tbody":
            self._head = False
        elif tag == "tr" and not self._head and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            text = " ".join("".join(self._cell).split())
            t = self.tables[-1]
            (t["heads"] if self._head else t["rows"][-1]).append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _tables(html: str) -> list[dict[str, list]]:
    p = _Tables()
    p.feed(html)
    return p.tables


def _render(ds, text: str) -> str:  # type: ignore[no-untyped-def]
    return str(render_block(parse_block(text), Context(ds, prefix="../../", svgs=SvgCache(None))))


@pytest.fixture(scope="module")
def analysis():  # type: ignore[no-untyped-def]
    return analyse(FIX / "analysis" / "data" / "results", FIX / "analysis" / "snippets")


@pytest.fixture(scope="module")
def gaps():  # type: ignore[no-untyped-def]
    return analyse(FIX / "gaps" / "data" / "results", FIX / "gaps" / "snippets")


# -- the table helper ----------------------------------------------------------------------

def test_a_column_with_nothing_in_it_is_left_out() -> None:
    (t,) = _tables(str(table(["a", "b", hidden("stale")], [["1", "x", ""], ["2", "y", Markup("")]])))
    assert t["heads"] == ["a", "b"] and t["rows"] == [["1", "x"], ["2", "y"]]


def test_a_column_with_content_needs_a_header() -> None:
    with pytest.raises(ValueError, match="column 3 has content but no header"):
        table(["a", "b", ""], [["1", "x", "stale"]])
    (t,) = _tables(str(table(["a", "b", hidden("stale")], [["1", "x", "stale"]])))
    assert t["heads"] == ["a", "b", "stale"]
    assert '<th><span class="tfperf-sr">stale</span></th>' in str(table(["a", hidden("stale")], [["1", "x"]]))


def test_a_repeated_cell_keeps_its_text() -> None:
    assert str(again("batch=1")) == '<span class="tfperf-again">batch=1</span>'


def test_a_long_table_folds_on_a_phone_and_its_summary_says_what_it_holds() -> None:
    short, long = fold("Runner x: 3 scenarios", "T", 3), fold("Runner x: 30 scenarios", "T", FOLD_ROWS + 1)
    assert short.startswith('<details class="tfperf-runner" open>') and "data-tfperf-fold" not in short
    assert long.startswith('<details class="tfperf-runner" open data-tfperf-fold>')
    assert "<summary>Runner x: 30 scenarios</summary>" in long
    assert "&lt;" not in fold("s", table(["a"], [["1"]]), 1)                  # markup is not escaped


# -- the blocks -----------------------------------------------------------------------------

@pytest.mark.parametrize("block", ["findings", "claims fixture_topic", "recommendations fixture_topic",
                                   "runners", "datafiles"])
def test_no_generated_table_has_an_empty_header(analysis, block: str) -> None:  # type: ignore[no-untyped-def]
    html = _render(analysis, block)
    tables = _tables(html)
    assert tables, block
    for t in tables:
        assert all(t["heads"]), (block, t["heads"])
        assert all(len(r) == len(t["heads"]) or len(r) == 1 for r in t["rows"]), (block, t["heads"])


DOCS = Path(__file__).resolve().parents[3] / "docs"
_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def _markdown_heads(text: str) -> list[tuple[int, list[str]]]:
    """Each hand-written (pipe) table's header cells and its line, outside code fences."""
    lines, fenced, out = text.splitlines(), False, []
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and "|" in line and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip()):
            cells = line.strip().removeprefix("|").removesuffix("|").split("|")
            out.append((i + 1, [c.strip() for c in cells]))
    return out


def test_markdown_heads_finds_an_empty_header() -> None:
    text = "| | 2019 |\n|---|---|\n| a | b |\n```\n| | x |\n|---|---|\n```\n| p | q |\n|:--|--:|\n"
    assert _markdown_heads(text) == [(1, ["", "2019"]), (8, ["p", "q"])]


def test_no_hand_written_table_in_docs_has_an_empty_header() -> None:
    pages = sorted(DOCS.rglob("*.md"))
    assert len(pages) > 5
    empty = [f"{p.relative_to(DOCS)}:{line}: {heads}" for p in pages
             for line, heads in _markdown_heads(p.read_text(encoding="utf-8")) if not all(heads)]
    assert not empty, empty


def test_the_findings_table_names_its_topic_on_every_row_and_marks_the_claim(analysis) -> None:  # type: ignore[no-untyped-def]
    html = _render(analysis, "findings")
    (t,) = _tables(html)
    assert t["heads"] == ["topic", "claim", "today, per runner"]
    topics = [r[0] for r in t["rows"]]
    assert len(topics) > 1 and all(topics), topics                  # a card on a phone keeps its topic
    assert html.count('class="tfperf-again"') == len(topics) - len(set(topics))   # linked once, then repeated
    # the changed-between-releases badge sits in its claim's cell, not under an empty header
    assert any("changed between releases" in r[1] for r in t["rows"]) and all(len(r) == 3 for r in t["rows"])


def test_the_runners_page_lists_the_claims_whose_finding_differs_between_machines(analysis, gaps) -> None:  # type: ignore[no-untyped-def]
    from tfperf.analyse import machine_differences
    differ, compared = machine_differences(analysis)
    assert compared >= len(differ) >= 1
    html = _render(analysis, "differences")
    (t,) = _tables(html)
    assert t["heads"][:2] == ["topic", "claim"] and len(t["heads"]) == 4        # one column per runner
    assert len(t["rows"]) == len(differ)
    fast = next(r for r in t["rows"] if r[1] == differ[0].answer.claim_text)
    assert any(c.startswith("faster") for c in fast[2:]) and not all(c.startswith("faster") for c in fast[2:])
    assert f"{len(differ)} of the {compared} claims measured on two or more machines" in html
    assert "#the-claims-tested" in html
    # one runner: nothing to compare, said as such rather than an empty table
    assert "<table" not in _render(gaps, "differences")


def test_a_ten_call_row_names_its_scenario(gaps) -> None:  # type: ignore[no-untyped-def]
    html = _render(gaps, "tenrun fixture_steps")
    t = _tables(html)[0]
    i = t["heads"].index("parameters")
    assert len(t["rows"]) > 2 and all(r[i] for r in t["rows"]), [r[i] for r in t["rows"]]
    assert 'class="tfperf-again"' in html


def test_long_tables_say_how_many_rows_they_hold(gaps, analysis) -> None:  # type: ignore[no-untyped-def]
    html = _render(gaps, "tenrun fixture_steps")
    summary = re.search(r"<summary>4-core Fixture \(AVX2\): (\d+) rows in (\d+) scenarios</summary>", html)
    assert summary and int(summary.group(1)) == len(_tables(html)[0]["rows"])
    claims = _render(analysis, "claims fixture_topic")
    counts = re.findall(r"Every scenario: the speedup of .*? in (\d+) scenarios?</summary>", claims)
    assert counts and sorted(map(int, counts)) == sorted(len(t["rows"]) for t in _tables(claims)[1:])


# -- across releases ------------------------------------------------------------------------

def test_every_claims_x_releases_cell_has_its_whole_finding_for_a_tap() -> None:
    html = _render(history_dataset(), "versions")
    box = html.split('<div class="tfperf-details-box" data-tfperf-details>', 1)[1]
    cells = re.findall(r'<td class="tfperf-vcell[^"]*" title="([^"]*)"', box)
    assert cells and all(c.startswith("TF ") for c in cells)
    assert re.findall(r'<th scope="row">', box)                      # each row named in a header cell
    assert "Tap or click a cell, or move to it with Tab and the arrow keys, for its whole finding." in html
    assert "Hover a cell" not in html


def test_every_scenario_table_names_each_row_and_fits_ten_releases() -> None:
    html = _render(history_dataset(), "trends fixture_topic")
    part = html.split("Every scenario in every release")[1]
    n = int(re.search(r"the finding and speedup of (\d+) scenarios</summary>", part).group(1))
    (t,) = _tables(part)
    assert t["heads"][0] == "scenario" and len(t["heads"]) == 6            # the scenario, then one column a release
    groups = part.count('<tr class="tfperf-group">')
    assert groups and part.count('<th scope="row">') == n == len(t["rows"]) - groups
    # each scenario in the words of the claim's strip and chart, not as ids ("big, keras 2")
    names = re.findall(r'<th scope="row">(.*?)</th>', part)
    assert "big, keras 2" in names and not [x for x in names if "=" in x], names
    # a cell: the symbol and the speedup; the word for screen readers; the interval in its detail
    cell = re.search(r'<td class="tfperf-vcell tfperf-faster" title="(TF [^"]+)">(.*?)</td>', part)
    assert cell and re.search(r"faster, [\d.]+× \(95% CI [\d.]+×–[\d.]+×\)$", cell.group(1)), cell
    assert '<span class="tfperf-sr">faster, </span>' in cell.group(2)
