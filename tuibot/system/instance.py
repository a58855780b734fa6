"""The single-instance lock: one tuibot process per data folder runs scheduled work.

Jobs, the heartbeat and the recovery of work cut off by the last exit must happen in one
process only, or a job would run twice and two processes would resume the same
delegation. Whoever does them (the app, or ``tuibot run --headless``) holds
``<data>/tuibot.lock`` for as long as it runs; any other process leaves them alone and
can say who holds the lock.

Two mechanisms, so neither has to be trusted alone:

- ``flock`` on the file, held open for the process's life. The kernel drops it when the
  process dies, however it dies, so a crash never leaves a lock behind (POSIX only).
- The file's content: the holder's PID, its process start time (so a recycled PID is not
  taken for the holder) and what it is. It names the holder for messages, and on a
  platform without ``flock`` it alone decides: a PID that is not running, or runs a
  process started at another time, is a stale lock from a dead process, and is replaced.

The file is written in place, never replaced: a new inode would carry no ``flock``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START_SLACK = 1.0
"""Seconds two readings of one process's start time may differ by (clock rounding)."""


@dataclass(frozen=True)
class Holder:
    """The process that holds (or held) the lock, as its file says."""

    pid: int
    created: float
    """The process's start time (``psutil.Process.create_time``)."""
    mode: str
    """``tui`` or ``headless``."""
    since: float
    """When it took the lock."""

    def describe(self) -> str:
        """``a headless tuibot (pid 4242, since 09:12)``."""
        kind = "headless tuibot" if self.mode == "headless" else "tuibot app"
        when = time.strftime("%H:%M", time.localtime(self.since))
        return f"a {kind} (pid {self.pid}, since {when})"

    def alive(self) -> bool:
        """Whether this very process still runs (a recycled PID does not count)."""
        started = process_start(self.pid)
        return started is not None and abs(started - self.created) <= START_SLACK

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "created": self.created, "mode": self.mode, "since": self.since}

    @classmethod
    def from_text(cls, text: str) -> Holder | None:
        """The holder a lock file names; None for an empty or unreadable one."""
        try:
            data = json.loads(text)
            return cls(
                int(data["pid"]), float(data["created"]), str(data["mode"]), float(data["since"])
            )
        except (ValueError, KeyError, TypeError):
            return None


def process_start(pid: int) -> float | None:
    """When process ``pid`` started, or None when no such process runs (a zombie, which
    has exited but not been reaped, runs no more and holds no files)."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(process.create_time())
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, ValueError):
        return None


class InstanceLock:
    """``<data>/tuibot.lock``; :meth:`acquire` takes it or says who has it."""

    def __init__(self, path: Path, *, content_decides: bool = True) -> None:
        self.path = path
        self._content_decides = content_decides
        """False for locks where ``flock`` alone decides (a chat's turn lock, taken every
        turn): the content only names the holder, so it is written without ``fsync`` or
        the process start time (no ``psutil``), and a platform without ``flock`` has no
        lock."""
        self._fd: int | None = None
        self.replaced: Holder | None = None
        """The stale holder whose lock :meth:`acquire` replaced, for a log line."""

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self, mode: str) -> Holder | None:
        """Take the lock; None when taken, else the live process that holds it.

        A lock file naming a dead process (or a recycled PID) is not trusted: it is
        replaced, and :attr:`replaced` names it.
        """
        if self._fd is not None:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            holder = self._claim(fd)
        except BaseException:
            os.close(fd)
            raise
        if holder is not None:
            os.close(fd)
            return holder
        self._fd = fd
        self._write(fd, mode)
        return None

    def _claim(self, fd: int) -> Holder | None:
        """Lock ``fd``; the live holder when another process has it."""
        previous = Holder.from_text(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
        try:
            import fcntl
        except ImportError:  # no flock: the file's content alone decides
            fcntl = None  # type: ignore[assignment]
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                current = Holder.from_text(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
                return current or Holder(0, 0.0, "unknown", time.time())
        if not self._content_decides:
            return None
        if previous is not None and previous.pid != os.getpid() and previous.alive():
            if fcntl is not None:  # a live holder whose flock we got: do not trust the flock
                fcntl.flock(fd, fcntl.LOCK_UN)
            return previous
        self.replaced = previous if previous is not None and previous.pid != os.getpid() else None
        return None

    def _write(self, fd: int, mode: str) -> None:
        now = time.time()
        created = (process_start(os.getpid()) or now) if self._content_decides else now
        me = Holder(os.getpid(), created, mode, now)
        data = (json.dumps(me.to_json()) + "\n").encode("utf-8")
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        if self._content_decides:
            os.fsync(fd)

    def holder(self) -> Holder | None:
        """Who holds the lock now: a live process, or None when nobody does."""
        if self._fd is not None:
            return Holder.from_text(os.pread(self._fd, 4096, 0).decode("utf-8", "replace"))
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError:
            return None
        found = Holder.from_text(text)
        return found if found is not None and found.alive() else None

    def release(self) -> None:
        """Give the lock up (the file stays, emptied, for the next holder)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        with contextlib.suppress(ImportError, OSError):
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
