"""STUB pane DelegationTree: to be replaced (interface: load(engine), apply(event))."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tuibot.events import Event


class DelegationTree(Static):
    """STUB."""

    def load(self, engine: Any) -> None:
        """Read the current state from the engine."""

    def apply(self, event: Event) -> None:
        """Follow engine events."""
