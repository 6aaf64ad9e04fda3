"""A topic's snippet as a Jupyter notebook (jupytext), for readers who run it in Jupyter or Colab.

The notebook opens with the reader's concerns: what it is and what it needs to install.
The small timing helper it imports is written by a cell whose code is out of sight (a
Colab form, hidden in Jupyter, and removed from the site's page by the ``tfperf-hide``
tag, see mkdocs.yml); the snippet's own code follows, as benchmarked.
"""

from __future__ import annotations

import re
from pathlib import Path

SNIPPET_MARK = re.compile(r"^\s*# --8<-- \[(start|end):[^\]]*\]\s*$\n?", re.MULTILINE)
HIDE_TAG = "tfperf-hide"

# Imports beyond TensorFlow a snippet may make, and the pip package each needs.
EXTRA_PACKAGES = {"tf2onnx": "tf2onnx", "onnxruntime": "onnxruntime", "ai_edge_litert": "ai-edge-litert",
                  "tf_keras": "tf-keras"}


def packages(source: str) -> list[str]:
    """The pip packages besides TensorFlow that ``source`` imports (at any indentation)."""
    found = set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)", source, re.MULTILINE))
    return sorted(EXTRA_PACKAGES[m] for m in found if m in EXTRA_PACKAGES)


def snippet_notebook(snippet: Path, title: str, standalone: Path | None = None) -> str:
    """The notebook text (ipynb JSON) for ``snippet``. If the snippet imports the small
    ``_standalone`` timing helper, a hidden cell writes it next to the notebook."""
    import jupytext
    from nbformat.v4 import new_code_cell, new_markdown_cell

    source = SNIPPET_MARK.sub("", snippet.read_text(encoding="utf-8"))
    nb = jupytext.reads(source, fmt="py:light")
    extra = packages(source)
    needs = ("TensorFlow and " + ", ".join(f"`{p}`" for p in extra) + " (the next cell installs them)"
             if extra else "only TensorFlow (Colab has it)")
    cells = [new_markdown_cell(
        f"# {title}\n\n"
        f"The benchmarked code of this tfperf topic (`snippets/{snippet.name}`), as a notebook. "
        f"It needs {needs}. Running every cell prints a small comparison "
        "table for your machine; the guide's published numbers come from the tfperf harness, "
        "which times the same functions with warm-up, calibrated loops and confidence intervals.")]
    if extra:
        cells.append(new_code_cell("%pip install -q " + " ".join(extra)))
    if standalone is not None and standalone.is_file() and "_standalone" in source:
        # %%writefile must be the cell's first line, so the cell says what it is in a
        # markdown cell of its own.
        cells.append(new_markdown_cell("The next cell writes the small timing helper the code below "
                                       "imports; run it as it is (its code is folded away)."))
        helper = new_code_cell("%%writefile _standalone.py\n" + standalone.read_text(encoding="utf-8"))
        helper.metadata.update({"tags": [HIDE_TAG], "cellView": "form", "jupyter": {"source_hidden": True}})
        cells.append(helper)
    nb.cells = cells + nb.cells
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nb.metadata.pop("jupytext", None)
    return str(jupytext.writes(nb, fmt="ipynb"))
