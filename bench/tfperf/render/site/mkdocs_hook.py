"""MkDocs hook (``hooks:`` in mkdocs.yml): fills tfperf placeholders with tables and charts
computed from data/, adds each topic's notebook page, and publishes the raw data.

All logic lives in :mod:`tfperf.render.site.site`; this file only connects MkDocs events to it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

try:
    import tfperf  # noqa: F401
except ImportError:  # building from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from tfperf.render.page.embed import NAME_CHARTS, vendor_files
from tfperf.render.site.site import Site

_site: Site | None = None


def on_config(config: Any) -> Any:
    global _site
    _site = Site.from_config(config)
    return config


def on_pre_build(config: Any) -> None:
    assert _site is not None
    _site.prepare()


@event_priority(100)  # before mkdocs-jupyter, so it turns the notebooks into pages
def on_files(files: Any, config: Any) -> Any:
    assert _site is not None
    # docs/notebooks/ holds the committed copies Colab opens (`tfperf notebooks`), not pages:
    # the pages are the notebooks made now from the snippets, under the same addresses.
    for f in [f for f in files if f.src_uri.startswith("notebooks/") and f.src_uri.endswith(".ipynb")]:
        files.remove(f)
    _site.set_pages([f.src_uri for f in files])
    for src_uri in _site.notebook_files():
        files.append(File(src_uri, str(_site.gen_dir), config["site_dir"], config["use_directory_urls"]))
    # The chart libraries live once, in the package (tfperf advise inlines them too): the site
    # serves them from assets/vendor/, where docs/assets/tfperf.js loads them.
    for rel, path in vendor_files():
        files.append(File.generated(config, f"assets/vendor/{rel}", abs_src_path=str(path)))
    # tfperfNameChart, which tfperf.js calls after drawing a chart (mkdocs.yml loads it first)
    files.append(File.generated(config, "assets/name-charts.js", abs_src_path=str(NAME_CHARTS)))
    return files


def on_nav(nav: Any, config: Any, files: Any) -> Any:
    """Topic pages (docs/topics/*.md) missing from mkdocs.yml's nav join its Topics section,
    so adding a topic needs no edit outside its own page."""
    from mkdocs.structure.nav import Section
    from mkdocs.structure.pages import Page

    section = next((i for i in nav.items if isinstance(i, Section) and i.title == "Topics"), None)
    if section is None:
        return nav
    listed = {p.file.src_uri for p in nav.pages}
    for f in sorted(files.documentation_pages(), key=lambda f: f.src_uri):
        if f.src_uri.startswith("topics/") and f.src_uri.endswith(".md") and f.src_uri not in listed:
            page = Page(None, f, config)
            page.parent = section
            section.children.append(page)
    notebooks = [f for f in sorted(files.documentation_pages(), key=lambda f: f.src_uri)
                 if f.src_uri.endswith(".ipynb") and f.src_uri not in listed]
    if notebooks:                       # the topics' notebooks, after the pages that explain them
        nb_section = Section("Notebooks", [])
        for f in notebooks:
            page = Page(None, f, config)
            page.parent = nb_section
            nb_section.children.append(page)
        nav.items.append(nb_section)
    nav.pages = [p for p in _walk(nav.items)]
    assert _site is not None
    _site.topic_order = tuple(p.file.src_uri[len("topics/"):-len(".md")] for p in nav.pages
                              if p.file.src_uri.startswith("topics/") and p.file.src_uri.endswith(".md"))
    for prev, nxt in zip([None, *nav.pages[:-1]], nav.pages):
        if prev is not None:
            prev.next_page, nxt.previous_page = nxt, prev
    return nav


def _walk(items: Any) -> Any:
    from mkdocs.structure.pages import Page

    for i in items:
        if isinstance(i, Page):
            yield i
        elif getattr(i, "children", None):
            yield from _walk(i.children)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    assert _site is not None
    return _site.page_markdown(markdown, page.file.src_uri, page.url)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    assert _site is not None
    if page.file.src_uri.endswith(".ipynb"):
        # A notebook repeats its topic page's code: searching "jit_compile" should find the
        # page that explains it, not the notebook (Material's search reads this key).
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    return _site.page_content(html, page.file.src_uri)


def on_post_build(config: Any) -> None:
    assert _site is not None
    _site.post_build(Path(config["site_dir"]))


def on_post_page(output: str, page: Any, config: Any) -> str:
    return strip_remote_loaders(output)


def strip_remote_loaders(output: str) -> str:
    """Notebook pages carry nbconvert's Mermaid loader, which would import from a CDN if a
    notebook had a diagram; ours have none, and the site must not reach outside itself."""
    import re

    return re.sub(r'<script type="module">(?:(?!</script>).)*?cdnjs\.cloudflare\.com.*?</script>', "",
                  output, flags=re.DOTALL)
