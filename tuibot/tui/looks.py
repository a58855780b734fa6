"""Themes (bundled and user, hot-reloaded, remembered in config) and configurable key bindings.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. STUB: to be filled in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object


class LookCommands(_AppBase):
    """STUB."""

    def setup_looks(self) -> None:
        """Called on mount, before the engine exists: theme and keymap from settings."""
