"""A topic's snippet as a Jupyter notebook (jupytext), for readers who run it in Jupyter or Colab."""

from __future__ import annotations

import re
from pathlib import Path

SNIPPET_MARK = re.compile(r"^\s*# --8<-- \[(start|end):[^\]]*\]\s*$\n?", re.M)


def snippet_notebook(snippet: Path, title: str, standalone: Path | None = None) -> str:
    """The notebook text (ipynb JSON) for ``snippet``. If the snippet imports the small
    ``_standalone`` timing helper, a first cell writes it next to the notebook."""
    import jupytext
    from nbformat.v4 import new_code_cell, new_markdown_cell

    source = SNIPPET_MARK.sub("", snippet.read_text(encoding="utf-8"))
    nb = jupytext.reads(source, fmt="py:light")
    cells = [new_markdown_cell(
        f"# {title}\n\n"
        f"The benchmarked code of this tfperf topic (`snippets/{snippet.name}`), as a notebook. "
        "It needs only TensorFlow (Colab has it). Running every cell prints a small comparison "
        "table for your machine; the guide's published numbers come from the tfperf harness, "
        "which times the same functions with warm-up, calibrated loops and confidence intervals.")]
    if standalone is not None and standalone.is_file() and "_standalone" in source:
        cells.append(new_code_cell("%%writefile _standalone.py\n" + standalone.read_text(encoding="utf-8")))
    nb.cells = cells + nb.cells
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nb.metadata.pop("jupytext", None)
    return str(jupytext.writes(nb, fmt="ipynb"))
