"""What the environment record says about Keras (no TensorFlow: stand-in modules; the
real names are checked by the TensorFlow integration test)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tfperf.measure.envinfo import keras_is_legacy


@pytest.mark.parametrize("name, legacy", [
    ("keras._tf_keras.keras", False),        # Keras 3 serving tf.keras: "tf_keras" is inside the name
    ("keras.api._v2.keras", False),
    ("tf_keras.api._v2.keras", True),        # TF_USE_LEGACY_KERAS=1
    ("tf_keras", True),
])
def test_keras_3_is_not_mistaken_for_tf_keras(name: str, legacy: bool) -> None:
    tf = SimpleNamespace(keras=SimpleNamespace(__name__=name))
    assert keras_is_legacy(tf) is legacy


@pytest.mark.tf
@pytest.mark.parametrize("legacy", ["0", "1"])
def test_real_tf_keras_is_told_apart(legacy: str) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = "import tensorflow as tf; from tfperf.measure.envinfo import keras_is_legacy; print(keras_is_legacy(tf))"
    env = {**os.environ, "TF_USE_LEGACY_KERAS": legacy, "TF_CPP_MIN_LOG_LEVEL": "3",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "bench")}
    out = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == ("True" if legacy == "1" else "False"), out.stderr[-2000:]


def test_the_commit_is_the_harness_checkouts_not_the_current_directorys(tmp_path, monkeypatch) -> None:
    """The committed history was measured from a worktree while the shell sat in another
    checkout, and recorded that checkout's commit."""
    import subprocess
    from pathlib import Path

    from tfperf.measure import envinfo
    here = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=Path(envinfo.__file__).parent,
                          capture_output=True, text=True).stdout.strip()
    monkeypatch.chdir(tmp_path)                       # not a git checkout
    assert envinfo.git_commit() == (here or None)
