"""MkDocs hook (``hooks:`` in mkdocs.yml): the site's address, each page's description, the
notebook pages' titles and what search leaves out (:mod:`tfperf.render.site.page_meta`)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

try:
    import tfperf  # noqa: F401
except ImportError:  # building from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from mkdocs.plugins import event_priority

from tfperf.render.site.page_meta import default_site_url, description, exclude_from_search, notebook_title

log = logging.getLogger("mkdocs.hooks.tfperf.page_meta")


def on_config(config: Any) -> Any:
    if not config["site_url"]:
        root = Path(config["config_file_path"]).resolve().parent
        url, source = default_site_url(config, str(config["config_file_path"]), env=os.environ, root=root)
        config["site_url"] = url
        log.info("tfperf: site_url %s (%s)", url, source)
    return config


@event_priority(-50)  # after the other hooks have put the tables and charts into the page
def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    if not page.meta.get("description") and not page.is_homepage:   # the home page: site_description
        text = description(html)
        if text:
            page.meta["description"] = text
    return exclude_from_search(html)


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    src = page.file.src_uri
    if src.startswith("notebooks/") and src.endswith(".ipynb") and not page.meta.get("title"):
        topic = next((p for p in nav.pages if p.file.src_uri == f"topics/{src[len('notebooks/'):-len('.ipynb')]}.md"),
                     None)
        title = topic.title if topic is not None and topic.title else page.title
        if title:
            page.meta["title"] = notebook_title(title)
    return context
