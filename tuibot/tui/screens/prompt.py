"""One line of text in a modal: a chat's new title, a bot name, a question for a denial."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class PromptScreen(ModalScreen[str | None]):
    """Ask for text; dismisses with the text on Enter, None on Escape."""

    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 72; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    PromptScreen Label { width: 100%; margin-bottom: 1; }
    PromptScreen .hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, *, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self.question))  # a title in it may hold brackets
            yield Input(self.value, placeholder=self.placeholder)
            yield Label("Enter to confirm · Esc to cancel", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
