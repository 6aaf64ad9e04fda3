"""The published site speaks to readers: no page built from the committed results names a
file under tests/, scripts/ or .github/, a test id, a harness version, or a source whose
address is "not recorded", and the Runners page names each runner's operating system, not
its kernel's build string. What the tests check, the harness's history, script names and
CI steps are in docs/maintainers/ (not published); a reader page says what is guaranteed
and which `tfperf` command shows it (no TensorFlow, no browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfperf.render.blocks.blocks import os_name

ROOT = Path(__file__).resolve().parents[2]

# What a maintainer's note looks like on a page. A path counts only as a path: the theme's
# "assets/javascripts/" is not "scripts/".
MAINTAINER_TEXT = {
    "a file under tests/, scripts/ or .github/": re.compile(r"(?<![\w.-])(?:tests|scripts|\.github)/"),
    "a test id": re.compile(r"\.py::test_"),
    "a harness version": re.compile(r"harness\s+version", re.IGNORECASE),
    "a source without its address": re.compile(r"address\s+not\s+recorded", re.IGNORECASE),
}


# The benchmarked code is shown verbatim, and two snippets' comments name a test. A byte
# changed in either file would mark every result of it stored before per-variant source
# hashes stale until measured again (948 today: both topics' published full profiles and
# every release of their history), so these two sentences stay until then; nothing else may.
SNIPPET_WORDS = {
    "tests/test_topic_serving.py checks it.": ROOT / "snippets" / "serving_formats.py",
    "tests/test_tf1_api.py checks both.": ROOT / "snippets" / "train_step.py",
}


def reader_pages(site: Path) -> list[Path]:
    """Every page a reader can open: the built HTML but the theme's assets and the search."""
    return sorted(p for p in site.rglob("*.html") if p.relative_to(site).parts[0] not in ("assets", "search"))


def maintainer_text(site: Path) -> list[str]:
    """'<page>: <what>: …context…' for every match on every reader page."""
    found = []
    for page in reader_pages(site):
        html = page.read_text(encoding="utf-8")
        for what, pattern in MAINTAINER_TEXT.items():
            for m in pattern.finditer(html):
                if any(html.startswith(words, m.start()) for words in SNIPPET_WORDS):
                    continue
                context = " ".join(html[max(0, m.start() - 60):m.end() + 60].split())
                found.append(f"{page.relative_to(site).as_posix()}: {what}: …{context}…")
    return found


@pytest.fixture(scope="module")
def site(published_site: Path) -> Path:
    return published_site


def test_the_patterns_find_what_they_look_for(tmp_path: Path) -> None:
    """The check itself: each kind of maintainer's text is found, and the theme's own paths
    and the words a reader page may use are not."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "x.html").write_text("tests/test_a.py", encoding="utf-8")   # not a page
    (tmp_path / "ok.html").write_text(
        '<script src="assets/javascripts/bundle.js"></script><p>the harness measures itself; '
        'a result that crashes is kept as a failure; data/results/x/full.json</p>', encoding="utf-8")
    (tmp_path / "bad.html").write_text(
        "<p>The test tests/test_topic_serving.py checks it; run scripts/selfcheck.py or read "
        ".github/workflows/tests.yml; tests/test_x.py::test_y. Before harness version 4 … "
        "(Stack Overflow, address not recorded)</p>", encoding="utf-8")
    found = maintainer_text(tmp_path)
    assert all(f.startswith("bad.html: ") for f in found), found
    kinds = [f.split(": ")[1] for f in found]
    assert kinds.count("a file under tests/, scripts/ or .github/") == 4
    assert {"a test id", "a harness version", "a source without its address"} <= set(kinds)


def test_the_snippets_words_are_still_theirs() -> None:
    """Once a snippet drops its sentence (when its older results are measured again), its
    exception goes too."""
    for words, snippet in SNIPPET_WORDS.items():
        assert words in snippet.read_text(encoding="utf-8"), f"{snippet.name} no longer says {words!r}: drop it here"


def test_no_reader_page_speaks_to_maintainers(site: Path) -> None:
    pages = reader_pages(site)
    assert len(pages) > 10 and any(p.parent.name == "faults" for p in pages)
    found = maintainer_text(site)
    assert not found, "maintainers' text on reader pages:\n" + "\n".join(found)


def test_a_runners_operating_system_is_named_without_its_kernel_release() -> None:
    assert os_name({"os": "Linux 6.18.44-fc-v782", "machine": "x86_64"}) == "Linux (x86_64)"
    assert os_name({"os": "Darwin 24.1.0", "machine": "arm64"}) == "macOS (arm64)"
    assert os_name({"os": "Windows 2022Server", "machine": "AMD64"}) == "Windows 2022Server (AMD64)"
    assert os_name({"os": "Linux"}) == "Linux" and os_name({}) == "–"


def test_the_runners_page_shows_no_kernel_release(site: Path) -> None:
    page = (site / "runners" / "index.html").read_text(encoding="utf-8")
    recorded = {str(env.get("os")) for path in (ROOT / "data" / "results").glob("*/*.json")
                for env in json.loads(path.read_text(encoding="utf-8"))["environments"].values()}
    releases = {r.split(" ", 1)[1] for r in recorded if r.startswith("Linux ")}
    assert releases, recorded
    assert not [r for r in releases if r in page], releases
    assert re.search(r"<td>OS</td>\s*<td>Linux \(x86_64\)</td>", page)
