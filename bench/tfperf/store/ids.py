"""Stable identifiers: a case's id and its parts, the hash of a result's key and of an
environment record.

The one definition of each: the harness names results with these (``cases.Case``) and the
analysis groups and pairs results by them (``analyse.load.records``), so a second copy that
drifted (an empty parameter set written "" in one and "-" in the other) would make the
analysis miss results that are there.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ..arrival import Pattern, suffix


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def key_hash(key: Mapping[str, object]) -> str:
    """16 hex digits identifying a result's complete key (snippet hash, harness
    version, TensorFlow and Keras versions, settings, runner)."""
    return _digest(key)


def env_id(env: Mapping[str, object]) -> str:
    """16 hex digits identifying an environment record, ignoring when it was taken."""
    return _digest({k: v for k, v in env.items() if k != "time"})


def params_id(params: Mapping[str, object]) -> str:
    """"batch=1,model=tiny": the parameters sorted by name, booleans lower-case; "" for
    none (as the stored case ids of such a topic read: "<topic>//<settings>/<variant>")."""
    return ",".join(f"{k}={_fmt(v)}" for k, v in sorted(params.items()))


def settings_id(settings: Mapping[str, object]) -> str:
    """"keras=3,threads=1": the process settings sorted by name; "default" for none."""
    return ",".join(f"{k}={v}" for k, v in sorted(settings.items())) or "default"


def case_id(topic: str, params: Mapping[str, object], settings: Mapping[str, object], variant: str,
            aa: bool = False, arrival: str = Pattern.BACK_TO_BACK.value) -> str:
    """"<topic>/<params_id>/<settings_id>/<variant>", with "@<arrival id>" for a pattern of
    requests other than back to back ("@idle-10ms") and "#aa" for the second measurement
    of an A/A noise pair."""
    return f"{topic}/{params_id(params)}/{settings_id(settings)}/{variant}{suffix(arrival)}" + ("#aa" if aa else "")


def _fmt(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)
