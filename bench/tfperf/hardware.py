"""Which CPU a machine has, in the two forms the project names it by.

* ``cpu_class``: a short name for a runner label, e.g. ``amd-avx512`` or ``intel-amx``: the
  vendor and the widest instruction-set class TensorFlow's CPU kernels (oneDNN, XLA) pick
  by, which is what makes two CPUs' numbers differ.
* ``cpu_identity``: what must match for two environment records to be one runner: the
  architecture, the CPU's model name, the core count and the instruction-set class.

Both read an environment record's fields (``cpu_model``, ``isa``, ``machine``, ``cores``) as
the harness stores them, so the store can judge a file without the machine at hand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Widest first: the first class whose flag the CPU has names it.
ISA_CLASSES: tuple[tuple[str, str], ...] = (
    ("amx", "amx_tile"),            # Intel Sapphire Rapids and later: AMX tiles (bf16/int8 matmuls)
    ("avx512", "avx512f"),          # Intel Skylake-SP and later, AMD Zen 4 and later
    ("avx2", "avx2"),               # most x86-64 CPUs since 2013
    ("sve", "sve"),                 # Arm Neoverse V1/V2 (Graviton 3 and 4)
    ("neon", "asimd"),              # every 64-bit Arm CPU
)

_VENDORS: tuple[tuple[str, str], ...] = (
    ("intel", r"intel|xeon|core\(tm\)"),
    ("amd", r"\bamd\b|epyc|ryzen|opteron"),
    ("apple", r"\bapple\b"),
    ("arm", r"neoverse|cortex|graviton|ampere|\barm\b"),
)


def isa_class(isa: Mapping[str, object]) -> str:
    """The widest class in :data:`ISA_CLASSES` whose flag is set, "unknown" when the
    record has no flags (a platform where none were read), else "base"."""
    if not isa:
        return "unknown"
    for name, flag in ISA_CLASSES:
        if isa.get(flag) is True:
            return name
    return "base"


def vendor(cpu_model: str, machine: str = "") -> str:
    """"intel", "amd", "apple" or "arm" from the CPU's model name; an Arm machine whose
    model name says nothing is "arm"; "cpu" when nothing tells."""
    text = cpu_model.lower()
    for name, pattern in _VENDORS:
        if re.search(pattern, text):
            return name
    if machine.lower() in ("aarch64", "arm64"):
        return "arm"
    return "cpu"


def cpu_class(cpu_model: str, isa: Mapping[str, object], machine: str = "") -> str:
    """``<vendor>-<isa class>``, e.g. "amd-avx512", "intel-amx", "arm-sve"."""
    return f"{vendor(cpu_model, machine)}-{isa_class(isa)}"


def cpu_identity(env: Mapping[str, object]) -> str:
    """What makes an environment record's machine this runner's, in words: "AMD EPYC
    (x86_64, 2 cores, avx512)". Two records with different identities are two CPUs.
    Memory, the kernel, Python and the libraries may differ within one runner."""
    model = str(env.get("cpu_model") or "unknown CPU")
    isa = env.get("isa")
    cls = isa_class(isa if isinstance(isa, Mapping) else {})
    machine = str(env.get("machine") or "?")
    return f"{model} ({machine}, {env.get('cores')} cores, {cls})"
