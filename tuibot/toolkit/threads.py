"""Blocking work off the event loop, in threads that never hold the process hostage.

``asyncio.to_thread`` uses the loop's executor, whose threads ``asyncio.run`` and the
interpreter wait for at exit: a sync tool stuck in ``time.sleep`` (or a prompt waiting
for Enter) would make Ctrl+C hang until it returned. A daemon thread per call does not,
and cancelling the awaiting task abandons the thread's result instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def run_in_daemon_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``func`` in a daemon thread with the caller's context; await its result."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(outcome)

    def target() -> None:
        try:
            result = context.run(func, *args, **kwargs)
        except BaseException as error:  # handed to the awaiting task, never lost
            caught = error

            def fail() -> None:
                if not future.done():
                    future.set_exception(caught)

            settle(fail)
        else:

            def succeed() -> None:
                if not future.done():
                    future.set_result(result)

            settle(succeed)

    name = getattr(func, "__name__", "work")
    threading.Thread(target=target, name=f"tuibot-{name}", daemon=True).start()
    return await future
