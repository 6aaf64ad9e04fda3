"""What the site says about its pages outside their text: the address the sitemap and the
canonical links name, a description per page, the notebook pages' titles, and what the
search index leaves out.

* The site's address: the publish workflow passes the real one (``SITE_URL``, from
  actions/configure-pages, made ``site_url`` by scripts/ci/build-site.sh). A build that
  names none gets the GitHub Pages address of the repository it is built from
  (``https://OWNER.github.io/REPO/``, the repository found as for the Colab link:
  :func:`tfperf.render.page.notebooks.github_repository`), else the address ``mkdocs serve`` shows it at.
* A page's description (``<meta name="description">``) is its first paragraph of prose,
  cut to at most :data:`DESCRIPTION_LIMIT` characters at a sentence or a word; the home
  page keeps the site's description, and a page's own ``description:`` wins.
* A notebook page is titled after its topic page, "<topic> — notebook".
* Search indexes prose and headings: tables and the captions of the tables the site
  folds, charts, the per-release strips, the data-file lines and the row of finding
  badges are marked ``data-search-exclude`` (Material's search skips them).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ..page.notebooks import github_repository

DESCRIPTION_LIMIT = 160
NOTEBOOK_SUFFIX = " — notebook"

# Blocks that hold data rather than prose: by tag, by a class of their own, and the
# captions of the tables the site folds (a generated <details>' <summary>). Never an
# element that can hold one of its own tag: Material's search stops skipping at the
# first closing tag of the same name.
EXCLUDED_TAGS = ("table", "figure")
EXCLUDED_CLASSES = ("tfperf-strip", "tfperf-provenance", "tfperf-vocabulary")
_EXCLUDED_TAG_RE = re.compile(r"<({})(?=[\s>])".format("|".join(EXCLUDED_TAGS)))
_EXCLUDED_CLASS_RE = re.compile(r"""<([a-z][a-z0-9]*)(?=\s[^>]*?\bclass="(?:[^"]*\s)?(?:{})(?:\s[^"]*)?")"""
                                .format("|".join(map(re.escape, EXCLUDED_CLASSES))))
_CAPTION_RE = re.compile(r"""(<details\s[^>]*?\bclass="tfperf-[^"]*"[^>]*>\s*)<summary(?=[\s>])""")

# A paragraph inside these is part of something else (a table, a list, a box), not prose.
_NOT_PROSE_TAGS = frozenset({"table", "figure", "details", "li", "blockquote", "aside", "nav", "header", "footer",
                             "pre", "script", "style", "template"})
_NOT_PROSE_CLASS = re.compile(r"(?:^|\s)(?:tfperf|admonition)")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})


def pages_address(owner: str, repo: str) -> str:
    """The GitHub Pages address of a repository: its owner's host, then its name (none for
    the owner's own ``OWNER.github.io`` repository)."""
    host = f"{owner.lower()}.github.io"
    return f"https://{host}/" if repo.lower() == host else f"https://{host}/{repo}/"


def default_site_url(config: Mapping[str, Any], path: str = "mkdocs.yml", env: Mapping[str, str] | None = None,
                     root: Path | None = None) -> tuple[str, str]:
    """``(site_url, where it came from)`` for a build whose configuration names none."""
    repo = github_repository(config, path, env=env, root=root)
    if repo is not None:
        owner, name, source = repo
        return pages_address(owner, name), f"the GitHub Pages address of {owner}/{name} ({source})"
    return f"http://{config.get('dev_addr') or '127.0.0.1:8000'}/", "no repository known: the address of mkdocs serve"


def exclude_from_search(content: str) -> str:
    """``content`` with its tables and their captions, charts, strips, data-file lines and
    badge rows marked ``data-search-exclude``."""
    content = _EXCLUDED_TAG_RE.sub(r"<\1 data-search-exclude", content)
    content = _CAPTION_RE.sub(r"\1<summary data-search-exclude", content)
    return _EXCLUDED_CLASS_RE.sub(r"<\1 data-search-exclude", content)


class _FirstParagraph(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool]] = []      # (tag, whether it is outside prose)
        self.text: list[str] | None = None           # the paragraph being read
        self.found: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found is not None or tag in _VOID:
            return
        cls = dict(attrs).get("class") or ""
        outside = tag in _NOT_PROSE_TAGS or bool(_NOT_PROSE_CLASS.search(cls))
        if tag == "p" and self.text is None and not cls and not any(o for _, o in self.open):
            self.text = []
        self.open.append((tag, outside))

    def handle_endtag(self, tag: str) -> None:
        if self.found is not None or not any(t == tag for t, _ in self.open):
            return
        while self.open and self.open.pop()[0] != tag:
            pass
        if tag == "p" and self.text is not None:
            text = " ".join("".join(self.text).split())
            self.text = None
            if text:
                self.found = text

    def handle_data(self, data: str) -> None:
        if self.text is not None and not any(t in ("script", "style") for t, _ in self.open):
            self.text.append(data)


def first_paragraph(content: str) -> str | None:
    """The text of a page's first paragraph of prose: a ``<p>`` of its own (no class), not
    inside a table, a list, a figure, a box or a block the site generates."""
    parser = _FirstParagraph()
    parser.feed(content)
    parser.close()
    return parser.found


def shorten(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """``text`` in at most ``limit`` characters: its first sentences that fit (when they
    fill half of it at least), else cut at a word with an ellipsis. A paragraph that leads
    into a list or a block ("…for your machine:") ends with a full stop instead."""
    text = " ".join(text.split())
    if len(text) > limit:
        fit = ""
        for sentence in re.findall(r".+?[.!?](?=\s|$)", text):
            if len(fit) + 1 + len(sentence.strip()) > limit:
                break
            fit = (fit + " " + sentence.strip()).strip()
        if len(fit) >= limit // 2:
            text = fit
        else:
            cut = text[:limit - 1]
            cut = cut[:cut.rindex(" ")] if " " in cut else cut
            text = cut.rstrip(" ,;:–—-") + "…"
    return text[:-1] + "." if text.endswith(":") else text


def description(content: str, limit: int = DESCRIPTION_LIMIT) -> str | None:
    """The page's description, from its first paragraph (None without one), escaped for
    the attribute the theme writes it into unescaped."""
    text = first_paragraph(content)
    return html.escape(shorten(text, limit), quote=True) if text else None


def plain_title(title: str) -> str:
    """A page title as text (a heading's title may carry markup: ``<code>…</code>``)."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", title)).split())


def notebook_title(topic_title: str) -> str:
    """A notebook page's title, escaped for the ``<title>`` the theme writes it into."""
    return html.escape(plain_title(topic_title) + NOTEBOOK_SUFFIX, quote=False)
