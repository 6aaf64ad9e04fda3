"""Stable identifiers: the hash of a result's key and of an environment record."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def key_hash(key: dict[str, Any]) -> str:
    """16 hex digits identifying a result's complete key (snippet hash, harness
    version, TensorFlow and Keras versions, settings, runner)."""
    return _digest(key)


def env_id(env: dict[str, Any]) -> str:
    """16 hex digits identifying an environment record, ignoring when it was taken."""
    return _digest({k: v for k, v in env.items() if k != "time"})
