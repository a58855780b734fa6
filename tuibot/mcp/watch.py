"""Config edits apply live to MCP servers: watch the config file, re-read, reconcile.

Why: a person who adds a server with ``tuibot mcp add`` (or edits the file) in another
terminal expects the running app to pick it up, as it picks up a saved tool file. The
file is re-read the way start-up reads it (``choose_config``), so a project
``tuibot.toml`` whose content changed is no longer trusted and its servers stop rather
than start. A file that does not load changes nothing: the error is a notice and the
running servers keep running.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.settings_mcp import McpServerSettings

if TYPE_CHECKING:
    from tuibot.events import NoticeLevel
    from tuibot.mcp.manager import McpManager
    from tuibot.settings import Settings

log = logging.getLogger("tuibot.mcp")

Servers = dict[str, McpServerSettings]
DEBOUNCE_MS = 200
"""Writes this close together are one change (editors write, rename, chmod)."""


def config_to_watch(settings: Settings) -> tuple[Path, Path | None]:
    """The file to watch, and the explicit ``--config`` file (None: chosen as at start-up).

    The file in use, or the home config (not there yet) when tuibot runs on defaults.
    """
    from tuibot import paths
    from tuibot.project_config import PROJECT_FILE

    home = paths.config_home() / "config.toml"
    used = settings.files[0] if settings.files else None
    chosen = (home, settings.cwd / PROJECT_FILE)
    if used is None or used in chosen:
        return used or home, None
    return used, used


def reread_servers(settings: Settings, explicit: Path | None) -> Servers:
    """The MCP servers the config would give now (ConfigError when it does not load)."""
    from tuibot.settings import load_settings

    return load_settings(explicit, cwd=settings.cwd).mcp.servers


class ConfigWatcher:
    """Watches one config file; each change re-reads the servers and applies them."""

    def __init__(
        self,
        path: Path,
        reread: Callable[[], Servers],
        apply: Callable[[Servers], Awaitable[list[str]]],
        notify: Callable[[NoticeLevel, str], None],
    ) -> None:
        self.path = path
        self.reread = reread
        self.apply = apply
        self.notify = notify
        self.ready = asyncio.Event()
        """Set once watching (tests wait for it before they write)."""
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin watching in a background task on the running loop."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="mcp-config")

    async def stop(self) -> None:
        """Stop watching and wait for the task to end."""
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        from watchfiles import awatch

        folder = self.path.parent
        while not self._stop.is_set():
            try:
                folder.mkdir(parents=True, exist_ok=True)
                watcher = awatch(
                    folder,
                    watch_filter=lambda _change, raw: Path(raw).name == self.path.name,
                    debounce=DEBOUNCE_MS,
                    step=20,
                    stop_event=self._stop,
                    recursive=False,
                )
                self.ready.set()
                async for _changes in watcher:
                    await self.changed()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the watcher must outlive anything
                log.debug("config watcher failed", exc_info=True)
                self.notify("error", f"config watcher restarted: {exc}")
                await asyncio.sleep(1)

    async def changed(self) -> None:
        """Re-read the file and apply its servers; a bad file is a notice, nothing more."""
        from tuibot.settings_schema import ConfigError

        try:
            servers = await asyncio.to_thread(self.reread)
        except ConfigError as error:
            self.notify("error", f"MCP servers not changed: the config does not load: {error}")
            return
        for line in await self.apply(servers):
            self.notify("info", line)


def watcher_for(
    settings: Settings, manager: McpManager, notify: Callable[[NoticeLevel, str], None]
) -> ConfigWatcher:
    """A started watcher that keeps ``manager``'s servers in step with the config file."""
    path, explicit = config_to_watch(settings)
    watcher = ConfigWatcher(path, lambda: reread_servers(settings, explicit), manager.apply, notify)
    watcher.start()
    return watcher
