"""A runner label names one CPU: the default label says which, and the store, a run, the
site's intake and a rename keep two CPUs from sharing one label (no TensorFlow)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from store_records import valid_doc

from tfperf import hardware, store
from tfperf.errors import ResultsFileError
from tfperf.measure import envinfo
from tfperf.measure.supervise import orchestrate
from tfperf.measure.supervise import orchestrate as cooperate
from tfperf.store import record_types as ids
from tfperf.store.relabel import relabel

XEON = {"cpu_model": "Intel(R) Xeon(R) Processor", "machine": "x86_64", "cores": 2,
        "isa": {"avx2": True, "avx512f": True, "amx_tile": True}}
EPYC_ZEN3 = {"cpu_model": "AMD EPYC", "machine": "x86_64", "cores": 2, "isa": {"avx2": True, "avx512f": False}}
EPYC_ZEN4 = {"cpu_model": "AMD EPYC", "machine": "x86_64", "cores": 2, "isa": {"avx2": True, "avx512f": True}}


@pytest.mark.parametrize("env, expected", [
    (XEON, "intel-amx"),
    (EPYC_ZEN3, "amd-avx2"),
    (EPYC_ZEN4, "amd-avx512"),
    ({"cpu_model": "Neoverse-V1", "machine": "aarch64", "isa": {"asimd": True, "sve": True}}, "arm-sve"),
    ({"cpu_model": "", "machine": "aarch64", "isa": {"asimd": True}}, "arm-neon"),
    ({"cpu_model": "Apple M1", "machine": "arm64", "isa": {"asimd": True}}, "apple-neon"),
    ({"cpu_model": "Intel64 Family 6", "machine": "AMD64", "isa": {}}, "intel-unknown"),
    ({"cpu_model": "QEMU Virtual CPU", "machine": "x86_64", "isa": {"sse4_2": True}}, "cpu-base"),
])
def test_cpu_class_names_vendor_and_widest_instruction_set(env: dict[str, Any], expected: str) -> None:
    assert hardware.cpu_class(env["cpu_model"], env["isa"], env["machine"]) == expected


def test_two_epycs_with_different_instruction_sets_are_two_cpus() -> None:
    assert hardware.cpu_identity(EPYC_ZEN3) != hardware.cpu_identity(EPYC_ZEN4)
    assert hardware.cpu_identity(EPYC_ZEN3) == hardware.cpu_identity({**EPYC_ZEN3, "memory_bytes": 1, "os": "x"})


def _fake_machine(monkeypatch: pytest.MonkeyPatch, env: dict[str, Any]) -> None:
    monkeypatch.delenv("TFPERF_RUNNER", raising=False)
    monkeypatch.setattr(envinfo, "machine_info", lambda: {**env, "os": "Linux 6", "memory_bytes": None,
                                                          "python": "3.11.7"})
    monkeypatch.setattr(envinfo, "cores", lambda: env["cores"])
    monkeypatch.setattr(envinfo.platform, "system", lambda: "Linux")
    monkeypatch.setattr(envinfo.platform, "machine", lambda: env["machine"])
    monkeypatch.setattr(envinfo, "_has_nvidia_gpu", lambda: False)


def test_default_label_names_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_machine(monkeypatch, EPYC_ZEN3)
    assert envinfo.default_runner_label() == "linux-x86_64-2core-amd-avx2"
    _fake_machine(monkeypatch, XEON)
    assert envinfo.default_runner_label() == "linux-x86_64-2core-intel-amx"
    monkeypatch.setenv("TFPERF_RUNNER", "gha-ubuntu24-x86_64-{cpu}")
    assert envinfo.default_runner_label() == "gha-ubuntu24-x86_64-intel-amx"
    assert envinfo.expand_label("my-box") == "my-box"


def test_tfperf_label_prints_the_label_a_run_stores_under(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """What bench.sh asks before it seeds a hosted runner's published file."""
    from tfperf.cli import main

    _fake_machine(monkeypatch, EPYC_ZEN3)
    monkeypatch.delenv("TFPERF_RUNNER", raising=False)
    assert main(["label", "gha-ubuntu24-x86_64-{cpu}"]) == 0
    assert main(["label"]) == 0
    assert capsys.readouterr().out.splitlines() == ["gha-ubuntu24-x86_64-amd-avx2", "linux-x86_64-2core-amd-avx2"]


def test_a_machine_without_a_published_runner_of_its_cpu_gets_a_label_of_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What `scripts/main` on a new CPU does: its default label is none of the published
    runners whose CPU differs, so its results never land under their label."""
    published = {doc["runner"]["label"]: hardware.cpu_identity(next(iter(doc["environments"].values())))
                 for _, doc in store.load_dir(Path(__file__).parents[2] / "data" / "results")[0]}
    assert published
    for env in (XEON, EPYC_ZEN3, EPYC_ZEN4, GENOA, TURIN):
        _fake_machine(monkeypatch, env)
        label = envinfo.default_runner_label()
        if label in published:
            assert published[label] == hardware.cpu_identity(env)


def _env(runner: str, cpu: dict[str, Any], time: str) -> dict[str, Any]:
    env: dict[str, Any] = copy.deepcopy(next(iter(valid_doc()["environments"].values())))
    env.update(runner=runner, time=time, **{k: v for k, v in cpu.items()})
    return env


def _doc_with(runner: str, *envs: dict[str, Any]) -> dict[str, Any]:
    doc = valid_doc()
    doc["runner"]["label"] = runner
    doc["results"], doc["noise"], doc["breakdowns"], doc["scenarios"] = [], [], [], []
    doc["environments"] = {ids.env_id(e): e for e in envs}
    return doc


def test_a_file_of_two_cpus_is_refused_naming_both() -> None:
    doc = _doc_with("box", _env("box", XEON, "2026-01-01T00:00:00+00:00"),
                    _env("box", EPYC_ZEN3, "2026-01-02T00:00:00+00:00"))
    with pytest.raises(ResultsFileError) as refused:
        store.validate(doc, "box/full.json")
    message = str(refused.value)
    assert "box/full.json" in message and 'runner "box"' in message
    assert "Intel(R) Xeon(R) Processor (x86_64, 2 cores, amx)" in message
    assert "AMD EPYC (x86_64, 2 cores, avx2)" in message
    assert "two CPUs cannot share one runner label" in message


def test_append_of_another_cpu_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    path = store.results_path(tmp_path, "box", "full")
    first = _env("box", XEON, "2026-01-01T00:00:00+00:00")
    store.append(path, runner_label="box", profile="full", environments={ids.env_id(first): first})
    before = path.read_bytes()
    other = _env("box", EPYC_ZEN3, "2026-01-02T00:00:00+00:00")
    with pytest.raises(ResultsFileError, match=r"AMD EPYC \(x86_64, 2 cores, avx2\).*Intel\(R\) Xeon"):
        store.append(path, runner_label="box", profile="full", environments={ids.env_id(other): other})
    assert path.read_bytes() == before
    same_cpu = _env("box", XEON, "2026-01-03T00:00:00+00:00") | {"memory_bytes": 1}
    store.append(path, runner_label="box", profile="full", environments={ids.env_id(same_cpu): same_cpu})


def test_a_run_on_another_cpu_stops_before_measuring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = store.results_path(tmp_path, "box", "quick")
    env = _env("box", XEON, "2026-01-01T00:00:00+00:00")
    store.append(path, runner_label="box", profile="quick", environments={ids.env_id(env): env})
    stored = cooperate.read_stored(path)
    assert stored.cpus == {hardware.cpu_identity(XEON)}
    cooperate.check_cpu(path, "box", stored, hardware.cpu_identity(XEON))        # the same CPU: goes on
    monkeypatch.setattr(envinfo, "this_cpu", lambda: hardware.cpu_identity(EPYC_ZEN3))
    options = orchestrate.RunOptions(profile="quick", runner="box", data_root=tmp_path, progress=False,
                                     snippets_dir=Path(__file__).parents[1] / "fixtures" / "snippets")
    with pytest.raises(ResultsFileError, match="nothing was measured") as refused:
        orchestrate.plan(options, topics=[])
    assert "Intel(R) Xeon(R) Processor" in str(refused.value) and "AMD EPYC" in str(refused.value)


def test_two_files_of_one_label_on_two_cpus_are_not_both_read(tmp_path: Path) -> None:
    for profile, cpu in (("full", XEON), ("history", EPYC_ZEN3)):
        env = _env("box", cpu, "2026-01-01T00:00:00+00:00")
        store.append(store.results_path(tmp_path, "box", profile), runner_label="box", profile=profile,
                     environments={ids.env_id(env): env})
    good, bad = store.load_dir(tmp_path)
    assert [p.name for p, _ in good] == ["full.json"]
    assert len(bad) == 1 and "history.json" in str(bad[0]) and "two CPUs cannot share" in str(bad[0])


def test_relabel_keeps_every_measurement_and_its_references() -> None:
    doc = store.load(Path(__file__).parents[1] / "fixtures" / "results" / "valid.json")
    new = relabel(doc, "linux-x86_64-2core-intel-amx")
    store.validate(new)
    assert new["runner"]["label"] == "linux-x86_64-2core-intel-amx"
    assert len(new["results"]) == len(doc["results"])
    for old_r, new_r in zip(doc["results"], new["results"]):
        assert new_r["key"]["runner"] == "linux-x86_64-2core-intel-amx"
        assert new_r["key_hash"] == ids.key_hash(new_r["key"]) != old_r["key_hash"]
        assert new_r["timing"] == old_r["timing"]
        assert new_r["env_id"] is None or new_r["env_id"] in new["environments"]
    assert doc["runner"]["label"] != new["runner"]["label"]        # the input is not changed
    with pytest.raises(ResultsFileError, match="not a valid name"):
        relabel(doc, "../etc")


# Two AMD EPYC machines this project has been given: a cloud VM names both "AMD EPYC", both
# have AVX-512; only the family and model numbers (and the Zen 5's AVX-VNNI) tell them apart.
GENOA = {**EPYC_ZEN4, "cpu_signature": {"family": 25, "model": 17, "stepping": 1}}
TURIN = {**EPYC_ZEN4, "cpu_signature": {"family": 26, "model": 2, "stepping": 1}}
TURIN_BEFORE_SIGNATURES = {**EPYC_ZEN4, "tf_cpu_features": {"instructions_not_used_everywhere": [
    "AVX2", "AVX512F", "AVX512_VNNI", "AVX512_BF16", "AVX_VNNI", "FMA"]}}


@pytest.mark.parametrize("env, core", [
    (GENOA, "Zen 4"),
    (TURIN, "Zen 5"),
    (TURIN_BEFORE_SIGNATURES, "Zen 5"),
    (EPYC_ZEN4, None),                                         # no numbers, no AVX_VNNI: not told
    ({**EPYC_ZEN3, "cpu_signature": {"family": 25, "model": 1}}, "Zen 3"),
    ({**XEON, "cpu_signature": {"family": 6, "model": 143, "stepping": 8}}, "Sapphire Rapids"),
    (XEON, None),
    ({**GENOA, "cpu_signature": {"family": 25, "model": 200}}, "family 25 model 200"),
    ({"cpu_model": "Neoverse-V1", "machine": "aarch64", "isa": {"sve": True},
      "cpu_signature": {"implementer": 0x41, "part": 0xD40}}, "part 0xd40"),
])
def test_core_name_from_the_family_and_model_numbers(env: dict[str, Any], core: str | None) -> None:
    assert hardware.core_name(env) == core


def test_a_zen4_and_a_zen5_with_one_model_name_are_two_cpus() -> None:
    assert hardware.cpu_identity(GENOA) != hardware.cpu_identity(TURIN)
    assert hardware.cpu_identity(GENOA) == "AMD EPYC Zen 4 (x86_64, 2 cores, avx512)"
    # a Zen 5 record from before the numbers were read is the same CPU as one with them
    assert hardware.cpu_identity(TURIN_BEFORE_SIGNATURES) == hardware.cpu_identity(TURIN)
    # ... and the stepping does not make a CPU another
    assert hardware.cpu_identity(TURIN) == hardware.cpu_identity(
        {**TURIN, "cpu_signature": {"family": 26, "model": 2, "stepping": 0}})


@pytest.mark.parametrize("env, label", [
    (GENOA, "linux-x86_64-2core-amd-zen4-avx512"),
    (TURIN, "linux-x86_64-2core-amd-zen5-avx512"),
    ({**XEON, "cpu_signature": {"family": 6, "model": 143, "stepping": 8}},
     "linux-x86_64-2core-intel-sapphirerapids-amx"),
    ({**GENOA, "cpu_signature": {"family": 25, "model": 200}}, "linux-x86_64-2core-amd-f25m200-avx512"),
    (EPYC_ZEN3, "linux-x86_64-2core-amd-avx2"),
])
def test_default_label_names_the_core_generation(monkeypatch: pytest.MonkeyPatch, env: dict[str, Any],
                                                 label: str) -> None:
    _fake_machine(monkeypatch, env)
    assert envinfo.default_runner_label() == label
    assert store.is_name(label)


def test_a_zen4_is_refused_under_the_label_of_a_zen5(tmp_path: Path) -> None:
    path = store.results_path(tmp_path, "epyc", "full")
    first = _env("epyc", TURIN_BEFORE_SIGNATURES, "2026-11-28T00:00:00+00:00")
    store.append(path, runner_label="epyc", profile="full", environments={ids.env_id(first): first})
    before = path.read_bytes()
    genoa = _env("epyc", GENOA, "2026-11-29T00:00:00+00:00")
    with pytest.raises(ResultsFileError, match=r"AMD EPYC Zen 4 .*AMD EPYC Zen 5"):
        store.append(path, runner_label="epyc", profile="full", environments={ids.env_id(genoa): genoa})
    assert path.read_bytes() == before
    turin = _env("epyc", TURIN, "2026-11-30T00:00:00+00:00")           # the same CPU, now with its numbers
    store.append(path, runner_label="epyc", profile="full", environments={ids.env_id(turin): turin})
    assert len(store.load(path)["environments"]) == 2


X86_CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
stepping\t: 1
flags\t\t: fpu avx2 avx512f avx512_bf16

processor\t: 1
cpu family\t: 25
model\t\t: 17
"""
ARM_CPUINFO = """processor\t: 0
Features\t: fp asimd sve
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x1
CPU part\t: 0xd40
CPU revision\t: 1
"""


class _CpuInfo:
    text = ""

    def __init__(self, path: str) -> None:
        self.path = path

    def read_text(self, **_: object) -> str:
        return self.text


@pytest.mark.parametrize("text, signature", [
    (X86_CPUINFO, {"family": 25, "model": 17, "stepping": 1}),
    (ARM_CPUINFO, {"implementer": 0x41, "variant": 1, "part": 0xD40, "revision": 1}),
    ("processor\t: 0\nflags\t: avx2\n", None),
])
def test_the_signature_is_read_from_proc_cpuinfo(monkeypatch: pytest.MonkeyPatch, text: str,
                                                 signature: dict[str, int] | None) -> None:
    monkeypatch.setattr(_CpuInfo, "text", text)
    monkeypatch.setattr(envinfo, "Path", _CpuInfo)
    assert envinfo.machine_info()["cpu_signature"] == signature


def test_the_runners_table_names_the_core_and_its_numbers() -> None:
    from tfperf.analyse import cpu_text
    assert cpu_text(GENOA) == "AMD EPYC (Zen 4: family 25, model 17, stepping 1)"
    assert cpu_text(TURIN_BEFORE_SIGNATURES) == "AMD EPYC (Zen 5, told by the instruction sets TensorFlow listed)"
    assert cpu_text(XEON) == "Intel(R) Xeon(R) Processor (family and model not recorded)"
    assert cpu_text(XEON_F6M167) == "Intel(R) Xeon(R) Processor (family 6, model 167, stepping 1)"


# A Xeon whose numbers are outside the tables (a VM may report numbers no real Xeon with AMX
# has), and the published Xeon measured before the numbers were read.
XEON_F6M167 = {**XEON, "cpu_signature": {"family": 6, "model": 167, "stepping": 1}}


class _Runner:
    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env

    def latest_environment(self) -> dict[str, Any]:
        return self.env


class _Runners:
    def __init__(self, **envs: dict[str, Any]) -> None:
        self.runners = {label.replace("_", "-"): _Runner(env) for label, env in envs.items()}


def test_two_cpus_are_never_given_one_name() -> None:
    from tfperf.analyse import hardware_name
    names = {hardware_name(_Runner(env)) for env in (XEON, XEON_F6M167, GENOA, TURIN)}  # type: ignore[arg-type]
    assert names == {"2-core Intel Xeon (AMX)", "2-core Intel Xeon family 6 model 167 (AMX)",
                     "2-core AMD EPYC Zen 4 (AVX-512)", "2-core AMD EPYC Zen 5 (AVX-512)"}


def test_a_cpu_measured_before_its_numbers_were_read_may_be_one_with_a_cpu_that_reports_them() -> None:
    assert hardware.may_be_one_cpu(XEON, XEON_F6M167) and hardware.may_be_one_cpu(XEON_F6M167, XEON)
    assert hardware.cpu_identity(XEON) != hardware.cpu_identity(XEON_F6M167)      # still two runners
    assert not hardware.may_be_one_cpu(XEON, XEON)                                # one identity: one runner
    assert not hardware.may_be_one_cpu(GENOA, TURIN)                              # both numbered: two CPUs
    assert not hardware.may_be_one_cpu(EPYC_ZEN3, {**EPYC_ZEN4, "cpu_signature": GENOA["cpu_signature"]})
    assert not hardware.may_be_one_cpu(XEON, {**XEON_F6M167, "cores": 4})
    assert not hardware.may_be_one_cpu(TURIN_BEFORE_SIGNATURES, TURIN)            # named by its instruction sets


def test_the_runners_page_says_when_two_runners_may_be_one_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace as NS

    from tfperf.analyse import Finding, maybe_one_cpu
    from tfperf.render.blocks import blocks
    from tfperf.render.blocks.blocks import _maybe_one_cpu_note
    ds = _Runners(xeon_old=XEON, xeon_new=XEON_F6M167, zen4=GENOA)
    assert maybe_one_cpu(ds) == [("xeon-old", "xeon-new")]                        # type: ignore[arg-type]
    def row(old: Finding, new: Finding) -> NS:
        return NS(answer=NS(runners=[NS(runner="xeon-old", finding=old), NS(runner="xeon-new", finding=new)]))
    monkeypatch.setattr(blocks, "headline_findings", lambda ds, order: [
        row(Finding.FASTER, Finding.FASTER), row(Finding.SAME, Finding.UNCLEAR), row(Finding.NO_DATA, Finding.SLOWER)])
    note = _maybe_one_cpu_note(type("Ctx", (), {"ds": ds, "topic_order": ()})())  # type: ignore[arg-type]
    assert "Of the 2 claims both measured, they give the same answer on 1." in note
    assert "Two runners that may be one CPU" in note and "xeon-old" in note and "xeon-new" in note
    assert "2-core Intel Xeon family 6 model 167 (AMX)" in note and "zen4" not in note
    assert _maybe_one_cpu_note(type("Ctx", (), {"ds": _Runners(a=XEON, b=GENOA), "topic_order": ()})()) == ""   # type: ignore[arg-type]
