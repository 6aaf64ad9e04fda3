"""The snippets' standalone helper names the Keras that ``tf.keras`` is, in every
TensorFlow from 2.12 on (no TensorFlow needed: the three module layouts are faked)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from _standalone import keras_label


def _package(name: str, version: str | None) -> types.ModuleType:
    module = types.ModuleType(name)
    if version is not None:
        module.__version__ = version  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize(("top", "version", "served_as", "label"), [
    ("keras", "3.15.1", "keras._tf_keras.keras", "Keras 3.15.1"),                # TF >= 2.16, the default
    ("tf_keras", "2.16.0", "tf_keras.api._v2.keras", "Keras 2.16.0 (tf_keras)"),  # TF_USE_LEGACY_KERAS=1
    ("keras", "2.12.0", "keras.api._v2.keras", "Keras 2.12.0"),                  # built into TF <= 2.15
])
def test_keras_label_reads_the_package_tf_keras_comes_from(
        monkeypatch: pytest.MonkeyPatch, top: str, version: str, served_as: str, label: str) -> None:
    monkeypatch.setitem(sys.modules, top, _package(top, version))
    served = _package(served_as, None)  # tf_keras' and TF 2.15's tf.keras have no __version__
    assert keras_label(served) == label
