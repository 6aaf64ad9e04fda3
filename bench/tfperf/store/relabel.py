"""Rewriting identities in a results document: renaming a runner, and filling in package
versions a run failed to record.

A label and the TensorFlow and Keras versions are part of every result's key, so of its
hash; every environment record's content is its id; the scenarios name the runner.
:func:`rewrite` changes environments and keys and keeps every reference consistent: each
``key_hash`` and the hashes that refer to it (an A/A pair's, a breakdown's), each
environment's id and the references to it. Times, samples and verdicts are untouched; the
result is a valid document, and a later run finds every case already measured.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ResultsFileError
from .record_types import Environment, Key, ResultsDoc, Versions, env_id, key_hash
from .schema import NAME_RULE, is_name
from .validate import validate

EnvChange = Callable[[str, Environment], None]          # (env id, env): edits env in place
KeyChange = Callable[[str | None, Key], None]           # (env id of the result, key): in place


def rewrite(doc: ResultsDoc, change_env: EnvChange, change_key: KeyChange,
            path: str = "<document>") -> ResultsDoc:
    """A copy of ``doc`` with ``change_env`` applied to every environment and ``change_key``
    to every result's key, ids and hashes recomputed and every reference to them updated."""
    out = copy.deepcopy(doc)
    env_ids: dict[str, str] = {}
    envs = {}
    for old_id, env in out["environments"].items():
        change_env(old_id, env)
        new_id = env_id(env)
        env_ids[old_id] = new_id
        envs[new_id] = env
    out["environments"] = envs

    hashes: dict[str, str] = {}
    calls = {b["key_hash"]: b["calls"] for b in out["breakdowns"]}
    for r in out["results"]:
        old_key = dict(r["key"])
        change_key(r["env_id"], r["key"])
        new_key = dict(r["key"])
        hashes[r["key_hash"]] = key_hash(new_key)
        r["key_hash"] = hashes[r["key_hash"]]
        if r["env_id"] is not None:
            r["env_id"] = env_ids.get(r["env_id"], r["env_id"])
        # A breakdown's key is its case's with the number of calls it sampled.
        for sampled in set(calls.values()):
            before = key_hash({**old_key, "breakdown_calls": sampled})
            if before in calls:
                hashes[before] = key_hash({**new_key, "breakdown_calls": sampled})

    for n in out["noise"]:
        if "key_hash" in n:
            n["key_hash"] = hashes.get(n["key_hash"], n["key_hash"])
        if n["env_id"] is not None:
            n["env_id"] = env_ids.get(n["env_id"], n["env_id"])
    for b in out["breakdowns"]:
        b["key_hash"] = hashes.get(b["key_hash"], b["key_hash"])
        if b["env_id"] is not None:
            b["env_id"] = env_ids.get(b["env_id"], b["env_id"])
    validate(out, path)
    return out


def relabel(doc: ResultsDoc, label: str, path: str = "<document>") -> ResultsDoc:
    """A copy of ``doc`` (valid, current version) whose runner is ``label``."""
    if not is_name(label):
        raise ResultsFileError(path, "runner.label", f"{label!r} is not a valid name ({NAME_RULE})")

    def env(_: str, e: Environment) -> None:
        e["runner"] = label

    def key(_: str | None, k: Key) -> None:
        k["runner"] = label

    src = copy.deepcopy(doc)
    src["runner"]["label"] = label
    for sc in src["scenarios"]:
        sc["runner"] = label
    return rewrite(src, env, key, path)


def declared(key: Mapping[str, Any]) -> Mapping[str, str]:
    """A key's declared settings: ``settings.declared``, or (harness 1) ``settings`` itself."""
    settings = key.get("settings") or {}
    chosen = settings.get("declared", settings)
    return {str(k): str(v) for k, v in chosen.items()}


def fill_versions(doc: ResultsDoc, env_ids: set[str], versions: Mapping[str, str | None],
                  keras_for: Callable[[Mapping[str, str], Mapping[str, str | None]], str | None],
                  path: str = "<document>") -> ResultsDoc:
    """A copy of ``doc`` in which the environments ``env_ids`` (and their results' keys) get
    the package ``versions`` they did not record (only fields that are None are filled).
    ``keras_for(declared settings, versions)`` names the Keras a result ran, as the harness
    does when it writes a key. For a run whose versions went unrecorded, repaired from the
    venv that ran it."""
    missing = env_ids - set(doc["environments"])
    if missing:
        raise ResultsFileError(path, "environments", f"no environment {min(missing)}")
    unknown = set(versions) - set(FILLABLE)
    if unknown:
        raise ResultsFileError(path, "versions", f"cannot fill {min(unknown)}: only {', '.join(FILLABLE)}")
    filled: dict[str, dict[str, str | None]] = {}

    def env(eid: str, e: Environment) -> None:
        if eid not in env_ids:
            return
        vs = _filled(e["versions"], versions)
        if vs["keras"] is None:
            vs["keras"] = keras_for(e["settings"], _named(vs))
        e["versions"] = vs
        filled[eid] = _named(vs)

    def key(eid: str | None, k: Key) -> None:
        if eid is None or eid not in filled:
            return
        vs = filled[eid]
        if k.get("tensorflow") is None:
            k["tensorflow"] = vs.get("tensorflow")
        if k.get("keras") is None:
            k["keras"] = keras_for(declared(k), vs)

    return rewrite(doc, env, key, path)


FILLABLE = ("tensorflow", "keras", "numpy", "keras3", "tf_keras", "ai_edge_litert", "onnxruntime", "tf2onnx")


def _filled(vs: Versions, new: Mapping[str, str | None]) -> Versions:
    """A copy of ``vs`` with each package it has no version of (None or absent) taken from
    ``new`` (one of ``FILLABLE``: what an environment record names)."""
    out = copy.copy(vs)
    out["tensorflow"] = out["tensorflow"] or new.get("tensorflow")
    out["keras"] = out["keras"] or new.get("keras")
    out["numpy"] = out["numpy"] or new.get("numpy")
    if out.get("keras3") is None and "keras3" in new:
        out["keras3"] = new["keras3"]
    if out.get("tf_keras") is None and "tf_keras" in new:
        out["tf_keras"] = new["tf_keras"]
    if out.get("ai_edge_litert") is None and "ai_edge_litert" in new:
        out["ai_edge_litert"] = new["ai_edge_litert"]
    if out.get("onnxruntime") is None and "onnxruntime" in new:
        out["onnxruntime"] = new["onnxruntime"]
    if out.get("tf2onnx") is None and "tf2onnx" in new:
        out["tf2onnx"] = new["tf2onnx"]
    return out


def _named(vs: Versions) -> dict[str, str | None]:
    return {k: v for k, v in vs.items() if v is None or isinstance(v, str)}
