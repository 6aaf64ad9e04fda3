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
from typing import Any, cast

from ..errors import ResultsFileError
from .record_types import ResultsDoc, env_id, key_hash
from .schema import NAME_RULE, is_name
from .validate import validate

EnvChange = Callable[[str, dict[str, Any]], None]          # (env id, env): edits env in place
KeyChange = Callable[[str | None, dict[str, Any]], None]   # (env id of the result, key): in place


def rewrite(doc: ResultsDoc, change_env: EnvChange, change_key: KeyChange,
            path: str = "<document>") -> ResultsDoc:
    """A copy of ``doc`` with ``change_env`` applied to every environment and ``change_key``
    to every result's key, ids and hashes recomputed and every reference to them updated."""
    out = cast(ResultsDoc, copy.deepcopy(dict(doc)))
    env_ids: dict[str, str] = {}
    envs = {}
    for old_id, env in out["environments"].items():
        change_env(old_id, cast(dict[str, Any], env))
        new_id = env_id(cast(Mapping[str, object], env))
        env_ids[old_id] = new_id
        envs[new_id] = env
    out["environments"] = envs

    hashes: dict[str, str] = {}
    calls = {b["key_hash"]: b["calls"] for b in out["breakdowns"]}
    for r in out["results"]:
        old_key = dict(r["key"])
        change_key(r["env_id"], cast(dict[str, Any], r["key"]))
        new_key = dict(r["key"])
        hashes[r["key_hash"]] = key_hash(new_key)
        r["key_hash"] = hashes[r["key_hash"]]
        if r["env_id"] is not None:
            r["env_id"] = env_ids.get(r["env_id"], r["env_id"])
        # A breakdown's key is its case's with the number of calls it sampled.
        for n in set(calls.values()):
            before = key_hash({**old_key, "breakdown_calls": n})
            if before in calls:
                hashes[before] = key_hash({**new_key, "breakdown_calls": n})

    for kind in ("noise", "breakdowns"):
        for rec in cast(list[dict[str, object]], out[kind]):
            h = rec.get("key_hash")
            if isinstance(h, str):
                rec["key_hash"] = hashes.get(h, h)
            e = rec.get("env_id")
            if isinstance(e, str):
                rec["env_id"] = env_ids.get(e, e)
    validate(out, path)
    return out


def relabel(doc: ResultsDoc, label: str, path: str = "<document>") -> ResultsDoc:
    """A copy of ``doc`` (valid, current version) whose runner is ``label``."""
    if not is_name(label):
        raise ResultsFileError(path, "runner.label", f"{label!r} is not a valid name ({NAME_RULE})")

    def env(_: str, e: dict[str, Any]) -> None:
        e["runner"] = label

    def key(_: str | None, k: dict[str, Any]) -> None:
        k["runner"] = label

    src = cast(ResultsDoc, copy.deepcopy(dict(doc)))
    src["runner"]["label"] = label
    for sc in src["scenarios"]:
        sc["runner"] = label
    return rewrite(src, env, key, path)


def declared(key: Mapping[str, Any]) -> Mapping[str, str]:
    """A key's declared settings: ``settings.declared``, or (harness 1) ``settings`` itself."""
    settings = key.get("settings") or {}
    return cast(Mapping[str, str], settings.get("declared", settings))


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
    filled: dict[str, dict[str, str | None]] = {}

    def env(eid: str, e: dict[str, Any]) -> None:
        if eid not in env_ids:
            return
        vs = dict(e.get("versions") or {})
        for name, value in versions.items():
            if vs.get(name) is None:
                vs[name] = value
        if vs.get("keras") is None:
            vs["keras"] = keras_for(cast(Mapping[str, str], e.get("settings") or {}), vs)
        e["versions"] = vs
        filled[eid] = vs

    def key(eid: str | None, k: dict[str, Any]) -> None:
        if eid is None or eid not in filled:
            return
        vs = filled[eid]
        if k.get("tensorflow") is None:
            k["tensorflow"] = vs.get("tensorflow")
        if k.get("keras") is None:
            k["keras"] = keras_for(declared(k), vs)

    return rewrite(doc, env, key, path)
