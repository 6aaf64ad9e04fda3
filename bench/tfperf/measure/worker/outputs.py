"""Bringing outputs to the host and comparing them with the reference variant's.

Outputs are compared with the reference variant of the scenario's baseline settings,
also across processes: the baseline's worker saves that output (:func:`save`), the
workers of the other settings groups load it (:func:`load`). A reference whose values
barely vary (:func:`barely_varies`, e.g. the softmax of near-zero logits) cannot tell a
right output from a wrong one: the check says so instead of passing.

``to_host`` is the synchronisation point: on a GPU, ``.numpy()`` blocks until the kernels
that produce the tensor have finished and the data is copied to host memory, so timing a
call followed by ``to_host`` times the device work too. Tested with fake device tensors.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    # Types only: the worker runs in TensorFlow venvs without the store's dependencies
    # (jsonschema), and importing tfperf.store would load them (tests/measure/worker/test_worker_imports.py).
    from ...store.record_types import Output



def to_host(out: Any) -> Any:
    """Recursively convert tensors (anything with ``.numpy()``) to numpy arrays."""
    if hasattr(out, "numpy"):
        return out.numpy()
    if isinstance(out, dict):
        return {k: to_host(v) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return type(out)(to_host(v) for v in out) if isinstance(out, list) else tuple(to_host(v) for v in out)
    return out


def _flatten(out: Any) -> list[np.ndarray]:
    if isinstance(out, dict):
        return [a for k in sorted(out) for a in _flatten(out[k])]
    if isinstance(out, (list, tuple)):
        return [a for v in out for a in _flatten(v)]
    return [np.asarray(out, dtype=np.float64)]


def compare(out: Any, ref: Any, rtol: float, atol: float) -> Output:
    """Max absolute and relative difference of ``out`` against ``ref`` and whether every
    element satisfies |out - ref| <= atol + rtol * |ref| (numpy.allclose's rule)."""
    try:
        a, b = _flatten(to_host(out)), _flatten(to_host(ref))
    except (TypeError, ValueError) as exc:
        return {"rtol": rtol, "atol": atol, "note": f"output not numeric: {exc}", "max_abs_diff": None,
                "max_rel_diff": None, "within_tolerance": False}
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b)):
        shapes = [x.shape for x in a], [y.shape for y in b]
        return {"rtol": rtol, "atol": atol,
                "note": f"output shape {shapes[0]} differs from the reference's {shapes[1]}",
                "max_abs_diff": None, "max_rel_diff": None, "within_tolerance": False}
    max_abs = max_rel = 0.0
    ok = True
    wrong_nonfinite = total = compared = 0
    for x, y in zip(a, b):
        total += x.size
        if x.size == 0:
            continue
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            same_nonfinite = np.array_equal(np.isfinite(x), np.isfinite(y))
            ok = ok and same_nonfinite
            wrong_nonfinite += int(np.count_nonzero(np.isfinite(x) != np.isfinite(y)))
            fin = np.isfinite(x) & np.isfinite(y)
            x, y = x[fin], y[fin]
            if x.size == 0:
                continue
        compared += x.size
        diff = np.abs(x - y)
        max_abs = max(max_abs, float(diff.max()))
        max_rel = max(max_rel, float((diff / np.maximum(np.abs(y), max(atol, np.finfo(np.float64).tiny))).max()))
        ok = ok and bool(np.all(diff <= atol + rtol * np.abs(y)))
    # The differences cover only the values finite in both. With none such (an all-NaN
    # output) there is no difference to state: a 0.0 would read as "identical".
    note = (f"{wrong_nonfinite} of {total} values non-finite (NaN or inf) where the other output is finite"
            if wrong_nonfinite else None)
    if compared == 0 and wrong_nonfinite:
        return {"rtol": rtol, "atol": atol, "note": note, "max_abs_diff": None, "max_rel_diff": None,
                "within_tolerance": False, "values": total, "nonfinite": wrong_nonfinite}
    return {"rtol": rtol, "atol": atol, "note": note, "max_abs_diff": max_abs, "max_rel_diff": max_rel,
            "within_tolerance": ok, "values": total, "nonfinite": wrong_nonfinite}


def save(out: Any, path: Path) -> None:
    """Write an output (already on the host) as its flattened arrays, for :func:`load`."""
    arrays = _flatten(out)
    with open(path, "wb") as fh:
        np.savez(fh, *arrays)


def load(path: Path) -> list[np.ndarray]:
    """The flattened arrays :func:`save` wrote; :func:`compare` takes them as a reference."""
    with np.load(path, allow_pickle=False) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def barely_varies(ref: Any, rtol: float, atol: float) -> str | None:
    """Why ``ref`` cannot serve as a reference, or None: its values (of two or more) all
    lie within the tolerance of one constant, so a constant output would pass the check
    (softmax of near-zero logits, a saturated sigmoid). A single value (a loss) is not
    judged: there is nothing to spread."""
    try:
        arrays = _flatten(to_host(ref))
    except (TypeError, ValueError):
        return None                     # not numeric: compare() says so for every variant
    values = np.concatenate([a.ravel() for a in arrays]) if arrays else np.zeros(0)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return None
    spread = float(values.max() - values.min())
    mid = float(values.max() + values.min()) / 2.0
    if spread / 2.0 <= atol + rtol * abs(mid):
        return (f"the reference output barely varies ({values.size} values within {spread:.3g} of each other, "
                f"tolerance {atol + rtol * abs(mid):.3g}): a constant would pass, so the check cannot tell "
                "a wrong output from a right one")
    return None
