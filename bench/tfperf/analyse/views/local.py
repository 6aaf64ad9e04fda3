"""This machine's own results beside the published ones: the analysis behind the site's
"this machine" sections.

The site reads two results roots: the published one (``data/results``: every verdict,
count, table and chart line of the guide) and, when it exists, a local one
(``local/results``, written by ``scripts/main``; git-ignored). The local files never
enter the published :class:`~tfperf.analyse.Dataset`; each is compared with the
published runners exactly as ``tfperf compare`` does (:func:`.versus.compare_files`),
and the pages show that comparison in a section of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...errors import TfperfError
from ..judge.ratios import RatioCache
from .versus import Versus, compare_files

LOCAL_ROOT = "local/results"     # relative to the checkout (mkdocs.yml's folder)


@dataclass
class ThisMachine:
    """Every local results file, each compared with the published runners."""

    root: str                    # as the reader should see it (e.g. "local/results"), never absolute
    views: list[Versus] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)   # local files that could not be used

    def __bool__(self) -> bool:
        return bool(self.views or self.errors)

    def topic_views(self, topic: str) -> list[Versus]:
        return [v for v in self.views if any(m.topic == topic for m in v.here.measurements)]

    def file_of(self, v: Versus) -> str:
        """The local file of one view, below the root as shown ("local/results/<runner>/quick.json")."""
        return "/".join([self.root.rstrip("/"), *Path(v.here.path).parts[-2:]])


def local_files(root: str | Path) -> list[Path]:
    """The results files under a local root (``<root>/<runner>/<profile>.json``)."""
    root = Path(root)
    return sorted(p for p in root.glob("*/*.json") if p.is_file()) if root.is_dir() else []


def this_machine(local_root: str | Path, published_root: str | Path, snippets_dir: str | Path,
                 cache: RatioCache | None = None, shown_as: str | None = None) -> ThisMachine:
    """Compare each local results file with every published one. A local file that cannot
    be read is named in ``errors``; the published data is never touched. ``shown_as`` is
    the root as pages name it (default: ``local_root`` as given)."""
    out = ThisMachine(root=shown_as or str(local_root))
    for path in local_files(local_root):
        try:
            out.views.append(compare_files(path, published_root, snippets_dir, cache=cache))
        except TfperfError as exc:
            out.errors.append(str(exc))
    return out


__all__ = ["LOCAL_ROOT", "ThisMachine", "local_files", "this_machine"]
