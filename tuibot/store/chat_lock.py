"""One turn at a time per chat, across processes: a lock file beside each chat's JSONL.

The engine's per-chat ``asyncio.Lock`` keeps the turns of one process apart; two
processes (``tuibot ask --chat X`` twice, or ``ask`` beside the app) would still
interleave, each answering a history without the other's turn. So a turn also holds
``.<id>.jsonl.lock`` next to the chat file for as long as it runs.

The lock is :class:`tuibot.system.instance.InstanceLock` on that file — ``flock``, dropped by
the kernel when its holder dies, and the holder's PID written inside for messages — so
the two locks share one tested mechanism. Here ``flock`` alone decides
(``content_decides=False``): taking the lock costs no ``fsync`` and no ``psutil``
import, and where the platform has no ``flock`` (Windows) there is no turn lock.

A waiting process polls it with a non-blocking ``flock`` from the event loop (nothing
blocks, and a cancelled wait simply stops), saying once who holds the chat, and gives up
after :attr:`ChatLocks.wait` seconds with :class:`ChatInUse`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from tuibot.system.instance import Holder, InstanceLock

POLL_S = 0.1
"""How often a waiting turn tries the lock again: the longest a freed chat stays idle."""
MODE = "turn"
"""What the lock file says its holder is doing."""


def lock_path(chat_file: Path) -> Path:
    """The lock file of a chat file: ``c_1.jsonl`` -> ``.c_1.jsonl.lock`` (hidden, same folder)."""
    return chat_file.with_name(f".{chat_file.name}.lock")


class ChatInUse(Exception):
    """Another process held the chat for longer than this one was willing to wait."""

    def __init__(self, chat: str, holder: Holder, waited: float) -> None:
        self.chat, self.holder, self.waited = chat, holder, waited
        super().__init__(
            f"chat {chat} is in use by another tuibot (pid {holder.pid}); gave up after "
            f"{waited:g} s (wait longer with --wait SECONDS, or try again when it is done)"
        )


def in_use_message(chat: str, holder: Holder) -> str:
    """What a person reads while a turn waits for the chat: who holds it."""
    return f"chat {chat} is in use by another tuibot (pid {holder.pid}); waiting…"


class ChatLocks:
    """The cross-process turn locks of one engine.

    ``chat_file`` maps a chat id to its JSONL path; ``on_wait`` is told once per turn that
    has to wait, with the process that holds the chat.
    """

    def __init__(
        self, chat_file: Callable[[str], Path], on_wait: Callable[[str, Holder], None]
    ) -> None:
        self._chat_file = chat_file
        self._on_wait = on_wait
        self.wait: float | None = None
        """Seconds a turn waits for a chat another process holds; None waits until it is
        free (the app: the person sees the notice and can interrupt)."""

    @asynccontextmanager
    async def hold(self, chat: str) -> AsyncIterator[None]:
        """Hold the chat's lock for the block, waiting for it without blocking the loop.

        Raises :class:`ChatInUse` past :attr:`wait`. A chat with no file has nothing to
        protect (the turn then fails on the missing chat): no lock file is made for it.
        """
        path = self._path(chat)
        if path is None:
            yield
            return
        lock = InstanceLock(lock_path(path), content_decides=False)
        await self._take(chat, lock)
        try:
            yield
        finally:
            lock.release()

    async def _take(self, chat: str, lock: InstanceLock) -> None:
        """Take ``lock``, polling while another process holds it."""
        holder = lock.acquire(MODE)
        if holder is None:
            return
        self._on_wait(chat, holder)
        started = time.monotonic()
        while holder is not None:
            waited = time.monotonic() - started
            if self.wait is not None and waited >= self.wait:
                raise ChatInUse(chat, holder, self.wait)
            left = POLL_S if self.wait is None else min(POLL_S, self.wait - waited)
            await asyncio.sleep(left)
            holder = lock.acquire(MODE)

    @contextmanager
    def hold_if_free(self, chat: str) -> Iterator[bool]:
        """Hold the chat's lock for the block if nobody holds it now; yields whether held."""
        path = self._path(chat)
        lock = InstanceLock(lock_path(path), content_decides=False) if path else None
        if lock is not None and lock.acquire(MODE) is not None:
            yield False
            return
        try:
            yield True
        finally:
            if lock is not None:
                lock.release()

    def _path(self, chat: str) -> Path | None:
        """The chat's file, or None when there is none (an invalid id has no file)."""
        try:
            path = self._chat_file(chat)
        except ValueError:
            return None
        return path if path.is_file() else None
