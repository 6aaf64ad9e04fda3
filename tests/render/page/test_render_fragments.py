"""A page's long parts in files of their own (bench/tfperf/render/page/embed.py): a long part
becomes a link the page fetches, a short one stays; long highlighted code too; each part is
written next to its page as a document with the site's styles. The fetching itself is
tests/website/test_site_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

from tfperf.render.page.embed import CODE_ELEMENTS, FETCH_ELEMENTS, fetch_code, fetch_placeholder, write_all
from tfperf.render.page.html import Markup, table


def _long_table(n: int) -> Markup:
    return table(["a", "b"], [[str(i), f"x{i}"] for i in range(n)])


def test_a_long_part_becomes_a_link_and_a_short_one_stays() -> None:
    store: dict[str, str] = {}
    short = _long_table(3)
    assert fetch_placeholder(store, short, "the table") == short and not store
    long = _long_table(FETCH_ELEMENTS)
    out = str(fetch_placeholder(store, long, "the table"))
    (name,) = store
    assert store[name] == str(long) and re.fullmatch(r"part-[0-9a-f]{12}\.html", name)
    assert f'data-tfperf-src="{name}"' in out and f'<a href="{name}">Show the table</a>' in out
    assert "<table" not in out
    # without a store (a block rendered on its own) every part stays in place
    assert fetch_placeholder(None, long, "the table") == long


def test_long_code_is_fetched_and_short_code_stays() -> None:
    def block(lines: int) -> str:
        body = "\n".join('<span class="k">def</span> <span class="nf">f</span>()' for _ in range(lines))
        return f'<div class="highlight"><pre><span></span><code>{body}</code></pre></div>'

    short, long = block(3), block(CODE_ELEMENTS)
    store: dict[str, str] = {}
    out = fetch_code(f"<p>a</p>{short}<p>b</p>{long}<p>c</p>", store)
    (name,) = store
    assert store[name] == long and name.startswith("code-")
    assert short in out and long not in out and f"Show the code ({CODE_ELEMENTS} lines)" in out
    assert "min-height" in out                       # its place is kept while it loads
    assert fetch_code(long, None) == long


def test_parts_are_written_next_to_their_page(tmp_path: Path) -> None:
    write_all({"topics/x/": {"part-1.html": "<p>T</p>"}, "": {"part-2.html": "<p>H</p>"}}, tmp_path)
    page = (tmp_path / "topics" / "x" / "part-1.html").read_text(encoding="utf-8")
    assert '<main class="md-typeset" data-tfperf-part><p>T</p></main>' in page
    assert 'lang="en"' in page and 'href="../../assets/tfperf.css"' in page and "noindex" in page
    assert 'href="assets/tfperf.css"' in (tmp_path / "part-2.html").read_text(encoding="utf-8")


def test_a_charts_spec_and_rows_are_files_beside_the_page() -> None:
    import json

    from tfperf.render.page.embed import chart_html

    rows = [{"x": 1, "y": 0.123456789}]
    spec = {"mark": "point", "datasets": {"rows": rows}, "data": {"name": "rows"}}
    store: dict[str, str] = {}
    one = str(chart_html("c1", spec, "a.svg", "Latency of x: y is faster", set(), store))
    two = str(chart_html("c2", {**spec, "mark": "line"}, "b.svg", "Other", set(), store))
    specs = sorted(n for n in store if n.startswith("chart-"))
    (data,) = [n for n in store if n.startswith("rows-")]          # the rows once for both charts
    assert len(specs) == 2 and json.loads(store[data]) == [{"x": 1, "y": 0.123457}]
    for html, name in ((one, "c1"), (two, "c2")):
        assert f'id="{name}"' in html and "application/json" not in html and "0.1234" not in html
        src = re.search(r'data-tfperf-spec="([^"]+)"', html).group(1)   # type: ignore[union-attr]
        got = json.loads(store[src])
        assert got["usermeta"]["tfperf_rows_src"] == data and got["datasets"]["rows"] == []
        assert f'<a href="{data}">' in html                           # without JavaScript: the data
    assert 'aria-label="Latency of x: y is faster"' in one and 'alt="Latency of x: y is faster"' in one
    # without a store (a page written on its own) the spec stays in the page
    assert "application/json" in str(chart_html("c3", spec, None, "A", set()))


def test_a_charts_json_is_written_as_it_is(tmp_path: Path) -> None:
    write_all({"topics/x/": {"rows-1.json": '[{"a":1}]'}}, tmp_path)
    assert (tmp_path / "topics" / "x" / "rows-1.json").read_text(encoding="utf-8") == '[{"a":1}]'
