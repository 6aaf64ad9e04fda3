"""The store's Windows locks (msvcrt.locking on one byte, tfperf.store.lock.ByteLocks) run on
Linux with a stand-in msvcrt (tests/fake_msvcrt.py): the results file's lock and the
scenario claims, in this process and between processes. The POSIX locks, which Linux
uses, stay what they were (test_store_faults.py, test_faults_concurrent.py)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType

import fake_msvcrt
import pytest

from tfperf.store import claims, lock
from tfperf.store.claims import Claims
from tfperf.store.lock import ByteLocks

TESTS = Path(__file__).resolve().parents[1]
BENCH = TESTS.parent / "bench"

# A child process that uses the Windows locks too (the stand-in), then runs BODY.
WINDOWS_CHILD = "import os, sys, time\n" + fake_msvcrt.CHILD_PRELUDE


def _child(body: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCH), str(TESTS)])}
    script = textwrap.dedent(WINDOWS_CHILD) + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(path: Path, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"timed out waiting for {path}"
        time.sleep(0.01)


@pytest.fixture()
def msvcrt(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """This process takes the store's locks the Windows way (through the stand-in)."""
    fake = fake_msvcrt.make()
    locks = ByteLocks(fake, retry_s=0.01)
    monkeypatch.setattr(lock, "LOCKING", lock.FirstByte(locks))
    monkeypatch.setattr(claims, "RECORD_LOCKS", locks)
    return fake


def test_linux_keeps_the_posix_locks() -> None:
    assert isinstance(lock.LOCKING, lock.Flock)
    assert isinstance(claims.RECORD_LOCKS, claims.Lockf)


def test_windows_gets_the_msvcrt_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_msvcrt.make()
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    with monkeypatch.context() as m:
        m.setattr(sys, "platform", "win32")
        chosen_lock, chosen_claims = lock._for_platform(), claims._for_platform()
    assert isinstance(chosen_lock, lock.FirstByte) and chosen_lock.locks.msvcrt is fake
    assert isinstance(chosen_claims, ByteLocks) and chosen_claims.msvcrt is fake


def test_the_results_lock_is_byte_zero_of_the_lock_file(tmp_path: Path, msvcrt: ModuleType) -> None:
    path = tmp_path / "results" / "r" / "quick.json"
    with lock.locked(path) as held:
        assert held == path
        assert msvcrt.calls == [("nblock", 0, 1)]
    assert msvcrt.calls == [("nblock", 0, 1), ("unlock", 0, 1)]
    assert lock.lock_path(path).exists() and lock.lock_path(path).stat().st_size == 0


def test_the_results_lock_is_released_when_the_body_raises(tmp_path: Path, msvcrt: ModuleType) -> None:
    path = tmp_path / "quick.json"
    with pytest.raises(ValueError, match="body"), lock.locked(path):
        raise ValueError("body")
    with lock.locked(path):           # free again: would wait forever otherwise
        pass
    assert msvcrt.calls.count(("unlock", 0, 1)) == 2


def test_a_lock_that_was_never_taken_is_not_released(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     msvcrt: ModuleType) -> None:
    """Windows refuses to unlock a region that is not held: an interrupted wait (a signal
    handler that raises) must not end in that error instead of its own."""
    def interrupted(fd: int, mode: int, nbytes: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(msvcrt, "locking", interrupted)
    with pytest.raises(KeyboardInterrupt), lock.locked(tmp_path / "quick.json"):
        pytest.fail("the body ran without the lock")


def test_an_error_other_than_a_held_region_is_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     msvcrt: ModuleType) -> None:
    def broken(fd: int, mode: int, nbytes: int) -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(msvcrt, "locking", broken)
    with pytest.raises(OSError, match="Bad file descriptor"), lock.locked(tmp_path / "quick.json"):
        pass


def test_the_results_lock_waits_for_another_process(tmp_path: Path, msvcrt: ModuleType) -> None:
    path, held, go = tmp_path / "quick.json", tmp_path / "held", tmp_path / "go"
    child = _child("""
        path, held, go = sys.argv[1:]
        with lock.locked(path):
            open(held, "w").close()
            while not os.path.exists(go):
                time.sleep(0.01)
            time.sleep(0.3)
    """, str(path), str(held), str(go))
    try:
        _wait_for(held)
        go.touch()
        t0 = time.monotonic()
        with lock.locked(path):
            waited = time.monotonic() - t0
    finally:
        _, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    assert waited > 0.2, "took the lock while the other process held it"
    assert msvcrt.calls.count(("nblock", 0, 1)) > 1, "no retry: LK_LOCK would give up after 10 s"


def test_a_claim_is_one_byte_and_a_held_key_is_taken_again_without_asking(tmp_path: Path,
                                                                          msvcrt: ModuleType) -> None:
    with Claims(tmp_path / "quick.json") as mine:
        assert mine.take("topic/a")
        assert mine.take("topic/a"), "Windows would refuse the same handle a second lock"
        mine.wait("topic/a")
        assert [c[0] for c in msvcrt.calls] == ["nblock"]
        offset = msvcrt.calls[0][1]
        assert offset == claims._offset("topic/a") and msvcrt.calls[0][2] == 1
        mine.release("topic/a")
        mine.release("topic/a")            # not held any more: nothing to unlock
        assert msvcrt.calls[1:] == [("unlock", offset, 1)]
        assert mine.take("topic/a")


def test_claims_exclude_another_process_and_wait_for_it(tmp_path: Path, msvcrt: ModuleType) -> None:
    path, held, go = tmp_path / "quick.json", tmp_path / "held", tmp_path / "go"
    child = _child("""
        path, held, go = sys.argv[1:]
        with claims.Claims(path) as other:
            assert other.take("topic/a") and other.take("topic/b")
            open(held, "w").close()
            while not os.path.exists(go):
                time.sleep(0.01)
            time.sleep(0.3)
            other.release("topic/a")
            time.sleep(0.3)
    """, str(path), str(held), str(go))
    try:
        _wait_for(held)
        with Claims(path) as mine:
            assert not mine.take("topic/a") and not mine.take("topic/b")
            assert mine.take("topic/c")
            go.touch()
            t0 = time.monotonic()
            mine.wait("topic/a")                        # the other run releases it after 0.3 s
            assert 0.2 < time.monotonic() - t0 < 20
            mine.wait("topic/b")                        # freed when the other run exits
    finally:
        _, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
