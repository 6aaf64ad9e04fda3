"""Run a snippet's variants on your own machine and print a small comparison table.

Used only when a snippet is run directly (``python snippets/<topic>.py``); needs nothing
but the Python standard library and whatever the snippet itself imports. The published
numbers come from the tfperf harness, which times the same functions more carefully
(fresh processes, warm-up, calibrated loops, confidence intervals).
"""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any


def _to_host(out: Any) -> Any:
    """Bring a result to the host, so that device work is finished before the clock stops."""
    if hasattr(out, "numpy"):
        return out.numpy()
    if isinstance(out, (list, tuple)):
        return [_to_host(o) for o in out]
    if isinstance(out, dict):
        return {k: _to_host(v) for k, v in out.items()}
    return out


def time_call(fn: Callable[[], Any], repeat: int = 7, min_time: float = 0.05) -> tuple[float, float]:
    """(first call seconds, median seconds per call of the warmed-up function)."""
    t0 = time.perf_counter()
    _to_host(fn())
    first = time.perf_counter() - t0
    number = 1
    while True:  # calibrate: one sample lasts at least min_time
        t0 = time.perf_counter()
        for _ in range(number):
            _to_host(fn())
        if time.perf_counter() - t0 >= min_time or number >= 1 << 20:
            break
        number *= 2
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            _to_host(fn())
        samples.append((time.perf_counter() - t0) / number)
    return first, statistics.median(samples)


def keras_label(keras: Any) -> str:
    """Which Keras ``tf.keras`` is, e.g. "Keras 3.15.1" or "Keras 2.16.0 (tf_keras)".

    Read from the package ``tf.keras`` comes from: Keras 3 serves it from
    ``keras._tf_keras.keras``, tf_keras from ``tf_keras.api._v2.keras`` (with no
    ``__version__`` of its own), the Keras 2 built into TensorFlow <= 2.15 from
    ``keras.api._v2.keras``; so neither the module name nor ``keras.__version__``
    alone tells them apart."""
    package = str(getattr(keras, "__name__", "keras")).split(".", 1)[0]
    version = str(getattr(importlib.import_module(package), "__version__", "?"))
    return f"Keras {version}" + (" (tf_keras)" if package == "tf_keras" else "")


def _fmt(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def compare(
    title: str,
    variants: Mapping[str, Callable[..., Any]],
    setups: Mapping[str, Callable[[], Mapping[str, Any]]],
    baseline: str,
) -> None:
    """Time each variant (with the keyword arguments its setup returns) and print a table.

    ``setups[name]()`` builds the inputs of variant ``name`` afresh; ``baseline`` is the
    variant the speedups are relative to (the default way users reach for)."""
    print(f"\n{title}")
    rows = []
    for name, fn in variants.items():
        kwargs = setups[name]()
        first, med = time_call(lambda fn=fn, kwargs=kwargs: fn(**kwargs))
        rows.append((name, first, med))
    base = {n: m for n, _, m in rows}[baseline]
    width = max(len(n) for n, _, _ in rows)
    print(f"  {'variant':<{width}}  {'first call':>11}  {'per call':>10}  {'vs ' + baseline:>12}")
    for name, first, med in rows:
        print(f"  {name:<{width}}  {_fmt(first):>11}  {_fmt(med):>10}  {base / med:>11.2f}x")
