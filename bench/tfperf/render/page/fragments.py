"""Long parts of a page in files of their own, fetched when the reader gets to them.

A topic page held ~14,000 elements (every scenario of every claim in every release, each
claim's scenarios, the highlighted code), and a phone spent seconds styling and laying
them out before it answered a tap. A part longer than :data:`FETCH_ELEMENTS` is written
next to its page as a small HTML document, and the page keeps a link to it in its place;
docs/assets/tfperf.js fetches it and puts it in the link's place when the part comes near
the screen or its fold opens (``tfperfDrawAll()`` fetches every one). Without JavaScript
the link opens the part on its own. Headings and prose stay in the page, and so in the
search index.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .html import Markup, element, h

FETCH_ELEMENTS = 100          # a part of more elements than this is fetched (a table of ~12 rows)
CODE_ELEMENTS = 150           # a highlighted code block of more than this is fetched
_TAG = re.compile(r"<[a-zA-Z]")
# Material's highlighted code block (pymdownx.highlight): no <div> inside it
_CODE = re.compile(r'<div class="(?:language-[\w-]+ )?highlight">(?:(?!</div>).)*</pre></div>', re.DOTALL)


def elements(html: str) -> int:
    return len(_TAG.findall(html))


def _name(kind: str, body: str) -> str:
    return f"{kind}-{hashlib.sha256(body.encode()).hexdigest()[:12]}.html"


def fetch_placeholder(store: dict[str, str] | None, body: Markup, what: str, kind: str = "part",
                      lines: int = 0, least: int = FETCH_ELEMENTS) -> Markup:
    """``body`` itself when ``store`` is None or it has ``least`` elements or fewer; else
    its file name in ``store`` and, in the page, the element tfperf.js fills with it."""
    if store is None or elements(body) <= least:
        return body
    name = _name(kind, str(body))
    store[name] = str(body)
    style = f"min-height: {lines * 1.5 + 2:.0f}em" if lines else None
    return element("div", element("p", element("a", f"Show {what}", href=name), class_="tfperf-fetch-link"),
                   class_="tfperf-fetch", data_tfperf_src=name, style=style)


def fetch_code(html: str, store: dict[str, str] | None) -> str:
    """The page's long highlighted code blocks, each fetched as the reader nears it (a block
    of a few hundred lines is thousands of coloured spans)."""
    if store is None:
        return html

    def one(m: re.Match[str]) -> str:
        if elements(m.group(0)) <= CODE_ELEMENTS:
            return m.group(0)
        lines = m.group(0).count("\n") + 1
        return str(fetch_placeholder(store, Markup(m.group(0)), f"the code ({lines} lines)", "code", lines))

    return _CODE.sub(one, html)


def document(body: str, prefix: str) -> str:
    """A part as a document of its own: the page's styles, readable when opened by its link."""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            "<meta name=\"robots\" content=\"noindex\"><title>Part of a tfperf page</title>"
            f"<link rel=\"stylesheet\" href=\"{h(prefix)}assets/tfperf.css\"></head>"
            f"<body><main class=\"md-typeset\" data-tfperf-part>{body}</main></body></html>\n")


def write_all(pages: dict[str, dict[str, str]], site_dir: Path) -> None:
    """Each page's parts, next to the page (page url -> file name -> HTML, or a chart's
    JSON as it is)."""
    for url, parts in pages.items():
        folder = url if url.endswith("/") or not url else url.rsplit("/", 1)[0] + "/" if "/" in url else ""
        prefix = "../" * folder.count("/")
        for name, body in parts.items():
            dest = site_dir / folder / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(body if name.endswith(".json") else document(body, prefix), encoding="utf-8")
