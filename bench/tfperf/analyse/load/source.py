"""Where the analysis gets its documents: the results files of a data root.

A data root (``data/results``) holds one file per runner and profile,
``<root>/<runner>/<profile>.json``; only regular files there are read, through the store's
loader (limits, migration, validation). Anything else a reader could take for a results
file (a symbolic link, a folder or FIFO named ``*.json``, a file at another depth) and
every file that cannot be used becomes a :class:`ResultsFileError` in the error list,
naming the path and what it is; the other files still load.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import ResultsFileError
from ...store import load_dir
from ...store.record_types import ResultsDoc

Loaded = tuple[list[tuple[Path, ResultsDoc]], list[ResultsFileError]]


def load_results(root: str | Path) -> Loaded:
    """All results documents under ``root`` (e.g. ``data/results``) with the errors met."""
    root = Path(root)
    if not root.is_dir():
        return [], []
    return load_dir(root, layout=True)
