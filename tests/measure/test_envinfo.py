"""What the environment record says about Keras (no TensorFlow: stand-in modules; the
real names are checked by the TensorFlow integration test)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tfperf.measure.envinfo import keras_is_legacy


@pytest.mark.parametrize("name, legacy", [
    ("keras._tf_keras.keras", False),        # Keras 3 serving tf.keras: "tf_keras" is inside the name
    ("keras.api._v2.keras", False),
    ("tf_keras.api._v2.keras", True),        # TF_USE_LEGACY_KERAS=1
    ("tf_keras", True),
])
def test_keras_3_is_not_mistaken_for_tf_keras(name: str, legacy: bool) -> None:
    tf = SimpleNamespace(keras=SimpleNamespace(__name__=name))
    assert keras_is_legacy(tf) is legacy


@pytest.mark.tf
@pytest.mark.parametrize("legacy", ["0", "1"])
def test_real_tf_keras_is_told_apart(legacy: str) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = "import tensorflow as tf; from tfperf.measure.envinfo import keras_is_legacy; print(keras_is_legacy(tf))"
    env = {**os.environ, "TF_USE_LEGACY_KERAS": legacy, "TF_CPP_MIN_LOG_LEVEL": "3",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "bench")}
    out = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == ("True" if legacy == "1" else "False"), out.stderr[-2000:]


def test_the_commit_is_the_harness_checkouts_not_the_current_directorys(tmp_path, monkeypatch) -> None:
    """The committed history was measured from a worktree while the shell sat in another
    checkout, and recorded that checkout's commit."""
    import subprocess
    from pathlib import Path

    from tfperf.measure import envinfo
    here = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=Path(envinfo.__file__).parent,
                          capture_output=True, text=True).stdout.strip()
    monkeypatch.chdir(tmp_path)                       # not a git checkout
    assert envinfo.git_commit() == (here or None)


# -- what oneDNN ran on --------------------------------------------------------------------

ONEDNN_3_LOG = """\
onednn_verbose,v1,info,oneDNN v3.7.3 (commit N/A)
onednn_verbose,v1,info,cpu,runtime:threadpool,nthr:2
onednn_verbose,v1,info,cpu,isa:Intel AVX2
onednn_verbose,v1,info,gpu,runtime:none
onednn_verbose,v1,primitive,info,template:operation,engine,primitive,implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time
onednn_verbose,v1,primitive,exec,cpu,gemm_api,,undef,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,16x16:16x16,89.8472
onednn_verbose,v1,primitive,exec,cpu,gemm_api,,undef,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,16x16:16x16,0.0197
onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx512_core_amx,undef,src_bf16::blocked:ab::f0 wei_bf16:a:blocked:ab::f0 dst_bf16::blocked:ab::f0,,,16x16:16x16,0.05
"""

ONEDNN_2_LOG = """\
onednn_verbose,info,oneDNN v2.6.0 (commit 52b5f107dd9cf10910aaa19cb47f3abf9b349815)
onednn_verbose,info,cpu,isa:Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions
onednn_verbose,exec,cpu,inner_product,gemm:jit,forward_inference,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0,,,mb64ic32oc8,0.1
"""


def test_onednn_verbose_gives_its_version_isa_and_kernels() -> None:
    from tfperf.measure.envinfo import parse_onednn_verbose

    used = parse_onednn_verbose("some TensorFlow warning\n" + ONEDNN_3_LOG)
    assert used == {"version": "oneDNN v3.7.3", "isa": "Intel AVX2",
                    "kernels": ["gemm_api (f32)", "matmul:brg_matmul:avx512_core_amx (bf16)"]}
    old = parse_onednn_verbose(ONEDNN_2_LOG)
    assert old is not None and old["version"] == "oneDNN v2.6.0"
    assert old["isa"] == "Intel AVX-512 with AVX512BW"        # up to the verbose line's next comma
    assert old["kernels"] == ["inner_product:gemm:jit (f32)"]
    assert parse_onednn_verbose("2026-11-26 I tensorflow/core: no oneDNN here\n") is None


def test_onednn_is_probed_once_per_environment_and_never_fails_a_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    from types import SimpleNamespace

    from tfperf.measure.envinfo import onednn_used

    calls: list[dict[str, str]] = []

    def fake_run(cmd, env, **_kw):  # type: ignore[no-untyped-def]
        calls.append(env)
        return SimpleNamespace(stdout="", stderr=ONEDNN_3_LOG)

    first = onednn_used(python="/venv/bin/python", cache=tmp_path, run=fake_run)
    again = onednn_used(python="/venv/bin/python", cache=tmp_path, run=fake_run)
    assert first == again and first is not None and first["isa"] == "Intel AVX2"
    assert len(calls) == 1 and calls[0]["ONEDNN_VERBOSE"] == "1"
    onednn_used(python="/other/venv/bin/python", cache=tmp_path, run=fake_run)
    assert len(calls) == 2                                    # another interpreter: probed again

    def timing_out(*_a, **_kw):  # type: ignore[no-untyped-def]
        raise subprocess.TimeoutExpired("python", 1)

    assert onednn_used(python="/third/python", cache=tmp_path, run=timing_out) is None


@pytest.mark.tf
def test_real_onednn_names_an_instruction_set() -> None:
    import platform
    import sys

    from tfperf.measure.envinfo import onednn_used

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("oneDNN is on by default only on x86")
    used = onednn_used(python=sys.executable, cache=None)
    assert used is not None and used["isa"], used
    assert any("(f32)" in k for k in used["kernels"]), used
