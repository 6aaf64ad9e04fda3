"""Findings across TensorFlow releases on the pages, from frozen fixture data (no TensorFlow,
no browser): the topic's strips and charts (the newest release's cell being the claims
table's finding), the short answer's note of what changed, the home page's claims × releases
table, and what each says before two releases exist."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from history_data import TOPIC, dataset

from tfperf.analyse.dataset import Dataset
from tfperf.analyse.judge.effects import vocabulary
from tfperf.analyse.views.answers import claim_answer
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import parse_block
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.topic_chart import version_chart_specs


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
    a, b = "2-core Fixture (AVX2)", "8-core Fixture (AVX-512)"          # fixture-a's and fixture-b's hardware
    # fast wins on the older releases' grid, loses from 2.16 on, and in 2.21 (the full grid, with
    # the huge inputs it still wins on) depends on the case
    depends = "◆ depends on the case"
    assert body[f"fast is faster than the default. {a}"] == ["▲ faster*"] * 3 + ["▼ slower", depends]
    assert body[f"fast is faster than the default. {b}"] == ["–", "–", "▲ faster", "–", "▲ faster"]
    assert body[f"The default is faster than fast. {a}"] == ["▼ slower*"] * 3 + ["▲ faster", depends]
    assert body[f"same is faster than the default. {a}"] == ["= the same*"] * 3 + ["= the same"] * 2
    assert body[f"new is faster than the default. {a}"] == ["n/a"] * 3 + ["▲ faster"] * 2
    assert body[f"fast beats the default on small inputs. {a}"][1] == "–"          # not measured in 2.13
    assert body[f"noisy is faster than the default. {a}"] == ["? unclear*"] * 3 + ["? unclear"] * 2
    words = {re.sub(r"^\W+ |\*$", "", c) for cells in body.values() for c in cells} - {"–", "n/a"}
    assert words and words <= vocabulary()
    assert all(link == "../../topics/fixture_topic/#across-versions" for link in t.links)
    assert "Changed findings:" in html and html.count("since TF 2.16") == 3
    # the whole finding and the reason are in the cell's title; runners and releases counted apart
    assert ('title="TF 2.12: faster in both scenarios (1.99×–2×); not available in 2 scenarios: Keras 3 is not '
            "the tf.keras") in html
    assert "measured on 2 runners across 5 TensorFlow releases (2.12, 2.13, 2.15, 2.16 and 2.21)" in html
    assert "3 findings changed (listed under the table)" in html
    assert "since TF 2.16: slower (was: faster in 2.15)" in html
    assert "since TF 2.16: faster (was: slower in 2.15)" in html            # the default against fast, mirrored
    assert "tfperf-nocards" in html      # scrolls in its own box on a phone, not a card per claim
    # The count names claims: the fixture's 6, not its 12 rows (a claim per runner).
    claims = {name.removesuffix(f" {a}").removesuffix(f" {b}") for name in body}
    assert len(claims) == 6 and "6 claims measured on 2 runners" in html


def test_topic_section_strips_and_charts() -> None:
    html = _render(dataset(), "trends fixture_topic")
    assert "<strong>3 of 6 claims changed finding</strong>" in html
    assert "runner fixture-a with TensorFlow 2.12, 2.13, 2.15, 2.16 and 2.21 (5 releases)" in html
    first = html.split('<div class="tfperf-version-claim">')[1]
    cells = [(cls, ver, re.sub(r"<[^>]+>", "", word)) for cls, ver, word in re.findall(
        r'<li class="tfperf-strip-cell tfperf-(\w+)(?: tfperf-stated)?"[^>]*><span class="tfperf-strip-ver">([\d.]+)'
        r'</span><span class="tfperf-strip-word">(.*?)</span></li>', first)]
    assert cells == [("faster", "2.12", "▲ faster*"), ("faster", "2.13", "▲ faster*"),
                     ("faster", "2.15", "▲ faster*"), ("slower", "2.16", "▼ slower"),
                     ("depends", "2.21", "◆ depends on the case")]
    # 2.16 -> 2.21 is no change: on the scenarios both measured fast is slower in each; 2.21's
    # full grid adds the huge inputs, where it wins, and the strip says how the grids differ
    assert "Changed: <strong>since TF 2.16: slower (was: faster in 2.15)</strong>" in first
    assert ("Scenarios per release: 2.12–2.16: 1 to 4 scenarios (the smaller grid measured for every release); "
            "2.21: 6 (the full grid of this page).") in first
    # releases whose reasons differ only in the release named share one note
    assert ("<strong>2.12 and 2.15</strong>: not available in 2 of 4 scenarios: Keras 3 is not the tf.keras of "
            "TensorFlow 2.12 (likewise in 2.15)") in first
    assert "<strong>2.13</strong>: not available in 1 of 2 scenarios: Keras 3 is not" in first
    spec = json.loads(re.search(r'<script type="application/json" id="tfperf-chart-\d+-spec">(.*?)</script>',
                                first).group(1))
    xs = [layer["encoding"]["x"] for layer in spec["layer"] if "x" in layer.get("encoding", {})]
    assert xs[0]["scale"]["domain"] == ["2.12", "2.13", "2.15", "2.16", "2.21"]
    new = html.split("new is faster than the default.")[1]
    assert "No change: faster in every release with results (2.16–2.21); not available in 2.12, 2.13 and 2.15" in new
    assert "tf.new_api does not exist in TensorFlow 2.15.1" in new
    # The newest release's cell is the claims table's: the same finding, verdict and words.
    ds = dataset()
    for s in ds.version_strips(TOPIC):
        (head,) = [c for c in s.cells if c.headline]
        answer = claim_answer(ds, TOPIC, s.claim_id)
        assert answer is not None
        (r,) = [r for r in answer.runners if r.runner == s.runner]
        assert (head.finding, head.verdict) == (r.finding, r.verdict), (s.claim_id, s.runner)
    for s in ds.version_strips(TOPIC):
        (head,) = [c for c in s.cells if c.headline]
        answer = claim_answer(ds, TOPIC, s.claim_id)
        assert answer is not None
        (r,) = [r for r in answer.runners if r.runner == s.runner]
        assert head.text == r.text, (s.claim_id, s.runner)


def test_chart_rows_have_the_interval_per_release() -> None:
    ds = dataset()
    from tfperf.analyse.judge.version_verdicts import speedup_rows

    s = next(s for s in ds.version_strips(TOPIC) if s.claim_id == "fast_beats_default_small" and s.runner == "fixture-a")
    rows = speedup_rows(s)
    assert {r["version"] for r in rows} == {"2.12", "2.15", "2.16", "2.21"}          # 2.13: not measured
    assert all(r["speedup_low"] <= r["speedup"] <= r["speedup_high"] for r in rows)
    assert {r["finding"] for r in rows if r["version"] == "2.12"} == {"faster"}
    assert {r["finding"] for r in rows if r["version"] in ("2.16", "2.21")} == {"slower"}
    spec, static = version_chart_specs(rows, ["2.12", "2.13", "2.15", "2.16", "2.21"], "fast over the default")
    assert static["datasets"]["rows"] and spec == static


def test_short_answer_names_what_changed() -> None:
    html = _render(dataset(), "changes fixture_topic")
    assert "Changed across TensorFlow releases" in html
    assert "fast is faster than the default — <strong>since TF 2.16: slower (was: faster in 2.15)</strong>" in html
    assert html.count("<li>") == 3 and html.count("on the 2-core Fixture (AVX2)") == 3
    # one runner, nothing changed: said in words, naming the releases
    b = dataset(lambda p: p.parent.name == "fixture-b")
    quiet = _render(b, "changes fixture_topic")
    assert "Across TensorFlow 2.15 and 2.21: no finding on this page changed" in quiet
    assert "No claim's finding changed" in _render(b, "trends fixture_topic")


def test_before_two_releases_it_says_how() -> None:
    one = dataset(lambda p: p.name == "full.json")
    for block in ("trends fixture_topic", "versions"):
        html = _render(one, block)
        assert "No trend yet" in html and "tfperf run --tf 2.15.1 --profile history" in html
    assert _render(one, "changes fixture_topic") == ""


def test_runners_page_lists_releases_in_order() -> None:
    html = _render(dataset(), "runners")
    assert "TF 2.12.1, TF 2.13.1, TF 2.15.1, TF 2.16.2, TF 2.21.0" in html


def test_a_reasons_setting_ids_are_said_in_the_topics_words() -> None:
    from tfperf.render.blocks.version_blocks import reader_reason

    class _Words:
        def settings_words(self, topic: str, settings: dict[str, object]) -> str:
            return ", ".join({"keras=3": "Keras 3", "eager=on": "eager on"}[f"{k}={v}"] for k, v in sorted(settings.items()))

    ds = _Words()
    said = reader_reason(ds, TOPIC, "keras=3: tf.keras is Keras 2 in TensorFlow 2.12.1")  # type: ignore[arg-type]
    assert said == "Keras 3: tf.keras is Keras 2 in TensorFlow 2.12.1"
    assert reader_reason(ds, TOPIC, "eager=on,keras=3: no") == "eager on, Keras 3: no"  # type: ignore[arg-type]
    # a reason without ids in front is kept as recorded
    assert reader_reason(ds, TOPIC, "ImportError: no tf2onnx") == "ImportError: no tf2onnx"  # type: ignore[arg-type]
