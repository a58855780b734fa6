"""Themes (bundled and user, hot-reloaded, remembered in config) and configurable key bindings.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. ``setup_theme()`` runs on load and
``setup_keys()`` on mount, both before the engine exists, so the first paint already has
the chosen theme and keys. Nothing here is
fatal: a broken theme file or a bad ``[tui.keys]`` entry is reported and skipped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.theme import BUILTIN_THEMES

from tuibot.tui import compat
from tuibot.tui.keys.keymap import check_keymap, clashes, known_binding_ids, mounted_bindings
from tuibot.tui.themes import (
    DEFAULT_THEME,
    ThemeFile,
    ThemeProblem,
    css_problem,
    load_themes,
    theme_folders,
    user_folder,
)

if TYPE_CHECKING:
    from textual.app import App, SystemCommand
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.widget import Widget

    from tuibot.settings import Settings

    _AppBase = App[int]
else:
    _AppBase = object

log = logging.getLogger("tuibot.tui.actions.looks")

DEBOUNCE_MS = 150
"""Theme file changes this close together are one reload (editors write in bursts)."""


class LookCommands(_AppBase):
    """Theme and keymap handling for the app; expects ``settings`` (see below)."""

    if TYPE_CHECKING:
        settings: Settings

    theme_files: dict[str, ThemeFile]
    """Every theme loaded from a file, by name (a user file replaces a bundled one)."""
    themes_watching: asyncio.Event
    """Set once the user's themes folder is watched (tests wait for it)."""
    _looks_ready = False
    _keymap_applied: dict[str, str] = {}  # noqa: RUF012 (replaced, never mutated)
    """The keymap :meth:`apply_keymap` applied last (normalised as Textual wants it)."""
    _theme_quiet = False
    _saved_theme = ""
    _theme_problems: set[str]

    def setup_theme(self) -> None:
        """Called on load, before the screen is built: the theme from settings.

        Choosing it now means the widgets are styled once, in the right theme; a theme
        set after mount restyles every widget again before the first frame (~0.2 s).
        """
        self.theme_files = {}
        self._theme_problems = set()
        self._save_lock = asyncio.Lock()
        self.themes_watching = asyncio.Event()
        self.refresh_themes()
        wanted = self.settings.tui.theme
        if wanted not in self.available_themes:
            fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
            self._warn(f"theme {wanted!r} not found (tui.theme); using {fallback}", "warning")
            wanted = fallback
        self._saved_theme = self.settings.tui.theme
        self._set_theme_quietly(wanted)

    def setup_keys(self) -> None:
        """Called on mount (the bindings are known then); ``watch_themes`` runs later."""
        self.apply_keymap()
        self._looks_ready = True

    # -- themes ----------------------------------------------------------------------

    def refresh_themes(self) -> None:
        """(Re)load every theme file, register the good ones, report new problems.

        A file that breaks after it loaded once keeps its last good theme, so a typo
        while editing does not yank the theme away. The active theme is re-applied
        when its file changed, so an edit shows at once.
        """
        folders = theme_folders()
        bundled, problems = load_themes(folders[:1])
        user, user_problems = load_themes(folders[1:])
        problems += user_problems
        for name, loaded in list(user.items()):
            reason = css_problem(self, loaded.theme)
            if reason is not None:
                problems.append(ThemeProblem(loaded.path, reason))
                del user[name]
        for problem in problems:
            previous = self._theme_from(problem.path)
            if previous is not None and previous.theme.name not in user:
                user[previous.theme.name] = previous
        self._install_themes({**bundled, **user})
        self._report_problems(problems)

    def _theme_from(self, path: Path) -> ThemeFile | None:
        return next((t for t in self.theme_files.values() if t.path == path), None)

    def _install_themes(self, themes: dict[str, ThemeFile]) -> None:
        old, self.theme_files = self.theme_files, themes
        changed = {name for name, t in themes.items() if old.get(name) != t}
        for name in changed:
            self.register_theme(themes[name].theme)
        for name in old.keys() - themes.keys():
            if name in BUILTIN_THEMES:  # a user file had replaced one of Textual's own
                self.register_theme(BUILTIN_THEMES[name])
                changed.add(name)
            else:
                self.unregister_theme(name)
        if not self._looks_ready:
            return
        if self.theme not in self.available_themes:
            self._warn(f"theme {self.theme!r} is gone; using {DEFAULT_THEME}", "warning")
            self._set_theme_quietly(DEFAULT_THEME)
        elif self.theme in changed:
            self.reapply_theme()

    def reapply_theme(self) -> None:
        """Apply the active theme again after its definition changed under the same name."""
        compat.reapply_theme(self)

    def _report_problems(self, problems: list[ThemeProblem]) -> None:
        """Notify and log each problem once (a reload re-finds the ones not fixed yet)."""
        current = {str(problem) for problem in problems}
        for text in sorted(current - self._theme_problems):
            self._warn(text, "error")
        self._theme_problems = current

    def _warn(self, text: str, severity: SeverityLevel) -> None:
        log.warning("%s", text)
        self.notify(text, severity=severity, timeout=10, markup=False)

    def _set_theme_quietly(self, name: str) -> None:
        """Change the theme without saving it (start-up and fallbacks are not choices)."""
        self._theme_quiet = True
        try:
            self.theme = name
        finally:
            self._theme_quiet = False

    def watch_theme(self, name: str) -> None:
        """Remember a theme the person picked (the palette's "Change theme") in config."""
        if not self._looks_ready or self._theme_quiet or name == self._saved_theme:
            return
        self._saved_theme = name
        self.save_theme()

    @work(group="theme-save", description="remember the theme in config", exit_on_error=False)
    async def save_theme(self) -> None:
        """Write ``tui.theme`` with the project's config writer (comments are kept)."""
        from tuibot.settings import ConfigError, write_setting

        async with self._save_lock:
            target = self.config_target()
            try:
                await asyncio.to_thread(write_setting, target, "tui.theme", self.theme)
            except ConfigError as error:
                self._warn(f"theme not saved: {error}", "error")

    def config_target(self) -> Path:
        """The config file in use, or the config home's ``config.toml`` (as ``config set``)."""
        from tuibot.system.paths import config_home

        return self.settings.files[0] if self.settings.files else config_home() / "config.toml"

    @work(group="themes", description="watch the user's themes folder", exit_on_error=False)
    async def watch_themes(self) -> None:
        """Reload themes when a file in the user's themes folder changes."""
        from watchfiles import awatch

        folder = user_folder()
        while True:
            root = folder
            while not root.exists() and root.parent != root:
                root = root.parent
            try:
                watcher = awatch(
                    root,
                    watch_filter=lambda _change, raw: _relevant(Path(raw), folder),
                    debounce=DEBOUNCE_MS,
                    step=20,
                    recursive=False,
                )
                asyncio.get_running_loop().call_soon(self.themes_watching.set)
                async for _changes in watcher:
                    self.refresh_themes()
                    if root != folder or not folder.exists():
                        break  # the folder (or a parent) appeared or went: watch anew
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the watcher must outlive anything
                log.debug("theme watcher failed", exc_info=True)
                self._warn(f"theme watcher restarted: {error}", "warning")
                await asyncio.sleep(1)

    # -- keys ------------------------------------------------------------------------

    def apply_keymap(self) -> None:
        """Apply ``[tui.keys]``: known ids with real key names; the rest (and clashes) reported."""
        table = self.settings.tui.keys
        keymap, problems = check_keymap(table, known_binding_ids(self, table))
        problems += clashes(mounted_bindings(self), keymap)
        for problem in problems:
            self._warn(problem, "warning")
        self.set_keymap(keymap)
        self._keymap_applied = keymap

    def check_later_keys(self, panes: Iterable[Widget]) -> None:
        """Report the keys that panes mounted after :meth:`apply_keymap` lose to it."""
        maps = [compat.node_bindings(pane) for pane in panes]
        for problem in clashes(maps, self._keymap_applied):
            self._warn(problem, "warning")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette's commands: Textual's (theme, keys, screenshot) and every app action."""
        from tuibot.tui.keys.palette import app_commands

        yield from super().get_system_commands(screen)
        yield from app_commands(self)


def _relevant(path: Path, folder: Path) -> bool:
    """A theme file in the folder, or the folder (or a parent of it) itself."""
    if path.parent == folder:
        return path.suffix == ".toml"
    return path == folder or path in folder.parents
