"""The single-instance lock: one holder at a time, dead holders detected, never trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tuibot.system.instance import Holder, InstanceLock, process_start


def dead_pid() -> int:
    """The PID of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def write_lock(path: Path, pid: int, created: float, mode: str = "headless") -> None:
    path.write_text(
        json.dumps({"pid": pid, "created": created, "mode": mode, "since": time.time()}),
        encoding="utf-8",
    )


def test_two_locks_are_never_both_held(tmp_path: Path) -> None:
    first, second = InstanceLock(tmp_path / "tuibot.lock"), InstanceLock(tmp_path / "tuibot.lock")
    assert first.acquire("headless") is None and first.held
    holder = second.acquire("tui")
    assert holder is not None and not second.held
    assert holder.pid == os.getpid() and holder.mode == "headless"
    first.release()
    assert second.acquire("tui") is None and second.held
    assert first.acquire("headless") is not None
    second.release()


def test_a_stale_lock_of_a_dead_process_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "tuibot.lock"
    pid = dead_pid()
    write_lock(path, pid, created=time.time() - 60)
    lock = InstanceLock(path)
    assert lock.holder() is None  # not reported as running
    assert lock.acquire("tui") is None
    assert lock.replaced is not None and lock.replaced.pid == pid
    assert json.loads(path.read_text(encoding="utf-8"))["pid"] == os.getpid()
    lock.release()


def test_a_recycled_pid_is_not_taken_for_the_holder(tmp_path: Path) -> None:
    """The PID runs, but a process started at another time: the lock is stale."""
    path = tmp_path / "tuibot.lock"
    parent = os.getppid()
    started = process_start(parent)
    assert started is not None
    write_lock(path, parent, created=started - 3600)
    assert not Holder.from_text(path.read_text(encoding="utf-8")).alive()  # type: ignore[union-attr]
    lock = InstanceLock(path)
    assert lock.acquire("headless") is None
    assert lock.replaced is not None and lock.replaced.pid == parent
    lock.release()


def test_a_live_holder_named_in_the_file_wins_even_without_its_flock(tmp_path: Path) -> None:
    """A file naming a live process (say, on a file system without flock) is trusted."""
    path = tmp_path / "tuibot.lock"
    parent = os.getppid()
    started = process_start(parent)
    assert started is not None
    write_lock(path, parent, created=started)
    holder = InstanceLock(path).acquire("tui")
    assert holder is not None and holder.pid == parent
    assert "pid" in holder.describe()


def test_a_process_that_dies_holding_the_lock_leaves_it_free(tmp_path: Path) -> None:
    path = tmp_path / "tuibot.lock"
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from tuibot.system.instance import InstanceLock\n"
        f"assert InstanceLock(Path({str(path)!r})).acquire('headless') is None\n"
        "print('held', flush=True)\n"
        "os._exit(0)\n"  # no release: as if killed
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30
    )
    assert result.stdout.strip() == "held", result.stderr
    assert json.loads(path.read_text(encoding="utf-8"))["pid"] != os.getpid()
    lock = InstanceLock(path)
    assert lock.acquire("tui") is None
    assert lock.replaced is not None
    lock.release()


def test_a_holder_that_exited_but_was_not_reaped_counts_as_dead(tmp_path: Path) -> None:
    """A zombie still has its PID and start time, but no files and no lock."""
    import psutil

    path = tmp_path / "tuibot.lock"
    code = (
        "import os\nfrom pathlib import Path\nfrom tuibot.system.instance import InstanceLock\n"
        f"assert InstanceLock(Path({str(path)!r})).acquire('headless') is None\nos._exit(0)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the child never exited"
            time.sleep(0.02)
        lock = InstanceLock(path)
        assert lock.acquire("tui") is None
        assert lock.replaced is not None and lock.replaced.pid == child.pid
        lock.release()
    finally:
        child.wait()
