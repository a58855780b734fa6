"""One background file watcher that outlives its own failures.

Why: the tool reloader and the MCP config watcher both need the same lifecycle — start
on the running loop, set ``ready`` once watching (tests wait for it before they write),
restart after any error with a notice, stop cleanly at exit. Subclasses say only what to
watch, which changes matter and what to do with them.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

log = logging.getLogger("tuibot.watch")


class BackgroundWatch:
    """A ``watchfiles`` loop in a task; ``start()`` once, ``stop()`` at exit."""

    task_name = "watch"
    """The asyncio task's name (shows in debug dumps)."""
    recursive = True
    """Whether sub-folders of the roots are watched too."""

    def __init__(self, debounce_ms: int) -> None:
        self.debounce_ms = debounce_ms
        self.ready = asyncio.Event()
        """Set once the watcher is running (tests wait for it before writing files)."""
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin watching in a background task on the running loop."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.task_name)

    async def stop(self) -> None:
        """Stop watching and wait for the task to end."""
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def roots(self) -> list[Path]:
        """The folders to watch (called again after each restart)."""
        raise NotImplementedError

    def relevant(self, path: Path) -> bool:
        """Whether a change to ``path`` matters."""
        raise NotImplementedError

    async def on_changes(self, paths: list[Path]) -> None:
        """Act on one debounced batch of relevant changes."""
        raise NotImplementedError

    def report(self, message: str) -> None:
        """Say that the watcher failed and restarts (a notice to the person)."""
        raise NotImplementedError

    async def _run(self) -> None:
        from watchfiles import awatch

        while not self._stop.is_set():
            try:
                watcher = awatch(
                    *self.roots(),
                    watch_filter=lambda _change, raw: self.relevant(Path(raw)),
                    debounce=self.debounce_ms,
                    step=20,
                    stop_event=self._stop,
                    recursive=self.recursive,
                )
                self.ready.set()
                async for changes in watcher:
                    await self.on_changes([Path(raw) for _change, raw in changes])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the watcher must outlive anything
                log.debug("%s failed", self.task_name, exc_info=True)
                self.report(f"{exc}")
                await asyncio.sleep(1)
