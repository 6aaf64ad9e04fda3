"""A topic's snippet as a Jupyter notebook (jupytext), for readers who run it in Jupyter or
Colab, and the "Open in Colab" link of its notebook page.

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

The "Open in Colab" link. Colab opens a notebook from a GitHub repository by its address there
(``https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH``); it cannot open
one from the published site. So the link needs the repository, a branch, and the notebook
committed there: ``tfperf notebooks`` writes the topics' notebooks to ``docs/notebooks/``
(above), and the site links a topic only while that copy is the page's
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

import hashlib
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ...errors import TfperfError

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


# -- the "Open in Colab" link -------------------------------------------------------------

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
