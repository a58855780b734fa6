"""The engine's runner for the app: every turn is a Textual worker, grouped per chat.

Workers are cancelled with the app and show up in Textual's devtools by description.
The engine wants a handle it can cancel and be told about when the work ends (a turn
cancelled before it began must still settle its caller); :class:`WorkerHandle` gives
both over a :class:`~textual.worker.Worker`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from textual.dom import DOMNode
from textual.worker import Worker


class WorkerHandle:
    """A started worker the engine can cancel, await and watch for its end."""

    def __init__(self) -> None:
        self.worker: Worker[None] | None = None
        self.task: asyncio.Task[Any] | None = None
        """The asyncio task the worker runs in, once it has begun."""
        self._watch: asyncio.Task[None] | None = None
        self._callbacks: list[Callable[[WorkerHandle], object]] = []
        self._unstarted: list[Coroutine[Any, Any, None]] = []
        """Coroutines to close if the worker is cancelled before it begins."""

    def cancel(self) -> None:
        """Cancel the worker (the engine settles what it was doing)."""
        if self.worker is not None:
            self.worker.cancel()

    async def wait(self) -> None:
        """Wait until the worker has ended, however it ended."""
        if self.worker is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self.worker.wait()

    def add_done_callback(self, callback: Callable[[WorkerHandle], object]) -> None:
        """Call ``callback(handle)`` once the worker has ended."""
        self._callbacks.append(callback)
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._watch_end())

    async def _watch_end(self) -> None:
        await self.wait()
        if self.task is None:  # cancelled before it began: nothing will ever await these
            for coro in self._unstarted:
                coro.close()
        for callback in self._callbacks:
            callback(self)


def worker_runner(node: DOMNode) -> Callable[[Coroutine[Any, Any, None], str, str], WorkerHandle]:
    """A runner that starts each turn as a worker of ``node`` in the chat's group."""

    def run(coro: Coroutine[Any, Any, None], group: str, description: str) -> WorkerHandle:
        handle = WorkerHandle()

        async def body() -> None:
            handle.task = asyncio.current_task()
            await coro

        started = body()
        handle._unstarted = [started, coro]
        handle.worker = node.run_worker(
            started, group=group or "commands", description=description, exit_on_error=False
        )
        return handle

    return run
