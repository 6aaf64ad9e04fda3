"""One virtual environment per TensorFlow version, for ``tfperf run --tf VERSION``.

``ensure(version)`` returns ``<root>/tf-<version>/`` (root: ``.venvs`` of the project),
creating it the first time with the project's Python (``python -m venv``) and pip, and
reusing it afterwards without calling pip. What goes in is the version's recipe:

* ``tensorflow-cpu==VERSION`` (not ``tensorflow``: nothing here needs CUDA, and the CPU
  wheel is the smaller);
* for 2.15 and later, ``tf-keras`` of the same minor version, installed with ``--no-deps``
  (tf-keras depends on the full ``tensorflow`` wheel, which would install a second
  TensorFlow over the first). TensorFlow 2.15 already obeys TF_USE_LEGACY_KERAS=1 (the
  ``keras=2`` settings group) and then imports tf_keras, although its own ``keras``
  package is Keras 2; before 2.15, Keras 2 comes with TensorFlow and nothing is added;
* what the worker itself imports besides TensorFlow (``harness``: psutil, at the version
  installed beside tfperf), after TensorFlow and with ``--no-deps``: a venv that cannot
  have it is not built;
* the serving topic's runtimes (``RUNTIMES``, as in pyproject.toml's ``tf`` extra), in the
  same pip resolve as TensorFlow when that resolves; otherwise TensorFlow alone, then each
  runtime beside it, and a runtime that still does not install is recorded with pip's
  reason (its cases are then stored as "unavailable" by the worker).

The stamp file ``tfperf-venv.json`` in the venv is written last: it holds the recipe's
hash, what was installed and what was not. A venv without a stamp, or whose stamp has
another recipe hash, is removed and built again; a failed build leaves no venv behind.

``--tf nightly`` asks pip for the newest ``tf-nightly`` (``pip index versions --pre``) and
builds the venv of that exact development build (``tf-<2.23.0.dev20261125>``): ``tf-nightly``
instead of ``tensorflow-cpu``, and the newest ``tf-keras-nightly`` with ``--no-deps``. The
worker records the version TensorFlow reports ("2.23.0-dev20261125"), whose date names the
build on the pages; a development build is never counted as a release (analyse/versions.py).

Wheels are taken from ``$TFPERF_WHEELS/<version>/`` (default ``/tmp/tfwheels``) when that
directory exists, besides the package index. Never imports TensorFlow.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import TfperfError
from ..store import locked
from ..store.files import publish
from . import envinfo

STAMP = "tfperf-venv.json"
STAMP_FORMAT = 1
DEFAULT_ROOT = Path(".venvs")
WHEELS_ENV = "TFPERF_WHEELS"
DEFAULT_WHEELS = "/tmp/tfwheels"
PIP_TIMEOUT_S = 1800.0
REASON_LINES = 8          # last lines of pip's output kept as the reason of a failure

# The serving topic's optional runtimes, pinned as in pyproject.toml's `tf` extra
# (tests/measure/test_venvs.py checks that the two agree).
# The distributions the worker imports besides TensorFlow and the standard library.
HARNESS_IMPORTS = ("psutil",)
RUNTIMES = ("ai-edge-litert==2.3.0; platform_machine != 'aarch64'", "tf2onnx==1.17.0", "onnxruntime==1.31.1")
# TensorFlow 2.14-2.17 pin ml_dtypes below 0.5, and onnx from 1.18 needs 0.5 (its
# float4_e2m1fn) without saying so in its metadata: pip installs them together and
# `import tf2onnx` then fails with an AttributeError. The last onnx before it works.
OLD_ML_DTYPES = ((2, 14), (2, 17))
ONNX_FOR_OLD_ML_DTYPES = "onnx<1.18"


def runtimes_for(version: str) -> tuple[str, ...]:
    lo, hi = OLD_ML_DTYPES
    return RUNTIMES + ((ONNX_FOR_OLD_ML_DTYPES,) if lo <= _minor(version) <= hi else ())


# tf-keras releases on PyPI, the newest of each minor; installed from TensorFlow 2.15.
TF_KERAS_RELEASES = ("2.15.1", "2.16.0", "2.17.0", "2.18.0", "2.19.0", "2.20.1", "2.21.0")
TF_KERAS_FROM = (2, 15)

VERSION_RE = re.compile(r"\d+\.\d+\.\d+")
NIGHTLY = "nightly"                                   # --tf nightly: the newest tf-nightly
NIGHTLY_RE = re.compile(r"\d+\.\d+\.\d+\.dev\d{8}")   # a tf-nightly version as pip names it
NIGHTLY_PACKAGE, NIGHTLY_KERAS = "tf-nightly", "tf-keras-nightly"

Command = Callable[[list[str]], tuple[int, str]]   # argv -> (exit code, stdout and stderr)


class VenvError(TfperfError):
    """A TensorFlow venv could not be created; the message names the version and pip's reason."""


@dataclass(frozen=True)
class Recipe:
    tensorflow: str                      # "2.15.1"
    python: str                          # "3.11": the venv's interpreter line
    tf_keras: str | None                 # "2.16.0" (installed --no-deps), None before 2.15
    runtimes: tuple[str, ...] = RUNTIMES
    harness: tuple[str, ...] = ()        # the worker's own imports ("psutil==7.2.2"), see harness_requirements

    @property
    def hash(self) -> str:
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Venv:
    """A ready venv (or the project's own, when it has the version asked for)."""

    version: str
    python: Path
    site_packages: list[str] | None      # where its packages are (None: this interpreter's)
    stamp: dict[str, Any] = field(default_factory=dict)
    created: bool = False                # built by this call


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def recipe_for(version: str, python: tuple[int, int] = sys.version_info[:2]) -> Recipe:
    check_version(version)
    if NIGHTLY_RE.fullmatch(version):
        return Recipe(tensorflow=version, python=f"{python[0]}.{python[1]}", tf_keras=NIGHTLY,
                      runtimes=runtimes_for(version), harness=harness_requirements())
    keras = [k for k in TF_KERAS_RELEASES if _minor(k) == _minor(version)]
    if _minor(version) < TF_KERAS_FROM:
        keras = []
    elif not keras:
        raise VenvError(f"TensorFlow {version}: no tf-keras release for {'.'.join(version.split('.')[:2])} is known "
                        f"(known: {', '.join(TF_KERAS_RELEASES)}; add it to TF_KERAS_RELEASES in {__name__})")
    return Recipe(tensorflow=version, python=f"{python[0]}.{python[1]}", tf_keras=keras[-1] if keras else None,
                  runtimes=runtimes_for(version), harness=harness_requirements())


def harness_requirements() -> tuple[str, ...]:
    """What the worker imports besides TensorFlow and the standard library, pinned to the
    versions installed beside tfperf: psutil (``tfperf.measure.envinfo``)."""
    return tuple(f"{dist}=={metadata.version(dist)}" for dist in HARNESS_IMPORTS)


def check_version(version: str) -> None:
    if not (VERSION_RE.fullmatch(version) or NIGHTLY_RE.fullmatch(version)):
        raise VenvError(f"--tf {version!r}: expected a full TensorFlow release such as 2.15.1, or nightly")


def tensorflow_package(version: str) -> str:
    """The distribution that holds TensorFlow ``version``: tensorflow-cpu, or tf-nightly."""
    return NIGHTLY_PACKAGE if NIGHTLY_RE.fullmatch(version) else "tensorflow-cpu"


def resolve_nightly(run: Command) -> str:
    """The newest tf-nightly on the package index, as pip names it ("2.23.0.dev20261125")."""
    code, out = run([sys.executable, "-m", "pip", "index", "versions", NIGHTLY_PACKAGE, "--pre",
                     "--disable-pip-version-check", "--no-input"])
    m = re.search(rf"^{NIGHTLY_PACKAGE} \(([^)]+)\)", out, re.MULTILINE)
    if code != 0 or m is None or not NIGHTLY_RE.fullmatch(m.group(1)):
        raise VenvError(f"--tf nightly: pip found no {NIGHTLY_PACKAGE} version:\n{reason(out)}")
    return m.group(1)


def venv_path(root: Path, version: str) -> Path:
    return Path(root) / f"tf-{version}"


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def site_packages(venv: Path) -> list[str]:
    return [str(p) for p in sorted(venv.glob("lib/python*/site-packages"))]


def read_stamp(venv: Path) -> dict[str, object] | None:
    try:
        stamp = json.loads((venv / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) else None


def is_ready(venv: Path, recipe: Recipe) -> bool:
    stamp = read_stamp(venv)
    return stamp is not None and stamp.get("recipe_hash") == recipe.hash and python_of(venv).exists()


def project_tensorflow() -> str | None:
    """The TensorFlow installed beside tfperf (read from package metadata, not imported)."""
    return envinfo.package_versions()["tensorflow"]


def wheels_dir(version: str) -> Path | None:
    d = Path(os.environ.get(WHEELS_ENV) or DEFAULT_WHEELS) / version
    return d if d.is_dir() else None


def run_command(argv: list[str]) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                              timeout=PIP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, str) else (exc.stdout or b"").decode("utf-8", "replace")
        return 124, f"{out}\nno answer within {PIP_TIMEOUT_S:g} s"
    except OSError as exc:
        return 127, str(exc)
    return done.returncode, done.stdout


def reason(output: str, lines: int = REASON_LINES) -> str:
    """The last non-empty lines of pip's output: where it says why."""
    kept = [ln.rstrip() for ln in output.splitlines() if ln.strip()]
    return "\n".join(kept[-lines:]) or "no output"


def requirement_name(requirement: str) -> str:
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    return m.group(0) if m else requirement


def installed(venv: Path) -> dict[str, str]:
    """Distribution name -> version, read from the venv's package metadata."""
    out: dict[str, str] = {}
    for dist in metadata.distributions(path=site_packages(venv)):
        name = dist.metadata["Name"]
        if name:
            out[re.sub(r"[-_.]+", "-", name).lower()] = dist.version
    return dict(sorted(out.items()))


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def ensure(version: str, root: Path = DEFAULT_ROOT, run: Command | None = None,
           log: Callable[[str], None] = _stderr) -> Venv:
    """The venv for TensorFlow ``version``, created if it is missing or its recipe changed
    (``run`` runs one command: ``run_command`` unless given)."""
    recipe = recipe_for(version)
    path = venv_path(root, version)
    with locked(path):
        if is_ready(path, recipe):
            return Venv(version, python_of(path), site_packages(path), read_stamp(path) or {})
        stamp = _build(path, recipe, run or run_command, log)
    return Venv(version, python_of(path), site_packages(path), stamp, created=True)


def interpreter(version: str | None, root: Path = DEFAULT_ROOT, run: Command | None = None,
                log: Callable[[str], None] = _stderr) -> Venv | None:
    """What runs the workers of ``tfperf run --tf version``: None for this interpreter
    (no ``--tf``, or the version installed here), else the version's venv."""
    if version is None:
        return None
    if version == NIGHTLY:
        version = resolve_nightly(run or run_command)
        log(f"--tf nightly: the newest {NIGHTLY_PACKAGE} is {version}")
    check_version(version)
    if version == project_tensorflow():
        return None
    return ensure(version, root, run, log)


def _build(path: Path, recipe: Recipe, run: Command, log: Callable[[str], None]) -> dict[str, object]:
    v = recipe.tensorflow
    if path.exists():
        log(f"{path}: recipe changed or creation unfinished: building it again")
        shutil.rmtree(path)
    log(f"creating {path} for TensorFlow {v} (once; later runs reuse it)")
    t0 = time.monotonic()
    try:
        code, out = run([sys.executable, "-m", "venv", str(path)])
        if code != 0:
            raise VenvError(f"TensorFlow {v}: `python -m venv {path}` failed:\n{reason(out)}")
        wheels = wheels_dir(v)
        pip = [str(python_of(path)), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
               "--only-binary=:all:", *(["--find-links", str(wheels)] if wheels else [])]
        package = tensorflow_package(v)
        tf = f"{package}=={v}"
        missing: dict[str, str] = {}
        code, out = run([*pip, tf, *recipe.runtimes])
        if code != 0:
            log(f"TensorFlow {v} and the runtimes do not install together: TensorFlow alone, then each runtime")
            code, out = run([*pip, tf])
            if code != 0:
                raise VenvError(f"TensorFlow {v}: pip could not install {tf}:\n{reason(out)}")
            for rt in recipe.runtimes:
                code, out = run([*pip, tf, rt])
                if code != 0:
                    missing[requirement_name(rt)] = reason(out)
                    log(f"  {requirement_name(rt)} does not install beside TensorFlow {v}: "
                        f"{reason(out, 1)}")
        if recipe.harness:
            code, out = run([*pip, "--no-deps", *recipe.harness])
            if code != 0:
                raise VenvError(f"TensorFlow {v}: pip could not install what the worker imports "
                                f"({', '.join(recipe.harness)}):\n{reason(out)}")
        if recipe.tf_keras:
            keras = ([NIGHTLY_KERAS, "--pre"] if recipe.tf_keras == NIGHTLY else [f"tf-keras=={recipe.tf_keras}"])
            code, out = run([*pip, "--no-deps", *keras])
            if code != 0:
                raise VenvError(f"TensorFlow {v}: pip could not install {keras[0]}:\n{reason(out)}")
        have = installed(path)
        if have.get(package) != v:
            raise VenvError(f"TensorFlow {v}: pip finished but {path} has {package} "
                            f"{have.get(package)} (packages: {', '.join(have) or 'none'})")
        stamp = {"format": STAMP_FORMAT, "recipe_hash": recipe.hash, "recipe": asdict(recipe),
                 "installed": have, "not_installed": missing, "wheels": str(wheels) if wheels else None,
                 "created_at": envinfo.now_iso(), "seconds": round(time.monotonic() - t0, 1)}
        publish(path / STAMP, (json.dumps(stamp, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    log(f"created {path} in {stamp['seconds']:.0f} s"
        + (f"; not installed: {', '.join(missing)}" if missing else ""))
    return stamp
