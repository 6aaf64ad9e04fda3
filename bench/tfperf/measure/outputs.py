"""Bringing outputs to the host and comparing them with the reference variant's.

``to_host`` is the synchronisation point: on a GPU, ``.numpy()`` blocks until the kernels
that produce the tensor have finished and the data is copied to host memory, so timing a
call followed by ``to_host`` times the device work too. Tested with fake device tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np


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


def compare(out: Any, ref: Any, rtol: float, atol: float) -> dict[str, Any]:
    """Max absolute and relative difference of ``out`` against ``ref`` and whether every
    element satisfies |out - ref| <= atol + rtol * |ref| (numpy.allclose's rule)."""
    result: dict[str, Any] = {"rtol": rtol, "atol": atol, "note": None}
    try:
        a, b = _flatten(to_host(out)), _flatten(to_host(ref))
    except (TypeError, ValueError) as exc:
        return {**result, "max_abs_diff": None, "max_rel_diff": None, "within_tolerance": False,
                "note": f"output not numeric: {exc}"}
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b)):
        shapes = [x.shape for x in a], [y.shape for y in b]
        return {**result, "max_abs_diff": None, "max_rel_diff": None, "within_tolerance": False,
                "note": f"output shape {shapes[0]} differs from the reference's {shapes[1]}"}
    max_abs = max_rel = 0.0
    ok = True
    for x, y in zip(a, b):
        if x.size == 0:
            continue
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            same_nonfinite = np.array_equal(np.isfinite(x), np.isfinite(y))
            ok = ok and same_nonfinite
            fin = np.isfinite(x) & np.isfinite(y)
            x, y = x[fin], y[fin]
            if x.size == 0:
                continue
        diff = np.abs(x - y)
        max_abs = max(max_abs, float(diff.max()))
        max_rel = max(max_rel, float((diff / np.maximum(np.abs(y), max(atol, np.finfo(np.float64).tiny))).max()))
        ok = ok and bool(np.all(diff <= atol + rtol * np.abs(y)))
    return {**result, "max_abs_diff": max_abs, "max_rel_diff": max_rel, "within_tolerance": ok}
