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


def call_with_timeout(func: Callable[[], T], timeout: float, *, name: str) -> T:
    """Run ``func`` in a daemon thread; its result, or ``TimeoutError`` after ``timeout`` s.

    For synchronous callers that must not hang on foreign code (a tool file's import).
    On timeout the thread is abandoned — never joined — and asked to stop with
    :class:`Abandoned` as soon as it runs Python code again (a busy loop stops at once,
    a ``time.sleep`` when it wakes). An exception from ``func`` is raised here.
    """
    outcome: list[tuple[bool, Any]] = []
    lock = threading.Lock()  # the result is handed over, or the thread interrupted: not both
    context = contextvars.copy_context()

    def target() -> None:
        try:
            try:
                result: tuple[bool, Any] = (True, context.run(func))
            except BaseException as error:  # handed to the caller, never lost
                result = (False, error)
            with lock:
                outcome.append(result)
        except Abandoned:
            pass  # nobody waits for it any more

    thread = threading.Thread(target=target, name=f"tuibot-{name}", daemon=True)
    thread.start()
    thread.join(timeout)
    with lock:
        if not outcome:
            _interrupt(thread)
            raise TimeoutError(f"{name} took longer than {timeout:g} s")
    ok, value = outcome[0]
    if not ok:
        raise value
    result: T = value
    return result


class Abandoned(BaseException):
    """Raised inside a thread whose caller stopped waiting, to make it end early."""


def _interrupt(thread: threading.Thread) -> None:
    """Ask ``thread`` to raise :class:`Abandoned` (CPython; elsewhere it just runs on)."""
    if thread.ident is None or not thread.is_alive():
        return
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):
        return
    set_async_exc(ctypes.c_ulong(thread.ident), ctypes.py_object(Abandoned))
