"""Approval decisions from the queue, and telling the person a request arrived.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. STUB: to be filled in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuibot.events import Event

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object


class DecisionCommands(_AppBase):
    """STUB."""

    def on_approval_event(self, event: Event) -> None:
        """Called for every ApprovalRequested / ApprovalDecided the engine publishes."""
