"""A topic's snippet as a Jupyter notebook (jupytext), for readers who run it in Jupyter or Colab.

The notebook opens with the reader's concerns: what it is and what it needs to install.
The small timing helper it imports is written by a cell whose code is out of sight (a
Colab form, hidden in Jupyter, and removed from the site's page by the ``tfperf-hide``
tag, see mkdocs.yml); the snippet's own code follows, as benchmarked.

The same text is the site's notebook page (made at build time, ``render/site/site.py``) and the
copy committed in ``docs/notebooks/`` that the "Open in Colab" link opens (Colab reads
notebooks from GitHub only). ``tfperf notebooks`` writes the copies and ``tfperf notebooks
--check`` finds stale ones; so the text is a function of the snippet alone, byte for byte:
cell ids come from the cells' content (nbformat would draw random ones), and nothing of
the machine, the time or the jupytext version is written.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

SNIPPET_MARK = re.compile(r"^\s*# --8<-- \[(start|end):[^\]]*\]\s*$\n?", re.MULTILINE)
HIDE_TAG = "tfperf-hide"
NOTEBOOKS_DIR = "docs/notebooks"          # the committed copies, relative to the project root
STANDALONE = "_standalone.py"             # the timing helper, beside the snippets

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
    _stable_ids(nb.cells)
    return str(jupytext.writes(nb, fmt="ipynb")).rstrip("\n") + "\n"


def topic_notebook(snippet: Path, title: str) -> str:
    """The notebook of the topic whose snippet is ``snippet`` (the timing helper beside it):
    what the site build shows and what ``tfperf notebooks`` commits."""
    return snippet_notebook(snippet, title, snippet.with_name(STANDALONE))


def _stable_ids(cells: list[Any]) -> None:
    """Cell ids from each cell's type and source (unique within the notebook), so the same
    snippet always gives the same bytes and an edit changes only the cells it touches."""
    seen: set[str] = set()
    for cell in cells:
        base = hashlib.sha256(f"{cell.cell_type}\0{cell.source}".encode()).hexdigest()[:8]
        cid, n = base, 1
        while cid in seen:
            n += 1
            cid = f"{base}-{n}"
        seen.add(cid)
        cell["id"] = cid


def project_notebooks(snippets_dir: Path) -> dict[str, str]:
    """Topic -> notebook text, for every topic YAML in ``snippets_dir`` with a snippet beside
    it, read as the site build reads them (a broken YAML raises its error, naming file and field)."""
    from ...analyse import load_topics

    topics, errors = load_topics(snippets_dir)
    if errors:
        raise errors[0]
    out: dict[str, str] = {}
    for name, info in sorted(topics.items()):
        snippet = info.path.with_suffix(".py")
        if snippet.is_file():
            out[name] = topic_notebook(snippet, info.title)
    return out


def same_text(path: Path, text: str) -> bool:
    """Whether the file at ``path`` holds ``text`` (a CRLF checkout counts as the same)."""
    return path.is_file() and path.read_bytes().replace(b"\r\n", b"\n") == text.encode("utf-8")


def stale_notebooks(snippets_dir: Path, out_dir: Path) -> list[str]:
    """What is wrong with the committed notebooks in ``out_dir``, one line each (empty: all
    up to date): a topic's notebook missing or out of date, a notebook of no topic."""
    want = project_notebooks(snippets_dir)
    problems = []
    for topic, text in want.items():
        path = out_dir / f"{topic}.ipynb"
        if not path.is_file():
            problems.append(f"{path}: missing (the notebook of {snippets_dir / topic}.py)")
        elif not same_text(path, text):
            problems.append(f"{path}: out of date with {snippets_dir / topic}.py")
    problems += [f"{p}: no topic {p.stem!r} in {snippets_dir}" for p in sorted(out_dir.glob("*.ipynb"))
                 if p.stem not in want]
    return problems


def write_notebooks(snippets_dir: Path, out_dir: Path) -> tuple[list[Path], list[Path]]:
    """Write every topic's notebook into ``out_dir`` and remove those of no topic. Returns
    the files written (new or changed) and the files removed; unchanged files are not touched."""
    want = project_notebooks(snippets_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for topic, text in want.items():
        path = out_dir / f"{topic}.ipynb"
        if not same_text(path, text):
            path.write_bytes(text.encode("utf-8"))
            written.append(path)
    removed = [p for p in sorted(out_dir.glob("*.ipynb")) if p.stem not in want]
    for p in removed:
        p.unlink()
    return written, removed
