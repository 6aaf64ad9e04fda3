"""Which cases cannot exist in the worker's TensorFlow, and why.

A case that cannot exist in a version is stored with status ``unavailable`` and the reason
in ``error``, never as a failure: the Keras 3 settings group before TensorFlow 2.16 (its
``tf.keras`` is Keras 2), the Keras 2 group in 2.16 and later without ``tf_keras``, a
module that is not installed (a runtime that did not install in that version's venv,
see ``tfperf.measure.env.venvs``), an attribute that a tensorflow or keras module does not
have (an API added later, or removed).

Runs in the worker: standard library only; ``tf`` is the imported module, passed in.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Final

from . import envinfo

STATUS: Final = "unavailable"
API_PACKAGES = ("tensorflow", "keras", "tf_keras")
STAMP = "tfperf-venv.json"            # written by tfperf.measure.env.venvs into each venv
_MISSING_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")


def keras_major(tf: Any) -> int | None:
    """The Keras major version behind ``tf.keras`` (None when tf.keras does not import)."""
    try:
        if envinfo.keras_is_legacy(tf):
            return 2
    except Exception:  # noqa: BLE001 - tf.keras failing to import is the answer
        return None
    version = getattr(tf.keras, "__version__", None) or envinfo.package_versions()["keras3"]
    try:
        return int(str(version).split(".", 1)[0])
    except ValueError:
        return None


def keras_group(tf: Any, settings: dict[str, str]) -> str | None:
    """Why this worker's settings group cannot exist in its TensorFlow, or None."""
    want = settings.get("keras")
    if want not in ("2", "3"):
        return None
    have = keras_major(tf)
    if str(have) == want:
        return None
    if want == "3":
        return (f"keras=3: tf.keras is Keras {have} in TensorFlow {tf.__version__} "
                "(Keras 3 is tf.keras from TensorFlow 2.16)")
    return (f"keras=2: tf.keras is not Keras 2 in TensorFlow {tf.__version__} with TF_USE_LEGACY_KERAS=1 "
            "(the tf_keras package is not installed or does not import)")


def _top(name: str | None) -> str:
    return (name or "").split(".", 1)[0]


def from_exception(exc: BaseException) -> str | None:
    """The reason a case is unavailable when setting it up raised ``exc``, or None when
    ``exc`` is a failure like any other."""
    if isinstance(exc, ImportError):
        text = f"{type(exc).__name__}: {exc}"
        why = not_installed(_top(exc.name))
        return f"{text} ({why})" if why else text
    if isinstance(exc, AttributeError):
        m = _MISSING_ATTR.search(str(exc))
        obj = getattr(exc, "obj", None)
        module = m.group(1) if m else getattr(obj, "__name__", None) if obj is not None else None
        if module and _top(module) in API_PACKAGES:
            return f"AttributeError: {exc} (an API this TensorFlow version does not have)"
    return None


def not_installed(module: str) -> str | None:
    """pip's reason, recorded in this venv's stamp, for the package of ``module`` not
    being installed (None when the stamp does not name it, or there is no stamp)."""
    if not module:
        return None
    try:
        stamp = json.loads((Path(sys.prefix) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for dist, why in (stamp.get("not_installed") or {}).items():
        if dist.replace("-", "_").lower() == module.lower():
            last = str(why).strip().splitlines()[-1:] or ["no reason recorded"]
            return f"{dist} did not install in this TensorFlow's venv: {last[0]}"
    return None
