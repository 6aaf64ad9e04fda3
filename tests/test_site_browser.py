"""The built site in a real browser (Debian chromium driven by pip's playwright).

Builds the site from synthetic fixture data (tests/fixtures/site/make_fixture.py), serves
it on 127.0.0.1, opens every page, waits for every chart to render, and checks: no
console error, no request to any other host, no script run from data (alert), and that
search finds a topic. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
def server(built_site: Path):  # type: ignore[no-untyped-def]
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


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


def test_every_page_renders_locally(built_site: Path, server: str, browser) -> None:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = _pages(built_site)
    assert "topics/predict_vs_call/" in pages and "" in pages
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    outside: list[str] = []
    dialogs: list[str] = []
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: outside.append(r.url)
            if urlparse(r.url).scheme in ("http", "https", "ws", "wss") and urlparse(r.url).hostname != "127.0.0.1"
            else None)
    charts_seen = 0
    for rel in pages:
        page.goto(server + rel, wait_until="networkidle")
        n = page.locator("[data-tfperf-chart]").count()
        if n:
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-tfperf-chart]')].every("
                "el => el.getAttribute('data-rendered') === 'true' && el.querySelector('svg, canvas'))",
                timeout=30_000)
            charts_seen += n
        html = page.content()
        assert "TFPERFSLOT" not in html, f"{rel}: an unreplaced placeholder"
        name = (rel.strip("/").replace("/", "_") or "home")
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    assert charts_seen >= 3, "the topic page's charts were not found"
    assert not errors, "console errors:\n" + "\n".join(errors)
    assert not outside, "requests outside the site:\n" + "\n".join(outside)
    assert not dialogs, f"a script from the data ran: {dialogs}"
    # Markup in the data is shown as text.
    page.goto(server + "runners/", wait_until="networkidle")
    assert page.get_by_text("<script>alert(1)</script> Fixture 16-core CPU").count() >= 1
    page.close()


def test_search_finds_a_topic(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server, wait_until="networkidle")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("predict", delay=50)
    result = page.locator(".md-search-result__item").filter(has_text="predict() vs calling the model")
    result.first.wait_for(timeout=15_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "search.png"))
    page.close()


def test_no_external_url_in_html(built_site: Path) -> None:
    import re

    bad = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|import\(\s*["']https?://|url\(\s*["']?https?://""")
    hits = [f"{p.relative_to(built_site)}: {m.group(0)}" for p in built_site.rglob("*.html")
            for m in bad.finditer(p.read_text(encoding="utf-8"))]
    assert not hits, "\n".join(hits[:20])
