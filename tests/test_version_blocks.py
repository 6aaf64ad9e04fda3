"""Verdicts across TensorFlow releases on the pages, from frozen fixture data (no TensorFlow,
no browser): the topic's strips and charts, the short answer's note of what changed, the
home page's claims × releases table, and what each says before two releases exist."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from history_data import TOPIC, dataset
from tfperf.analyse.dataset import Dataset
from tfperf.render.blocks import Context, render_block
from tfperf.render.directives import parse_block
from tfperf.render.embed import SvgCache
from tfperf.render.version_chart import version_chart_specs


def _render(ds: Dataset, text: str) -> str:
    ctx = Context(ds, prefix="../../", svgs=SvgCache(None), topic_pages={TOPIC})
    return str(render_block(parse_block(text), ctx))


class _Rows(HTMLParser):
    """The text of each cell of each row of the first table, and each row's class."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, list[str]]] = []
        self.links: list[str] = []
        self._cell: list[str] | None = None
        self._tables = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._tables += 1
        if self._tables != 1:
            return
        if tag == "tr":
            self.rows.append((dict(attrs).get("class") or "", []))
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a":
            self.links.append(str(dict(attrs).get("href")))
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1][1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _table(html: str) -> _Rows:
    p = _Rows()
    p.feed(html)
    return p


def test_home_table_claims_by_releases() -> None:
    html = _render(dataset(), "versions")
    t = _table(html)
    head = t.rows[0][1]
    assert head == ["claim", "2.12", "2.13", "2.15", "2.16", "2.21"]
    groups = [cells for cls, cells in t.rows if cls == "tfperf-group"]
    assert groups == [["Fixture topic (synthetic)"]]
    body = {cells[0]: cells[1:] for cls, cells in t.rows[1:] if cls != "tfperf-group"}
    assert body["fast is faster than the default. fixture-a"] == ["✓ holds*"] * 3 + ["✗ refuted"] * 2
    assert body["fast is faster than the default. fixture-b"] == ["–", "–", "✓ holds", "–", "✓ holds"]
    assert body["new is faster than the default. fixture-a"] == ["n/a"] * 3 + ["✓ holds"] * 2
    assert body["fast beats the default on small inputs. fixture-a"][1] == "–"          # not measured in 2.13
    assert body["noisy is faster than the default. fixture-a"] == ["? unclear*"] * 3 + ["? unclear"] * 2
    assert all(link == "../../topics/fixture_topic/#across-versions" for link in t.links)
    assert "Changed verdicts:" in html and html.count("since TF 2.16") == 3
    # the full verdict and the reason are in the cell's title; runners and releases counted apart
    assert 'title="TF 2.12: holds (in 2 scenarios); not available in 2 scenarios: Keras 3 is not the tf.keras' in html
    assert "9 claims measured on 2 runners across 5 TensorFlow releases (2.12, 2.13, 2.15, 2.16 and 2.21)" in html
    assert re.search(r"\d+ claims? changed verdict \(listed under the table\)", html)
    assert "since TF 2.16: refuted (was: holds up to 2.15)" in html
    assert "tfperf-nocards" in html      # scrolls in its own box on a phone, not a card per claim


def test_topic_section_strips_and_charts() -> None:
    html = _render(dataset(), "trends fixture_topic")
    assert "<strong>3 of 6 claims changed verdict</strong>" in html
    assert "runner fixture-a with TensorFlow 2.12, 2.13, 2.15, 2.16 and 2.21 (5 releases)" in html
    first = html.split('<div class="tfperf-version-claim">')[1]
    cells = [(cls, ver, re.sub(r"<[^>]+>", "", word)) for cls, ver, word in re.findall(
        r'<li class="tfperf-strip-cell tfperf-(\w+)"[^>]*><span class="tfperf-strip-ver">([\d.]+)'
        r'</span><span class="tfperf-strip-word">(.*?)</span></li>', first)]
    assert cells == [("holds", "2.12", "✓ holds*"), ("holds", "2.13", "✓ holds*"), ("holds", "2.15", "✓ holds*"),
                     ("fails", "2.16", "✗ refuted"), ("fails", "2.21", "✗ refuted")]
    assert "Changed: <strong>since TF 2.16: refuted (was: holds up to 2.15)</strong>" in first
    # releases whose reasons differ only in the release named share one note
    assert ("<strong>2.12 and 2.15</strong>: not available in 2 of 4 scenarios: Keras 3 is not the tf.keras of "
            "TensorFlow 2.12 (likewise in 2.15)") in first
    assert "<strong>2.13</strong>: not available in 1 of 2 scenarios: Keras 3 is not" in first
    spec = json.loads(re.search(r'<script type="application/json" id="tfperf-chart-\d+-spec">(.*?)</script>',
                                first).group(1))
    xs = [layer["encoding"]["x"] for layer in spec["layer"] if "x" in layer.get("encoding", {})]
    assert xs[0]["scale"]["domain"] == ["2.12", "2.13", "2.15", "2.16", "2.21"]
    new = html.split("new is faster than the default.")[1]
    assert "No change: holds in every release with a verdict (2.16 and 2.21); not available in 2.12, 2.13 and 2.15" \
        in new
    assert "tf.new_api does not exist in TensorFlow 2.15.1" in new


def test_chart_rows_have_the_interval_per_release() -> None:
    ds = dataset()
    from tfperf.analyse.version_verdicts import speedup_rows

    s = next(s for s in ds.version_strips(TOPIC) if s.claim_id == "fast_beats_default_small" and s.runner == "fixture-a")
    rows = speedup_rows(s)
    assert {r["version"] for r in rows} == {"2.12", "2.15", "2.16", "2.21"}          # 2.13: not measured
    assert all(r["speedup_low"] <= r["speedup"] <= r["speedup_high"] for r in rows)
    assert {r["verdict"] for r in rows if r["version"] == "2.12"} == {"holds"}
    spec, static = version_chart_specs(rows, ["2.12", "2.13", "2.15", "2.16", "2.21"], "fast over the default")
    assert static["datasets"]["rows"] and spec == static


def test_short_answer_names_what_changed() -> None:
    html = _render(dataset(), "changes fixture_topic")
    assert "Changed across TensorFlow releases" in html
    assert "fast is faster than the default — <strong>since TF 2.16: refuted (was: holds up to 2.15)</strong>" in html
    assert html.count("<li>") == 3 and "on fixture-a" in html
    # one runner, nothing changed: said in words, naming the releases
    b = dataset(lambda p: p.parent.name == "fixture-b")
    quiet = _render(b, "changes fixture_topic")
    assert "Across TensorFlow 2.15 and 2.21: no verdict on this page changed" in quiet
    assert "No claim's verdict changed" in _render(b, "trends fixture_topic")


def test_before_two_releases_it_says_how() -> None:
    one = dataset(lambda p: p.name == "full.json")
    for block in ("trends fixture_topic", "versions"):
        html = _render(one, block)
        assert "No trend yet" in html and "tfperf run --tf 2.15.1 --profile history" in html
    assert _render(one, "changes fixture_topic") == ""


def test_runners_page_lists_releases_in_order() -> None:
    html = _render(dataset(), "runners")
    assert "TF 2.12.1, TF 2.13.1, TF 2.15.1, TF 2.16.2, TF 2.21.0" in html
