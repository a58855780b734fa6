"""STUB screen HelpScreen: to be replaced."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    """STUB."""

    BINDINGS: ClassVar = [("escape", "dismiss", "Close")]

    def __init__(self, source: Any) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield Static("HelpScreen")
