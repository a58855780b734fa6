"""Hot reload: watch the tools folders and the state file, apply changes between turns.

Saving a tool file re-loads just that entry (a fresh module, swapped in only if it
loaded); deleting it removes its tools; a change to ``tool_state.json`` (from
``tuibot tools disable`` in another process) re-applies the switches. The registry swap
is atomic and each turn works on its own ``snapshot()``, so tools change between turns,
never inside one. Loads run in a daemon thread, and each import has a time limit
(``tools.import_timeout``), so a hanging import cannot freeze the engine; any failure is
a notice and the watcher keeps going.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from tuibot.toolkit.catalog import ToolCatalog
from tuibot.toolkit.threads import run_in_daemon_thread
from tuibot.toolkit.watching import BackgroundWatch

log = logging.getLogger("tuibot.tools")

DEBOUNCE_MS = 150
"""Changes arriving this close together are one reload (editors write in bursts)."""

LOAD_TIMEOUT = 10.0
"""Seconds a reload step may take before it is reported as hanging; a tool entry's
import has its own, shorter limit (``tools.import_timeout``), so this is a backstop."""


class ToolReloader(BackgroundWatch):
    """Watches the catalogue's folders and state file; ``start()`` once, ``stop()`` at exit."""

    task_name = "tool-reload"

    def __init__(
        self,
        catalog: ToolCatalog,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        also: Sequence[tuple[Path, Callable[[], object]]] = (),
    ) -> None:
        super().__init__(debounce_ms)
        self.catalog = catalog
        self.also = list(also)
        """Other folders to watch, each with what to call when something in it changes
        (the skill folders: re-read them at once, so a broken skill is reported on save)."""

    def roots(self) -> list[Path]:
        """What to watch: each folder, or its nearest existing ancestor if not created yet."""
        wanted = [folder for folder, _ in self.catalog.folders]
        wanted += [folder for folder, _ in self.also]
        if self.catalog.state_file is not None:
            wanted.append(self.catalog.state_file.parent)
        roots: list[Path] = []
        for path in wanted:
            while not path.exists() and path.parent != path:
                path = path.parent
            if path not in roots:
                roots.append(path)
        return roots

    def relevant(self, path: Path) -> bool:
        """A change inside a tools folder, or to the state file itself."""
        if path == self.catalog.state_file or self._also_for(path) is not None:
            return True
        return self.catalog.entry_for(path) is not None and "__pycache__" not in path.parts

    async def on_changes(self, paths: list[Path]) -> None:
        """A batch of saved, added or removed files: reload what they belong to."""
        await self.apply(paths)

    def report(self, message: str) -> None:
        """A failed watcher is an error notice; it restarts by itself."""
        self.catalog.notify("error", f"tool reload watcher restarted: {message}")

    async def apply(self, paths: Iterable[Path]) -> None:
        """Reload the entries these changed paths belong to; re-read the state if touched."""
        entries: dict[Path, str] = {}
        state_changed = False
        callbacks: list[Callable[[], object]] = []
        for path in paths:
            callback = self._also_for(path)
            if callback is not None and callback not in callbacks:
                callbacks.append(callback)
            if path == self.catalog.state_file:
                state_changed = True
            found = self.catalog.entry_for(path)
            if found is not None:
                entries[found[0]] = found[1]
        for entry, source in sorted(entries.items()):
            await self._guarded(entry, lambda e=entry, s=source: self.catalog.refresh(e, s))
        if state_changed:
            await self._guarded(self.catalog.state_file, self.catalog.apply_state)
        for callback in callbacks:
            await self._guarded(None, callback)

    def _also_for(self, path: Path) -> Callable[[], object] | None:
        """The callback of the extra folder ``path`` lies in, if any."""
        for folder, callback in self.also:
            if path.is_relative_to(folder):
                return callback
        return None

    async def _guarded(self, what: Path | None, action: object) -> None:
        """Run one reload step off the loop, time-limited; report instead of raising."""
        assert callable(action)
        limit = max(LOAD_TIMEOUT, self.catalog.import_timeout + 5)
        try:
            await asyncio.wait_for(run_in_daemon_thread(action), limit)
        except TimeoutError:
            self.catalog.notify(
                "error", f"tool not loaded: {what}: still importing after {limit:g} s"
            )
        except Exception as exc:
            log.debug("tool reload of %s failed", what, exc_info=True)
            self.catalog.notify("error", f"tool reload failed for {what}: {exc}")
