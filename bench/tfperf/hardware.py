"""Which CPU a machine has, in the two forms the project names it by.

* ``cpu_class``: a short name for a runner label, e.g. ``amd-avx512`` or ``intel-amx``: the
  vendor and the widest instruction-set class TensorFlow's CPU kernels (oneDNN, XLA) pick
  by, which is what makes two CPUs' numbers differ.
* ``cpu_identity``: what must match for two environment records to be one runner: the
  architecture, the CPU's model name, the core count, the instruction-set class and the
  core generation (:func:`core_name`).

The model name alone does not tell CPUs apart: a cloud VM may report "AMD EPYC" for a Zen 4
and a Zen 5 alike, and both have AVX-512. The family and model numbers the CPU reports
(``cpu_signature``) do. All three read an environment record's fields (``cpu_model``,
``isa``, ``machine``, ``cores``, ``cpu_signature``) as the harness stores them, so the store
can judge a file without the machine at hand.
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


# Core generations by the family and model numbers x86 CPUs report (/proc/cpuinfo's "cpu
# family" and "model"): AMD's per-family processor programming references and Intel's
# model list. A range is inclusive; a CPU outside every range is named by its numbers.
AMD_CORES: tuple[tuple[int, int, int, str], ...] = (
    (23, 0x00, 0x2F, "Zen"),           # Naples, Summit/Pinnacle Ridge (Zen and Zen+)
    (23, 0x30, 0xFF, "Zen 2"),         # Rome, Matisse, Renoir
    (25, 0x00, 0x0F, "Zen 3"),         # Milan
    (25, 0x10, 0x1F, "Zen 4"),         # Genoa
    (25, 0x20, 0x5F, "Zen 3"),         # Vermeer, Rembrandt, Cezanne
    (25, 0x60, 0x7F, "Zen 4"),         # Raphael, Phoenix
    (25, 0xA0, 0xAF, "Zen 4"),         # Bergamo, Siena
    (26, 0x00, 0x4F, "Zen 5"),         # Turin, Granite Ridge, Strix Point
)
INTEL_CORES: tuple[tuple[int, int, int, str], ...] = (
    (6, 0x55, 0x55, "Skylake-SP"),     # also Cascade Lake and Cooper Lake (by stepping)
    (6, 0x6A, 0x6C, "Ice Lake-SP"),
    (6, 0x8F, 0x8F, "Sapphire Rapids"),
    (6, 0xCF, 0xCF, "Emerald Rapids"),
    (6, 0xAD, 0xAE, "Granite Rapids"),
    (6, 0xAF, 0xAF, "Sierra Forest"),
)

# The generations the tables name (a CPU outside them is named by its numbers instead).
CORE_NAMES = frozenset(name for *_, name in (*AMD_CORES, *INTEL_CORES))


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


def _number(signature: Mapping[str, object], key: str) -> int | None:
    value = signature.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def core_name(env: Mapping[str, object]) -> str | None:
    """The CPU's core generation: "Zen 4", "Sapphire Rapids"; "family 25 model 200" for an
    x86 CPU outside the tables; "part 0xd40" for an Arm CPU; None when nothing tells.

    A record made before the harness read the family and model (no ``cpu_signature``) is
    named only where its recorded instruction sets leave one answer: an AMD CPU with
    AVX-512 whose TensorFlow listed AVX_VNNI is a Zen 5 (the first AMD core with AVX-VNNI;
    a Zen 4 has AVX-512 VNNI only)."""
    signature = env.get("cpu_signature")
    model = str(env.get("cpu_model") or "")
    brand = vendor(model, str(env.get("machine") or ""))
    if isinstance(signature, Mapping):
        family, number = _number(signature, "family"), _number(signature, "model")
        if family is not None and number is not None:
            table = AMD_CORES if brand == "amd" else INTEL_CORES if brand == "intel" else ()
            for fam, low, high, name in table:
                if fam == family and low <= number <= high:
                    return name
            return f"family {family} model {number}"
        part = _number(signature, "part")
        if part is not None:
            return f"part {part:#x}"
        return None
    isa = env.get("isa")
    features = env.get("tf_cpu_features")
    listed = features.get("instructions_not_used_everywhere") if isinstance(features, Mapping) else None
    if (brand == "amd" and isinstance(isa, Mapping) and isa.get("avx512f") is True
            and isinstance(listed, list) and "AVX_VNNI" in listed):
        return "Zen 5"
    return None


def core_slug(core: str | None) -> str:
    """A core name as a label part: "Zen 4" -> "zen4", "family 25 model 200" -> "f25m200"."""
    if core is None:
        return ""
    words = core.lower().replace("family ", "f").replace(" model ", "m").replace("part ", "p")
    return re.sub(r"[^a-z0-9]+", "", words)


def cpu_class(cpu_model: str, isa: Mapping[str, object], machine: str = "", core: str | None = None) -> str:
    """``<vendor>-<core>-<isa class>``, e.g. "amd-zen4-avx512", "intel-sapphirerapids-amx";
    ``<vendor>-<isa class>`` ("arm-sve") when the core generation is not known."""
    slug = core_slug(core)
    return f"{vendor(cpu_model, machine)}-{slug + '-' if slug else ''}{isa_class(isa)}"


def cpu_identity(env: Mapping[str, object]) -> str:
    """What makes an environment record's machine this runner's, in words: "AMD EPYC
    Zen 4 (x86_64, 2 cores, avx512)". Two records with different identities are two CPUs.
    Memory, the kernel, Python and the libraries may differ within one runner; so may the
    stepping."""
    model = str(env.get("cpu_model") or "unknown CPU")
    core = core_name(env)
    isa = env.get("isa")
    cls = isa_class(isa if isinstance(isa, Mapping) else {})
    machine = str(env.get("machine") or "?")
    return f"{model}{' ' + core if core else ''} ({machine}, {env.get('cores')} cores, {cls})"


def may_be_one_cpu(a: Mapping[str, object], b: Mapping[str, object]) -> bool:
    """Whether two environment records of different identities (:func:`cpu_identity`) may
    still be one CPU: one was made before the harness read the family and model, so its core
    is unknown, and everything else that names a CPU (the model name, the architecture, the
    core count, the instruction-set class) is the same. Such records stay two runners (the
    store cannot prove them one), and the Runners page says they may be one."""
    if cpu_identity(a) == cpu_identity(b) or (core_name(a) is None) == (core_name(b) is None):
        return False
    def named(env: Mapping[str, object]) -> tuple[str, str, object, str]:
        isa = env.get("isa")
        return (str(env.get("cpu_model") or ""), str(env.get("machine") or ""), env.get("cores"),
                isa_class(isa if isinstance(isa, Mapping) else {}))
    return named(a) == named(b)
