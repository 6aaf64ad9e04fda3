"""The topics' notebooks: the reader's code first, the packages they need, the timing
helper out of sight (no TensorFlow; jupytext only)."""

from __future__ import annotations

import json
from pathlib import Path

from tfperf.render.page.notebooks import HIDE_TAG, packages, snippet_notebook

SNIPPETS = Path(__file__).resolve().parents[3] / "snippets"


def test_a_notebook_names_and_installs_what_its_snippet_imports_beyond_tensorflow() -> None:
    serving = (SNIPPETS / "serving_formats.py").read_text(encoding="utf-8")
    assert packages(serving) == ["ai-edge-litert", "onnxruntime", "tf2onnx"]
    assert packages((SNIPPETS / "xla_jit.py").read_text(encoding="utf-8")) == []
    nb = json.loads(snippet_notebook(SNIPPETS / "serving_formats.py", "Serving", SNIPPETS / "_standalone.py"))
    intro, install = nb["cells"][0], nb["cells"][1]
    assert "`onnxruntime`" in "".join(intro["source"]) and "only TensorFlow" not in "".join(intro["source"])
    assert "".join(install["source"]) == "%pip install -q ai-edge-litert onnxruntime tf2onnx"


def test_the_timing_helper_is_out_of_sight_and_still_runs_first() -> None:
    nb = json.loads(snippet_notebook(SNIPPETS / "xla_jit.py", "XLA", SNIPPETS / "_standalone.py"))
    assert "only TensorFlow" in "".join(nb["cells"][0]["source"])
    helper = next(c for c in nb["cells"] if "".join(c["source"]).startswith("%%writefile _standalone.py"))
    assert HIDE_TAG in helper["metadata"]["tags"]                    # removed from the site's page
    assert helper["metadata"]["cellView"] == "form"                  # folded in Colab
    assert helper["metadata"]["jupyter"]["source_hidden"] is True    # folded in Jupyter
    first_import = next(i for i, c in enumerate(nb["cells"]) if "_standalone" in "".join(c["source"])
                        and c["cell_type"] == "code" and c is not helper)
    assert nb["cells"].index(helper) < first_import
