"""Run a shell command so that everything it starts can be found and ended.

exec's promise is that nothing it started outlives it: not on a timeout, not when the
turn is cancelled, and not when the command finishes but left something running in the
background. A process-group kill is not enough — ``setsid`` leaves the group and a
double fork leaves the parent chain. So each run is tracked two ways:

- **the tree**: the command runs under a child subreaper (see :mod:`reaper`), which
  adopts orphans, so double-forked and ``setsid`` processes stay below it, even with a
  cleared environment;
- **the mark**: every process of the run inherits ``TUIBOT_EXEC_RUN=<random id>``, so
  one that escaped the tree (its reaper was killed, or on a platform without
  subreapers) is still found by scanning the process table.

Ending a run: SIGTERM to every member, up to ``KILL_GRACE`` seconds to exit, then SIGKILL
rounds (re-scanning each round, so a child forked meanwhile is caught) until none is
left. The reaper reaps the adopted zombies; tuibot waits only for the reaper it started,
so asyncio's child watcher is never bypassed. What remains out of reach — a process that
clears its environment *and* gets out of the tree, or one running as another user — is
documented in docs/bundled-tools.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from tuibot.toolkit.reaper import SOURCE as REAPER_SOURCE

MARKER = "TUIBOT_EXEC_RUN"
"""Environment variable carrying the run id that every process of a run inherits."""
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""
KILL_ROUNDS = 50
"""SIGKILL sweeps at most, each catching what the previous one's victims forked."""
SUBREAPERS = sys.platform == "linux"
"""Whether the reaper can adopt orphans (``PR_SET_CHILD_SUBREAPER``, Linux 3.4+)."""
SETTLE = 1.0
"""Seconds to read output still in the pipe once every member is gone."""


@dataclass(frozen=True)
class Outcome:
    """How a run ended, for exec to put in words."""

    exit_code: int | None
    """The shell's exit code (negative: killed by that signal); None if unknown."""
    timed_out: bool = False
    """The timeout ended it."""
    left_running: int = 0
    """Processes the command left behind when the shell exited, now ended."""
    survivors: int = 0
    """Processes that could not be ended (e.g. another user's)."""


async def run_shell(
    command: str, cwd: Path, timeout: float, sink: Callable[[bytes], None]
) -> Outcome:
    """Run ``command`` in ``/bin/sh``; feed its output to ``sink``; end all it started.

    Returns when the shell has exited (or the timeout passed) and every process of the
    run is gone. Cancelling the caller ends the run the same way before the
    cancellation goes on. Raises ``OSError`` when the command cannot be started.
    """
    run = await ShellRun.start(command, cwd)
    reading = asyncio.ensure_future(_pump(run.output, sink))
    try:
        code = await asyncio.wait_for(run.wait_shell(), timeout)
    except TimeoutError:
        _, survivors = await run.finish(reading)
        return Outcome(None, timed_out=True, survivors=survivors)
    except BaseException:  # cancelled: nothing may outlive the turn
        await _through_cancellation(asyncio.ensure_future(run.finish(reading)))
        raise
    ended, survivors = await run.finish(reading)
    return Outcome(code, left_running=ended, survivors=survivors)


class ShellRun:
    """One command under its reaper, with its output and status pipes."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        run_id: str,
        output: tuple[asyncio.StreamReader, asyncio.ReadTransport],
        status: tuple[asyncio.StreamReader, asyncio.ReadTransport],
    ) -> None:
        self.proc = proc
        """The reaper (the only process tuibot itself waits for)."""
        self.run_id = run_id
        self.output, self._output_transport = output
        self._status, self._status_transport = status
        self._reported: bool | None = None
        """Whether the reaper told the shell's status (None: not yet known)."""

    @classmethod
    async def start(cls, command: str, cwd: Path) -> ShellRun:
        """Start the reaper, which starts the shell; both pipes are ours alone."""
        if not sys.executable:
            raise OSError("no Python interpreter to run the process reaper")
        run_id = secrets.token_hex(16)
        out_r, out_w = os.pipe()
        status_r, status_w = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *(sys.executable, "-I", "-S", "-c", REAPER_SOURCE, str(status_w), command),
                cwd=cwd,
                env={**os.environ, MARKER: run_id},
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                pass_fds=(status_w,),
                start_new_session=True,  # no terminal: Ctrl+C in tuibot is not the command's
            )
        except BaseException:
            os.close(out_r)
            os.close(status_r)
            raise
        finally:
            os.close(out_w)
            os.close(status_w)
        return cls(proc, run_id, await _reader(out_r), await _reader(status_r))

    async def wait_shell(self) -> int | None:
        """The shell's exit code once it exits; None if the reaper died without saying."""
        line = await self._status.readline()
        try:
            code = os.waitstatus_to_exitcode(int(line))
        except ValueError:
            self._reported = False
            return None
        self._reported = True
        return code

    def members(self) -> list[psutil.Process]:
        """Every live process of this run: the reaper's tree, and the marked ones when
        the tree may be incomplete (the reaper is gone or cannot adopt)."""
        alive = self.proc.returncode is None
        thorough = not SUBREAPERS or self._reaper_lost()
        return find_members(self.run_id, self.proc.pid if alive else None, thorough=thorough)

    def _reaper_lost(self) -> bool:
        """The reaper died before its work was done (the command killed it)."""
        return self._reported is False or self.proc.returncode not in (None, 0)

    async def finish(self, reading: asyncio.Future[None]) -> tuple[int, int]:
        """End every member, then the reaper; read what output is left; close the pipes.

        Returns (processes ended, processes that could not be ended).
        """
        try:
            victims, survivors = [], 0
            if not await self._ended_alone():
                victims = self.members()
                survivors = await end_processes(victims, self.members)
            await self._end_reaper()
            if self._reaper_lost():  # its orphans went to init: find them by the mark
                strays = self.members()
                survivors = await end_processes(strays, self.members)
                victims += strays
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reading), SETTLE)
        finally:
            reading.cancel()
            self._output_transport.close()
            self._status_transport.close()
        return len(victims), survivors

    async def _ended_alone(self) -> bool:
        """Whether the shell exited and the reaper then ended cleanly on its own.

        A subreaper ends only when it has no children, so (on Linux) nothing of the run
        is left and the process table need not be scanned: the common, quick case.
        """
        if not SUBREAPERS or not self._reported:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 0.05)
        return self.proc.returncode == 0

    async def _end_reaper(self) -> None:
        """The reaper exits once its children are gone; make sure, and reap it."""
        try:
            await asyncio.wait_for(self.proc.wait(), KILL_GRACE)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()


def find_members(run_id: str, reaper_pid: int | None, *, thorough: bool) -> list[psutil.Process]:
    """Live processes below the reaper, plus (``thorough``) all whose environment has the mark.

    The tree alone is complete while a subreaper is alive: an orphan below it is adopted
    by it, never by init. The mark is for when it is not (killed, or no subreapers).
    """
    found: dict[int, psutil.Process] = {}
    if reaper_pid is not None:
        with contextlib.suppress(psutil.Error):
            found = {p.pid: p for p in psutil.Process(reaper_pid).children(recursive=True)}
    if thorough:
        skip = {os.getpid(), reaper_pid}
        for proc in psutil.process_iter():
            if proc.pid not in found and proc.pid not in skip and _marked(proc, run_id):
                found[proc.pid] = proc
    return [proc for proc in found.values() if _alive(proc)]


def _marked(proc: psutil.Process, run_id: str) -> bool:
    """Whether ``proc`` carries this run's mark (unreadable environments do not)."""
    try:
        marked: bool = proc.environ().get(MARKER) == run_id
        return marked
    except (psutil.Error, OSError):
        return False


async def end_processes(
    victims: list[psutil.Process], rescan: Callable[[], list[psutil.Process]]
) -> int:
    """SIGTERM ``victims``, wait up to ``KILL_GRACE``, then SIGKILL what ``rescan`` finds.

    Returns how many could not be ended (they are still there after every round).
    """
    _send(victims, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + KILL_GRACE
    while any(_alive(proc) for proc in victims) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    left = rescan()
    for _ in range(KILL_ROUNDS):
        if not left:
            return 0
        _send(left, signal.SIGKILL)
        await asyncio.sleep(0.01)
        left = rescan()
    return len(left)


def _send(procs: list[psutil.Process], sig: int) -> None:
    """Signal each process; one already gone (or not ours to signal) is skipped."""
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)


def _alive(proc: psutil.Process) -> bool:
    """Running and not a zombie waiting to be reaped."""
    try:
        alive: bool = proc.status() != psutil.STATUS_ZOMBIE
        return alive
    except psutil.Error:
        return False


async def _reader(fd: int) -> tuple[asyncio.StreamReader, asyncio.ReadTransport]:
    """An asyncio stream over the read end of a pipe (which it then owns)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    return reader, transport


async def _pump(stream: asyncio.StreamReader, sink: Callable[[bytes], None]) -> None:
    """Hand every chunk of ``stream`` to ``sink`` until end-of-file."""
    while chunk := await stream.read(65536):
        sink(chunk)


async def _through_cancellation(cleanup: asyncio.Future[object]) -> None:
    """Wait for ``cleanup`` to finish even if this task is cancelled again meanwhile."""
    while not cleanup.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(cleanup)
    cleanup.result()
