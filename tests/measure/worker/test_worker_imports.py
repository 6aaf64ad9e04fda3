"""The worker may run in another TensorFlow version's venv (``tfperf run --tf``), which has
numpy and TensorFlow, and of the project's other packages only the harness's own
(``venvs.HARNESS_IMPORTS``: psutil, installed there at the version beside tfperf): importing
``tfperf.measure.worker.serve`` must need nothing else, and must not import TensorFlow itself."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"

CHECK = textwrap.dedent("""
    import sys

    HARNESS = set(sys.argv[1].split(","))
    ALLOWED = {"numpy", "tensorflow", "keras", "tf_keras", "tfperf", *HARNESS}

    class RefuseThirdParty:
        def find_spec(self, name, path=None, target=None):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in ALLOWED:
                return None
            raise ImportError(f"the worker imports {name!r}, which a TensorFlow venv does not have")

    sys.meta_path.insert(0, RefuseThirdParty())
    import tfperf.measure.worker.serve
    tf = sorted(m for m in sys.modules if m.split(".")[0] in {"tensorflow", "keras", "tf_keras"})
    assert not tf, f"importing the worker imported {tf}"
    print("imports ok")
""")


def test_worker_imports_only_stdlib_numpy_and_tensorflow() -> None:
    env = {**os.environ, "PYTHONPATH": str(BENCH)}
    from tfperf.measure.venvs import HARNESS_IMPORTS

    done = subprocess.run([sys.executable, "-c", CHECK, ",".join(HARNESS_IMPORTS)], check=False, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "imports ok" in done.stdout


def test_the_check_refuses_a_third_party_import() -> None:
    """The hook itself works: yaml (installed here) is refused."""
    env = {**os.environ, "PYTHONPATH": str(BENCH)}
    code = CHECK.replace("import tfperf.measure.worker.serve", "import yaml")
    done = subprocess.run([sys.executable, "-c", code, "psutil"], check=False, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "the worker imports 'yaml'" in done.stderr
