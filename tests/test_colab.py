"""The "Open in Colab" link of the notebook pages: a URL made from mkdocs.yml's
``repo_url`` and ``extra.tfperf.colab_notebooks`` (render/colab.py), nothing without them,
and a clear error for a value that cannot make a link. No TensorFlow, no network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tfperf.render.colab import Colab, ColabConfigError, colab_config
from tfperf.render.site import Site

ROOT = Path(__file__).resolve().parents[1]
WHERE = {"branch": "main", "path": "notebooks/{topic}.ipynb"}


def _config(repo_url: Any = "https://github.com/someone/tfperf", where: Any = WHERE) -> dict[str, Any]:
    return {"repo_url": repo_url, "extra": {"tfperf": {"colab_notebooks": where}}}


def test_the_link_opens_the_notebook_of_the_repository_in_colab() -> None:
    c = colab_config(_config())
    assert c is not None
    assert c.url("xla_jit") == "https://colab.research.google.com/github/someone/tfperf/blob/main/notebooks/xla_jit.ipynb"
    assert colab_config(_config("https://github.com/someone/tfperf.git/")) == c


@pytest.mark.parametrize("config", [
    {},
    {"repo_url": "https://github.com/someone/tfperf"},                 # where the notebooks are: not said
    {"extra": {"tfperf": {"colab_notebooks": WHERE}}},                  # no repository
    {"repo_url": None, "extra": {"generator": False}},
])
def test_without_repo_url_and_notebook_place_there_is_no_link(config: dict[str, Any]) -> None:
    assert colab_config(config) is None


@pytest.mark.parametrize("config, field", [
    (_config("https://gitlab.com/someone/tfperf"), "repo_url"),
    (_config(where={"branch": "main", "path": "notebooks/all.ipynb"}), "extra.tfperf.colab_notebooks.path"),
    (_config(where={"path": "notebooks/{topic}.ipynb"}), "extra.tfperf.colab_notebooks.branch"),
    (_config(where={**WHERE, "brnach": "x"}), "extra.tfperf.colab_notebooks.brnach"),
    (_config(where="notebooks/{topic}.ipynb"), "extra.tfperf.colab_notebooks"),
])
def test_a_value_that_cannot_make_a_link_names_mkdocs_yml_and_the_key(config: dict[str, Any], field: str) -> None:
    with pytest.raises(ColabConfigError) as err:
        colab_config(config)
    assert err.value.path == "mkdocs.yml" and err.value.field == field


def test_the_projects_mkdocs_yml_configures_no_link_yet() -> None:
    """No repository address is configured: the pages carry no Colab link (README/mkdocs.yml
    say how to add one)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert colab_config(config) is None


def _site(tmp_path: Path, colab: Colab | None) -> Site:
    site = Site(tmp_path, tmp_path / "none", tmp_path / "snippets", tmp_path / "cache", colab=colab)
    site.notebooks = {"xla_jit": "notebooks/xla_jit/"}
    return site


def test_a_notebook_page_gets_the_link_under_its_title(tmp_path: Path) -> None:
    colab = colab_config(_config())
    page = '<h1 id="x">XLA</h1><p>The benchmarked code</p>'
    out = _site(tmp_path, colab).page_content(page, "notebooks/xla_jit.ipynb")
    assert out.startswith('<h1 id="x">XLA</h1><p class="tfperf-colab"><a href="https://colab.research.google.com/'
                          'github/someone/tfperf/blob/main/notebooks/xla_jit.ipynb" rel="noopener">Open in Colab</a>')
    # Other pages, unknown notebooks and a site without the configuration: unchanged.
    assert _site(tmp_path, colab).page_content(page, "topics/xla_jit.md") == page
    assert _site(tmp_path, colab).page_content(page, "notebooks/other.ipynb") == page
    assert _site(tmp_path, None).page_content(page, "notebooks/xla_jit.ipynb") == page
