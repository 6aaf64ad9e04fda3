"""The "Open in Colab" link of a topic's notebook page.

Colab opens a notebook from a GitHub repository by its address there
(``https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH``); it cannot open
one from the published site. The site build has no network, so the link is only a URL
made from the configuration in mkdocs.yml, and nothing is derived when it is absent:

* ``repo_url`` (MkDocs' own key): the GitHub repository, ``https://github.com/OWNER/REPO``;
* ``extra.tfperf.colab_notebooks``: where the topics' notebooks are committed in it, a
  branch and a path with ``{topic}``, e.g. ``{branch: main, path: "notebooks/{topic}.ipynb"}``.
  The notebooks are made at build time (``render/notebooks.py``), so whoever sets this
  also commits them there.

Without both, notebook pages have no Colab link. A value that cannot make a link (an
address outside GitHub, a path without ``{topic}``) is a :class:`ColabConfigError` naming
mkdocs.yml and the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..errors import TfperfError

COLAB = "https://colab.research.google.com/github/"
GITHUB = re.compile(r"^https://github\.com/(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
KEY = "extra.tfperf.colab_notebooks"


class ColabConfigError(TfperfError):
    def __init__(self, field: str, problem: str, path: str = "mkdocs.yml") -> None:
        self.path, self.field, self.problem = path, field, problem
        super().__init__(f"{path}: {field}: {problem}")


@dataclass(frozen=True)
class Colab:
    owner: str
    repo: str
    branch: str
    path: str            # with {topic}

    def url(self, topic: str) -> str:
        path = self.path.replace("{topic}", topic)
        return f"{COLAB}{quote(self.owner)}/{quote(self.repo)}/blob/{quote(self.branch)}/{quote(path)}"


def colab_config(config: Mapping[str, Any], path: str = "mkdocs.yml") -> Colab | None:
    """The Colab link's configuration from MkDocs' ``config``, or None when ``repo_url`` or
    ``extra.tfperf.colab_notebooks`` is not set."""
    extra = config.get("extra") or {}
    tfperf = extra.get("tfperf") if isinstance(extra, Mapping) else None
    where = (tfperf or {}).get("colab_notebooks") if isinstance(tfperf, Mapping) else None
    repo_url = config.get("repo_url")
    if not where or not repo_url:
        return None
    m = GITHUB.match(str(repo_url))
    if m is None:
        raise ColabConfigError("repo_url", f"{repo_url!r} is not a GitHub repository (https://github.com/OWNER/REPO); "
                               f"Colab opens notebooks from GitHub only, so remove {KEY} or fix repo_url", path)
    if not isinstance(where, Mapping):
        raise ColabConfigError(KEY, "must be a mapping {branch: ..., path: ...}", path)
    unknown = sorted(set(where) - {"branch", "path"})
    if unknown:
        raise ColabConfigError(f"{KEY}.{unknown[0]}", "unknown key (known here: branch, path)", path)
    branch, nb_path = where.get("branch"), where.get("path")
    if not isinstance(branch, str) or not branch.strip():
        raise ColabConfigError(f"{KEY}.branch", "missing (the branch the notebooks are committed on)", path)
    if not isinstance(nb_path, str) or "{topic}" not in nb_path or not nb_path.endswith(".ipynb"):
        raise ColabConfigError(f"{KEY}.path", f"{nb_path!r} must be a path ending in .ipynb with {{topic}} in it", path)
    return Colab(m.group("owner"), m.group("repo"), branch.strip(), nb_path.strip().lstrip("/"))
