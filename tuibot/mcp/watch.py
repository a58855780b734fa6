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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.settings.mcp import McpServerSettings
from tuibot.toolkit.watching import BackgroundWatch

if TYPE_CHECKING:
    from tuibot.events import NoticeLevel
    from tuibot.mcp.manager import McpManager
    from tuibot.settings import Settings

Servers = dict[str, McpServerSettings]
DEBOUNCE_MS = 200
"""Writes this close together are one change (editors write, rename, chmod)."""


def config_to_watch(settings: Settings) -> tuple[Path, Path | None]:
    """The file to watch, and the explicit ``--config`` file (None: chosen as at start-up).

    The file in use, or the home config (not there yet) when tuibot runs on defaults.
    """
    from tuibot.settings.project import PROJECT_FILE
    from tuibot.system import paths

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


class ConfigWatcher(BackgroundWatch):
    """Watches one config file; each change re-reads the servers and applies them."""

    task_name = "mcp-config"
    recursive = False

    def __init__(
        self,
        path: Path,
        reread: Callable[[], Servers],
        apply: Callable[[Servers], Awaitable[list[str]]],
        notify: Callable[[NoticeLevel, str], None],
    ) -> None:
        super().__init__(DEBOUNCE_MS)
        self.path = path
        self.reread = reread
        self.apply = apply
        self.notify = notify

    def roots(self) -> list[Path]:
        """The file's folder, made if missing (the home config may not exist yet)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return [self.path.parent]

    def relevant(self, path: Path) -> bool:
        """Only the config file itself."""
        return path.name == self.path.name

    async def on_changes(self, paths: list[Path]) -> None:
        """Any batch of changes to the file is one re-read."""
        await self.changed()

    def report(self, message: str) -> None:
        """A failed watcher is an error notice; it restarts by itself."""
        self.notify("error", f"config watcher restarted: {message}")

    async def changed(self) -> None:
        """Re-read the file and apply its servers; a bad file is a notice, nothing more."""
        from tuibot.settings.schema import ConfigError

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
