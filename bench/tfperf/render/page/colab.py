"""The "Open in Colab" link of a topic's notebook page.

Colab opens a notebook from a GitHub repository by its address there
(``https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH``); it cannot open
one from the published site. So the link needs the repository, a branch, and the notebook
committed there: ``tfperf notebooks`` writes the topics' notebooks to ``docs/notebooks/``
(``render/page/notebooks.py``), and the site links a topic only while that copy is the page's
notebook byte for byte (``render/site/site.py``).

The repository and the branch, from the first source that names a repository:

1. ``TFPERF_REPO_URL`` (``https://github.com/OWNER/REPO``) and ``TFPERF_REPO_BRANCH``: the
   publish workflow (.github/workflows/pages.yml) passes them from its ``github`` context;
2. ``GITHUB_REPOSITORY`` (with ``GITHUB_SERVER_URL``): any GitHub Actions job has it; the
   branch is ``GITHUB_REF_NAME`` for a branch or tag, ``GITHUB_BASE_REF`` for a pull request;
3. mkdocs.yml's ``repo_url`` (MkDocs' own key);
4. ``git remote get-url origin``, when it is a GitHub address.

A branch not given by that source comes from ``extra.tfperf.colab_notebooks.branch`` in
mkdocs.yml if set, else from the checkout's current branch. With no repository or no
branch there is no link and no error. An address outside github.com (GitHub Enterprise,
another host) gives no link either, except from ``repo_url`` when mkdocs.yml also asks for
the link (``extra.tfperf.colab_notebooks``): then it is a mistake. A value that cannot make
a link is a :class:`ColabConfigError` naming where it was set and the key.

``extra.tfperf.colab_notebooks`` (optional): ``{branch: ..., path: "docs/notebooks/{topic}.ipynb"}``.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ...errors import TfperfError
from .notebooks import NOTEBOOKS_DIR

COLAB = "https://colab.research.google.com/github/"
GITHUB = re.compile(r"^https://github\.com/(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
ANY_HOST = re.compile(r"^https?://[^/\s]+/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?(?:\.git)?/?$")
GIT_REMOTE = re.compile(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)"
                        r"(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
REPOSITORY = re.compile(r"^(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)$")
KEY = "extra.tfperf.colab_notebooks"
DEFAULT_PATH = NOTEBOOKS_DIR + "/{topic}.ipynb"
ENVIRONMENT = "environment"


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
    source: str = ""     # where the repository's address came from (for the build log)

    def url(self, topic: str) -> str:
        path = self.path.replace("{topic}", topic)
        return f"{COLAB}{quote(self.owner)}/{quote(self.repo)}/blob/{quote(self.branch)}/{quote(path)}"

    def committed(self, root: Path, topic: str) -> Path:
        """Where the notebook the link opens is in this checkout."""
        return root / self.path.replace("{topic}", topic)


@dataclass(frozen=True)
class _Repo:
    owner: str
    repo: str
    branch: str | None
    source: str


def colab_config(config: Mapping[str, Any], path: str = "mkdocs.yml", env: Mapping[str, str] | None = None,
                 root: Path | None = None) -> Colab | None:
    """The Colab link's configuration, or None when no GitHub repository or no branch is
    known. ``config`` is MkDocs' configuration (read from ``path``), ``env`` the environment
    (none by default), ``root`` the checkout whose ``origin`` remote and branch may be asked
    (none by default: git is not run)."""
    env = env or {}
    where = _where(config, path)
    repo = _from_env(env) or _from_repo_url(config, path, asked=where is not None) or _from_git(root)
    if repo is None:
        return None
    branch = repo.branch or (where or {}).get("branch") or _git_branch(root)
    if not branch:
        return None
    nb_path = (where or {}).get("path") or DEFAULT_PATH
    return Colab(repo.owner, repo.repo, branch, nb_path, repo.source)


def github_repository(config: Mapping[str, Any], path: str = "mkdocs.yml", env: Mapping[str, str] | None = None,
                      root: Path | None = None) -> tuple[str, str, str] | None:
    """``(owner, repo, where it was found)`` of the GitHub repository the site is built from,
    from the same sources in the same order as the Colab link; None when none is known."""
    repo = _from_env(env or {}) or _from_repo_url(config, path, asked=False) or _from_git(root)
    return None if repo is None else (repo.owner, repo.repo, repo.source)


def _where(config: Mapping[str, Any], path: str) -> dict[str, str] | None:
    """``extra.tfperf.colab_notebooks``, checked (None when not set)."""
    extra = config.get("extra") or {}
    tfperf = extra.get("tfperf") if isinstance(extra, Mapping) else None
    where = (tfperf or {}).get("colab_notebooks") if isinstance(tfperf, Mapping) else None
    if where is None:
        return None
    if not isinstance(where, Mapping):
        raise ColabConfigError(KEY, "must be a mapping {branch: ..., path: ...}", path)
    unknown = sorted(set(where) - {"branch", "path"})
    if unknown:
        raise ColabConfigError(f"{KEY}.{unknown[0]}", "unknown key (known here: branch, path)", path)
    out: dict[str, str] = {}
    branch, nb_path = where.get("branch"), where.get("path")
    if branch is not None:
        if not isinstance(branch, str) or not branch.strip():
            raise ColabConfigError(f"{KEY}.branch", f"{branch!r} is not a branch name", path)
        out["branch"] = branch.strip()
    if nb_path is not None:
        if not isinstance(nb_path, str) or "{topic}" not in nb_path or not nb_path.endswith(".ipynb"):
            raise ColabConfigError(f"{KEY}.path", f"{nb_path!r} must be a path ending in .ipynb with {{topic}} in it",
                                   path)
        out["path"] = nb_path.strip().lstrip("/")
    return out


def _from_env(env: Mapping[str, str]) -> _Repo | None:
    url = env.get("TFPERF_REPO_URL", "").strip()
    if url:
        m = GITHUB.match(url)
        if m is None:
            if ANY_HOST.match(url):
                return None       # GitHub Enterprise or another host: Colab cannot open it
            raise ColabConfigError("TFPERF_REPO_URL", f"{url!r} is not a repository address "
                                   "(https://github.com/OWNER/REPO)", ENVIRONMENT)
        return _Repo(m.group("owner"), m.group("repo"), env.get("TFPERF_REPO_BRANCH", "").strip() or None,
                     "TFPERF_REPO_URL")
    repository = env.get("GITHUB_REPOSITORY", "").strip()
    if not repository:
        return None
    m = REPOSITORY.match(repository)
    if m is None:
        raise ColabConfigError("GITHUB_REPOSITORY", f"{repository!r} is not OWNER/REPO", ENVIRONMENT)
    if env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/") != "https://github.com":
        return None               # GitHub Enterprise: Colab opens github.com only
    ref = env.get("GITHUB_REF", "")
    if ref.startswith("refs/pull/"):
        branch = env.get("GITHUB_BASE_REF", "")       # a pull request's merge ref is no branch
    else:
        branch = env.get("GITHUB_REF_NAME", "") if not ref or ref.startswith(("refs/heads/", "refs/tags/")) else ""
    return _Repo(m.group("owner"), m.group("repo"), branch.strip() or None, "GITHUB_REPOSITORY")


def _from_repo_url(config: Mapping[str, Any], path: str, asked: bool) -> _Repo | None:
    repo_url = config.get("repo_url")
    if not repo_url:
        return None
    m = GITHUB.match(str(repo_url))
    if m is None:
        if not asked:
            return None           # a repository elsewhere, for the header link only
        raise ColabConfigError("repo_url", f"{repo_url!r} is not a GitHub repository (https://github.com/OWNER/REPO); "
                               f"Colab opens notebooks from GitHub only, so remove {KEY} or fix repo_url", path)
    return _Repo(m.group("owner"), m.group("repo"), None, f"{path} repo_url")


def _git(root: Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _from_git(root: Path | None) -> _Repo | None:
    if root is None:
        return None
    m = GIT_REMOTE.match(_git(root, "remote", "get-url", "origin"))
    return _Repo(m.group("owner"), m.group("repo"), None, "git remote origin") if m else None


def _git_branch(root: Path | None) -> str | None:
    if root is None:
        return None
    branch = _git(root, "symbolic-ref", "--quiet", "--short", "HEAD")   # empty on a detached HEAD
    return branch or None
