"""Delegation-tree and kanban commands: open a task's chat, cancel a delegation, answer its request.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. STUB: to be filled in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object


class WorkCommands(_AppBase):
    """STUB."""
