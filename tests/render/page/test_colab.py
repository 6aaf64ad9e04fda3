"""The "Open in Colab" link of the notebook pages (render/page/notebooks.py): the repository from the
publish workflow's TFPERF_REPO_URL, any Actions job's GITHUB_REPOSITORY, mkdocs.yml's
repo_url or the origin remote; no link (and no error) when none is known; a clear error for
a value that cannot make a link; and a link only to a committed notebook that is the page's
own. No TensorFlow, no network."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfperf.render.page.notebooks import NOTEBOOKS_DIR, Colab, ColabConfigError, colab_config, write_notebooks
from tfperf.render.site.site import Site

ROOT = Path(__file__).resolve().parents[3]
WHERE = {"branch": "main", "path": "notebooks/{topic}.ipynb"}
COLAB = "https://colab.research.google.com/github/"
ACTIONS = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "someone/tfperf",
           "GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"}


def _config(repo_url: Any = "https://github.com/someone/tfperf", where: Any = WHERE) -> dict[str, Any]:
    return {"repo_url": repo_url, "extra": {"tfperf": {"colab_notebooks": where}}}


# -- where the address comes from -------------------------------------------------------------

def test_the_link_opens_the_committed_notebook_in_colab() -> None:
    c = colab_config(_config())
    assert c is not None
    assert c.url("xla_jit") == f"{COLAB}someone/tfperf/blob/main/notebooks/xla_jit.ipynb"
    assert colab_config(_config("https://github.com/someone/tfperf.git/")) == c


def test_on_actions_the_repository_and_branch_come_from_the_environment() -> None:
    c = colab_config({}, env=ACTIONS)
    assert c is not None and c.source == "GITHUB_REPOSITORY"
    assert c.url("xla_jit") == f"{COLAB}someone/tfperf/blob/main/{NOTEBOOKS_DIR}/xla_jit.ipynb"
    tag = colab_config({}, env={**ACTIONS, "GITHUB_REF": "refs/tags/v1.0", "GITHUB_REF_NAME": "v1.0"})
    assert tag is not None and tag.branch == "v1.0"
    # A pull request's merge ref is no branch a reader can open: its base branch is.
    pr = colab_config({}, env={**ACTIONS, "GITHUB_REF": "refs/pull/7/merge", "GITHUB_REF_NAME": "7/merge",
                               "GITHUB_BASE_REF": "main"})
    assert pr is not None and pr.branch == "main"
    # The publish workflow's own variables come first, and mkdocs.yml's branch is a fallback only.
    ours = colab_config(_config("https://github.com/elsewhere/x", {"branch": "gh-pages"}),
                        env={**ACTIONS, "TFPERF_REPO_URL": "https://github.com/owner/repo",
                             "TFPERF_REPO_BRANCH": "trunk"})
    assert ours is not None and ours.url("t") == f"{COLAB}owner/repo/blob/trunk/{NOTEBOOKS_DIR}/t.ipynb"
    assert ours.source == "TFPERF_REPO_URL"


def test_without_a_known_repository_or_branch_there_is_no_link() -> None:
    assert colab_config({}) is None
    assert colab_config({}, env={"HOME": "/root"}) is None
    assert colab_config({"repo_url": None, "extra": {"generator": False}}) is None
    assert colab_config({"extra": {"tfperf": {"colab_notebooks": WHERE}}}) is None      # where, but no repository
    assert colab_config({"repo_url": "https://github.com/someone/tfperf"}) is None      # no branch known
    assert colab_config({"repo_url": "https://gitlab.com/someone/tfperf"}) is None      # a header link, elsewhere
    # GitHub Enterprise: Colab opens github.com only.
    assert colab_config({}, env={**ACTIONS, "GITHUB_SERVER_URL": "https://ghe.example.com"}) is None
    assert colab_config({}, env={"TFPERF_REPO_URL": "https://ghe.example.com/o/r"}) is None


@pytest.mark.parametrize("config, env, path, field", [
    (_config("https://gitlab.com/someone/tfperf"), {}, "mkdocs.yml", "repo_url"),
    (_config(where={"branch": "main", "path": "notebooks/all.ipynb"}), {}, "mkdocs.yml",
     "extra.tfperf.colab_notebooks.path"),
    (_config(where={"branch": "", "path": "notebooks/{topic}.ipynb"}), {}, "mkdocs.yml",
     "extra.tfperf.colab_notebooks.branch"),
    (_config(where={**WHERE, "brnach": "x"}), {}, "mkdocs.yml", "extra.tfperf.colab_notebooks.brnach"),
    (_config(where="notebooks/{topic}.ipynb"), {}, "mkdocs.yml", "extra.tfperf.colab_notebooks"),
    ({}, {"GITHUB_REPOSITORY": "just-a-name"}, "environment", "GITHUB_REPOSITORY"),
    ({}, {"TFPERF_REPO_URL": "github.com/o/r"}, "environment", "TFPERF_REPO_URL"),
])
def test_a_value_that_cannot_make_a_link_names_where_it_is_set_and_the_key(
        config: dict[str, Any], env: dict[str, str], path: str, field: str) -> None:
    with pytest.raises(ColabConfigError) as err:
        colab_config(config, env=env)
    assert err.value.path == path and err.value.field == field
    assert str(err.value).startswith(f"{path}: {field}: ")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.parametrize("remote, linked", [
    ("git@github.com:someone/tfperf.git", True),
    ("https://github.com/someone/tfperf", True),
    ("ssh://git@github.com/someone/tfperf.git", True),
    ("https://gitlab.com/someone/tfperf.git", False),
    ("/srv/git/tfperf.git", False),
])
def test_a_checkout_with_a_github_origin_links_to_it_at_its_branch(tmp_path: Path, remote: str, linked: bool) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(tmp_path, "init", "-q", "-b", "trunk")
    _git(tmp_path, "remote", "add", "origin", remote)
    c = colab_config({}, root=tmp_path)
    if linked:
        assert c is not None and c.source == "git remote origin"
        assert c.url("x") == f"{COLAB}someone/tfperf/blob/trunk/{NOTEBOOKS_DIR}/x.ipynb"
    else:
        assert c is None
    # No checkout at all: no link, no error.
    assert colab_config({}, root=tmp_path / "not-a-checkout") is None


def test_the_projects_mkdocs_yml_names_no_repository() -> None:
    """No address is committed: the link comes from where the site is built (the publish
    workflow, or the origin remote of a checkout)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "repo_url" not in config
    assert colab_config(config) is None


def test_the_publish_workflow_passes_the_repository_and_branch_to_the_build() -> None:
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    build = next(s for s in wf["jobs"]["build"]["steps"] if "build-site.sh" in str(s.get("run", "")))
    assert build["env"]["TFPERF_REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    assert build["env"]["TFPERF_REPO_BRANCH"] == "${{ github.ref_name }}"
    # It publishes from pushes to main (a branch, so ref_name is the branch the notebooks are on).
    assert wf[True]["push"]["branches"] == ["main"]          # PyYAML reads the key `on` as True


# -- the link on the page ---------------------------------------------------------------------

def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A project root with the snippets and their committed notebooks."""
    snippets = tmp_path / "snippets"
    shutil.copytree(ROOT / "snippets", snippets, ignore=shutil.ignore_patterns("__pycache__"))
    write_notebooks(snippets, tmp_path / NOTEBOOKS_DIR)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    return tmp_path, snippets


def _built_site(root: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Site:
    for var in ("TFPERF_REPO_URL", "TFPERF_REPO_BRANCH", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL", "GITHUB_REF",
                "GITHUB_REF_NAME", "GITHUB_BASE_REF"):
        monkeypatch.delenv(var, raising=False)
    for k, v in {"TFPERF_RESULTS": str(root / "no-results"), "TFPERF_SNIPPETS": str(root / "snippets"),
                 "TFPERF_CACHE": str(root / "cache"), "TFPERF_LOCAL": "", **env}.items():
        monkeypatch.setenv(k, v)
    site = Site.from_config({"config_file_path": str(root / "mkdocs.yml")})
    site.prepare()
    return site


PAGE = '<h1 id="x">XLA</h1><p>The benchmarked code</p>'


def test_a_notebook_page_gets_the_link_under_its_title_with_the_env_vars_set(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _project(tmp_path)
    site = _built_site(root, {"GITHUB_REPOSITORY": "example/tfperf", "GITHUB_REF_NAME": "main"}, monkeypatch)
    assert site.colab_topics == set(site.notebooks) and "xla_jit" in site.notebooks
    out = site.page_content(PAGE, "notebooks/xla_jit.ipynb")
    assert out.startswith(f'<h1 id="x">XLA</h1><p class="tfperf-colab"><a href="{COLAB}example/tfperf/blob/main/'
                          f'{NOTEBOOKS_DIR}/xla_jit.ipynb" rel="noopener">Open in Colab</a></p>')
    assert site.page_content(PAGE, "topics/xla_jit.md") == PAGE           # other pages: unchanged
    assert site.page_content(PAGE, "notebooks/other.ipynb") == PAGE       # no such notebook


def test_without_the_env_vars_there_is_no_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _project(tmp_path)                                           # not a git checkout either
    site = _built_site(root, {}, monkeypatch)
    assert site.colab is None and site.colab_topics == set()
    assert site.page_content(PAGE, "notebooks/xla_jit.ipynb") == PAGE


def test_a_stale_or_missing_committed_notebook_gets_no_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The link must open the notebook the page shows: a snippet edited without `tfperf
    notebooks` loses its link (and fails tests/render/page/test_notebooks_committed.py in CI)."""
    root, snippets = _project(tmp_path)
    xla = snippets / "xla_jit.py"
    xla.write_text(xla.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    (root / NOTEBOOKS_DIR / "train_step.ipynb").unlink()
    site = _built_site(root, {"GITHUB_REPOSITORY": "example/tfperf", "GITHUB_REF_NAME": "main"}, monkeypatch)
    assert {"xla_jit", "train_step"} & site.colab_topics == set()
    assert site.colab_topics == set(site.notebooks) - {"xla_jit", "train_step"}
    assert site.page_content(PAGE, "notebooks/xla_jit.ipynb") == PAGE
    assert "Open in Colab" in site.page_content(PAGE, "notebooks/predict_vs_call.ipynb")


def test_the_topic_pages_notebook_line_opens_it_in_colab_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _project(tmp_path)
    md = "<!-- tfperf:notebook xla_jit -->\n"
    site = _built_site(root, {"GITHUB_REPOSITORY": "example/tfperf", "GITHUB_REF_NAME": "main"}, monkeypatch)
    page = site.page_content(site.page_markdown(md, "topics/xla_jit.md", "topics/xla_jit/"), "topics/xla_jit.md")
    assert (f'download xla_jit.ipynb</a> · <a href="{COLAB}example/tfperf/blob/main/{NOTEBOOKS_DIR}/xla_jit.ipynb" '
            'rel="noopener">open in Colab</a>') in page
    site = _built_site(root, {}, monkeypatch)
    page = site.page_content(site.page_markdown(md, "topics/xla_jit.md", "topics/xla_jit/"), "topics/xla_jit.md")
    assert "download xla_jit.ipynb</a> (Jupyter or Colab" in page and "colab.research" not in page


def test_site_without_colab_configuration_is_unchanged(tmp_path: Path) -> None:
    site = Site(tmp_path, tmp_path / "none", tmp_path / "snippets", tmp_path / "cache",
                colab=Colab("someone", "tfperf", "main", "notebooks/{topic}.ipynb"))
    site.notebooks = {"xla_jit": "notebooks/xla_jit/"}                     # not prepared: nothing checked
    assert site.page_content(PAGE, "notebooks/xla_jit.ipynb") == PAGE
