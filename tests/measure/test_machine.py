"""The harness's machine and process figures come from psutil (tfperf.measure.envinfo), on
Linux equal to what /proc says, and a figure psutil cannot give is None (stored as unknown),
never 0. No TensorFlow: real processes of this machine, and psutil replaced where a test
needs a platform this is not."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path
from typing import Any

import psutil
import pytest

from tfperf.measure import envinfo
from tfperf.measure import envinfo as machine
from tfperf.measure.supervise import pool
from tfperf.measure.supervise import records as hygiene
from tfperf.measure.worker import serve

linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")


def _ticks() -> float:
    return float(os.sysconf("SC_CLK_TCK"))


def _proc_busy_s() -> float:
    """The machine's busy seconds as /proc/stat gives them (its first 8 fields less idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / _ticks()


def _proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
    return sum(int(x) for x in fields[11:15]) / _ticks()


def _proc_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# ---------------------------------------------------------------- equal to /proc on Linux

@linux_only
def test_memory_is_meminfos_total_and_sysconfs() -> None:
    meminfo = next(line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal:"))
    assert machine.memory_bytes() == int(meminfo.split()[1]) * 1024
    assert machine.memory_bytes() == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert envinfo.machine_info()["memory_bytes"] == machine.memory_bytes()


@linux_only
def test_resident_memory_is_vmrss() -> None:
    child = subprocess.Popen([sys.executable, "-c", "b = bytearray(64 * 2**20); import time; time.sleep(30)"])
    try:
        end = time.monotonic() + 20
        while _proc_rss_bytes(child.pid) < 64 * 2**20 and time.monotonic() < end:
            time.sleep(0.05)
        before = _proc_rss_bytes(child.pid)
        rss = machine.rss_bytes(child.pid)
        after = _proc_rss_bytes(child.pid)
        assert rss is not None and min(before, after) <= rss <= max(before, after)
        assert pool._rss_mb(child.pid) == pytest.approx(rss / 2**20, abs=1.0)
    finally:
        child.kill()
        child.wait()


@linux_only
def test_busy_time_and_our_cpu_time_are_proc_stats() -> None:
    """Read between two /proc readings, so the clock moving on between reads cannot fail it."""
    for _ in range(3):
        before = _proc_busy_s(), _proc_cpu_s(os.getpid())
        busy, ours = machine.busy_cpu_s(), machine.process_cpu_s([os.getpid()])
        after = _proc_busy_s(), _proc_cpu_s(os.getpid())
        assert busy is not None
        assert before[0] - 1e-6 <= busy <= after[0] + 1e-6
        assert before[1] - 1e-6 <= ours <= after[1] + 1e-6


@linux_only
def test_load_averages_are_getloadavgs() -> None:
    assert machine.load_averages() == [round(x, 2) for x in os.getloadavg()]


@linux_only
def test_a_quiet_scenarios_record_is_what_proc_gave() -> None:
    """hygiene's snapshot: load, and others' share computed from psutil's counters, which
    bracket the /proc counters read around it."""
    before_proc = _proc_busy_s()
    snap = hygiene.snapshot([])
    after_proc = _proc_busy_s()
    assert snap["_busy"] is not None and before_proc - 1e-6 <= snap["_busy"] <= after_proc + 1e-6
    assert isinstance(snap["load"], list) and len(snap["load"]) == 3


# ---------------------------------------------------------------- they come from psutil

class _FakeProcess:
    """psutil.Process as a test sets it: fixed resident memory and CPU times."""

    rss = 123 * 2**20
    times = (1.5, 0.5, 0.25, 0.25)

    def __init__(self, pid: int | None = None) -> None:
        self.pid = pid

    def memory_info(self) -> Any:
        return namedtuple("mem", "rss vms")(self.rss, 0)

    def cpu_times(self) -> Any:
        return namedtuple("t", "user system children_user children_system")(*self.times)


def test_every_figure_comes_from_psutil(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each figure follows psutil when psutil says something else than this machine."""
    times = namedtuple("scputimes", "user nice system idle iowait irq softirq steal guest guest_nice")
    monkeypatch.setattr(psutil, "virtual_memory", lambda: namedtuple("vm", "total available")(8 * 2**30, 0))
    monkeypatch.setattr(psutil, "cpu_times", lambda: times(10.0, 1.0, 2.0, 50.0, 3.0, 0.5, 0.5, 1.0, 4.0, 0.0))
    monkeypatch.setattr(psutil, "getloadavg", lambda: (1.234, 0.5, 0.25))
    monkeypatch.setattr(psutil, "Process", _FakeProcess)
    assert envinfo.machine_info()["memory_bytes"] == 8 * 2**30
    assert machine.default_memory_limit_mb() == int(8 * 1024 * machine.MEMORY_SHARE)
    assert pool.default_max_live() == max(2, int(8 * 1024 * pool.MEMORY_FOR_WORKERS // pool.WORKER_MB))
    assert pool._rss_mb(4242) == 123
    snap = hygiene.snapshot([7, 8])
    # busy: user + nice + system + irq + softirq + steal (guest is inside user; idle, iowait are not busy)
    assert snap["_busy"] == pytest.approx(10 + 1 + 2 + 0.5 + 0.5 + 1)
    assert snap["_ours"] == pytest.approx(3 * 2.5)          # this process and workers 7 and 8
    assert snap["load"] == [1.23, 0.5, 0.25]


def test_windows_cpu_times_count_interrupts_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows' interrupt and DPC times are inside its system time: not added again."""
    times = namedtuple("scputimes", "user system idle interrupt dpc")
    monkeypatch.setattr(psutil, "cpu_times", lambda: times(10.0, 4.0, 80.0, 1.0, 0.5))
    assert machine.busy_cpu_s() == pytest.approx(14.0)


# ---------------------------------------------------------------- unknown is None, never 0

def _raise(*_: object, **__: object) -> Any:
    raise psutil.AccessDenied()


def test_what_psutil_cannot_give_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(psutil, "virtual_memory", _raise)
    monkeypatch.setattr(psutil, "cpu_times", _raise)
    monkeypatch.setattr(psutil, "getloadavg", _raise)
    monkeypatch.setattr(psutil, "Process", _raise)
    assert envinfo.machine_info()["memory_bytes"] is None
    assert machine.default_memory_limit_mb() is None          # no cap rather than a cap of 0
    assert pool.default_max_live() == 4
    assert machine.rss_bytes(os.getpid()) is None and pool._rss_mb(os.getpid()) is None
    snap = hygiene.snapshot([os.getpid()])
    assert hygiene.public(snap) == {"load": None, "governor": snap["governor"], "freq_mhz": snap["freq_mhz"],
                                    "probe_ms": snap["probe_ms"]}
    assert hygiene.others_share(snap, hygiene.snapshot([]), cores=2) is None
    assert machine.process_cpu_s([os.getpid()]) == 0.0       # a process gone counts nothing


def test_a_gone_process_has_no_resident_memory() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert machine.rss_bytes(child.pid) is None


def test_windows_load_is_unknown_while_psutil_warms_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """psutil emulates the load on Windows and answers zeros for its first 5 seconds."""
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.setattr(machine, "_load_started", None)
    monkeypatch.setattr(psutil, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert machine.load_averages() is None
    monkeypatch.setattr(machine, "_load_started", time.monotonic() - 10)
    assert machine.load_averages() == [0.0, 0.0, 0.0]          # after the warm-up a zero is a zero


# ---------------------------------------------------------------- the parent watch and the tree kill

@pytest.mark.parametrize("ppid_changes", [True, False], ids=["POSIX: getppid changes", "Windows: psutil alone"])
def test_the_parent_watch_sees_the_parent_go(tmp_path: Path, ppid_changes: bool) -> None:
    """A worker whose parent is killed exits (serve.exit_with_parent): a child whose parent,
    a shell, is killed while the child sleeps. With os.getppid() frozen, as it is on Windows,
    psutil's view of the parent alone must see it go."""
    flag = tmp_path / "exited"
    freeze = "" if ppid_changes else "ppid = os.getppid(); os.getppid = lambda: ppid\n"
    script = (f"import os, sys, time; sys.path.insert(0, {str(Path(serve.__file__).parents[3])!r})\n"
              "from tfperf.measure.worker import serve\n"
              + freeze +
              "serve.exit_with_parent(0.05)\n"
              f"open({str(tmp_path / 'started')!r}, 'w').close()\n"
              "time.sleep(30)\n"
              f"open({str(flag)!r}, 'w').close()\n")
    (tmp_path / "w.py").write_text(script)
    parent = subprocess.Popen(["sh", "-c", f"{sys.executable} {tmp_path / 'w.py'} & echo $!; wait"],
                              stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = psutil.Process(int(parent.stdout.readline()))
    try:
        end = time.monotonic() + 30
        while not (tmp_path / "started").exists():
            assert time.monotonic() < end, "the child did not start"
            time.sleep(0.02)
        parent.kill()
        parent.wait()
        end = time.monotonic() + 10
        while machine.is_running(child):
            assert time.monotonic() < end, "the child outlived its parent"
            time.sleep(0.05)
        assert not flag.exists()
    finally:
        if machine.is_running(child):
            child.kill()


def test_is_running_knows_a_dead_process() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    proc = psutil.Process(child.pid)
    assert machine.is_running(proc)
    child.kill()
    child.wait()
    assert not machine.is_running(proc)


def test_a_parent_psutil_may_not_look_at_counts_as_running(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch must never end a live parent's worker because psutil was refused a look."""
    proc = psutil.Process(os.getpid())
    monkeypatch.setattr(psutil.Process, "status", _raise)
    assert machine.is_running(proc)


def test_kill_tree_reaches_a_grandchild(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    code = ("import subprocess, sys, time\n"
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(c.pid))\n"
            "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        end = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < end
            time.sleep(0.02)
        grandchild = psutil.Process(int(pid_file.read_text()))
        machine.kill_tree(proc.pid)
        proc.wait(timeout=10)
        grandchild.wait(timeout=10)
        assert not machine.is_running(grandchild)
    finally:
        proc.kill()
        proc.wait()
