"""MkDocs hook (``hooks:`` in mkdocs.yml): fills ``<!-- faults:table -->`` on the "Faults we
test" page with the table generated from the fault tests (:mod:`tfperf.render.site.faults`).
A cited test that is missing is logged as an error, which fails ``mkdocs build --strict``."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

try:
    import tfperf  # noqa: F401
except ImportError:  # building from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tfperf.render.site.faults import FaultsError, fill

log = logging.getLogger("mkdocs.hooks.tfperf.faults")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    root = Path(config["config_file_path"]).resolve().parent
    try:
        return fill(markdown, root)
    except FaultsError as exc:
        log.error("tfperf: %s: %s", page.file.src_uri, exc)
        return markdown
