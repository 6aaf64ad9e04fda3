"""Renaming a runner: the same measurements under a new label.

A label is part of every result's key, so its hash, every environment record (and so its
id) and the scenarios name it. ``relabel`` rewrites all of them consistently: each key's
``runner``, its ``key_hash`` and the hashes that refer to it (an A/A pair's, a breakdown's),
each environment's ``runner`` and id, and the references to those ids. Times, samples and
verdicts are untouched; the result is a valid document of the new runner, and a run under
the new label finds every case already measured.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import cast

from ..errors import ResultsFileError
from . import ids
from .record_types import ResultsDoc
from .schema import NAME_RULE, is_name
from .validate import validate


def relabel(doc: ResultsDoc, label: str, path: str = "<document>") -> ResultsDoc:
    """A copy of ``doc`` (valid, current version) whose runner is ``label``."""
    if not is_name(label):
        raise ResultsFileError(path, "runner.label", f"{label!r} is not a valid name ({NAME_RULE})")
    out = cast(ResultsDoc, copy.deepcopy(dict(doc)))
    out["runner"]["label"] = label

    env_ids: dict[str, str] = {}
    envs = {}
    for old_id, env in out["environments"].items():
        env["runner"] = label
        new_id = ids.env_id(cast(Mapping[str, object], env))
        env_ids[old_id] = new_id
        envs[new_id] = env
    out["environments"] = envs

    hashes: dict[str, str] = {}
    calls = {b["key_hash"]: b["calls"] for b in out["breakdowns"]}
    for r in out["results"]:
        old_key = dict(r["key"])
        r["key"]["runner"] = label
        new_key = dict(r["key"])
        hashes[r["key_hash"]] = ids.key_hash(new_key)
        r["key_hash"] = hashes[r["key_hash"]]
        if r["env_id"] is not None:
            r["env_id"] = env_ids.get(r["env_id"], r["env_id"])
        # A breakdown's key is its case's with the number of calls it sampled.
        for n in set(calls.values()):
            before = ids.key_hash({**old_key, "breakdown_calls": n})
            if before in calls:
                hashes[before] = ids.key_hash({**new_key, "breakdown_calls": n})

    for kind in ("noise", "breakdowns"):
        for rec in cast(list[dict[str, object]], out[kind]):
            h = rec.get("key_hash")
            if isinstance(h, str):
                rec["key_hash"] = hashes.get(h, h)
            e = rec.get("env_id")
            if isinstance(e, str):
                rec["env_id"] = env_ids.get(e, e)
    for sc in out["scenarios"]:
        sc["runner"] = label
    validate(out, path)
    return out
