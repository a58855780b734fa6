"""Pick one name from a list in a modal: a model the provider serves, a provider.

The names come from a server (a model list) and are shown as plain text, never markup,
so a name with ``[`` in it is drawn as it is. Enter picks the highlighted name; Escape
picks nothing.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class PickScreen(ModalScreen[str | None]):
    """Dismisses with the picked name, or None on Escape."""

    DEFAULT_CSS = """
    PickScreen { align: center middle; }
    PickScreen > Vertical {
        width: 70%; max-width: 90; height: auto; max-height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    PickScreen OptionList { height: auto; max-height: 20; border: none; }
    PickScreen .hint { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, names: list[str], current: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.names = names
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self.title_text))
            yield OptionList(*(self._option(i, name) for i, name in enumerate(self.names)))
            yield Label("Enter picks · Esc closes", classes="hint")

    def _option(self, index: int, name: str) -> Option:
        mark = "● " if name == self.current else "  "
        return Option(Content(mark + name), id=str(index))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        if self.current in self.names:
            options.highlighted = self.names.index(self.current)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.names[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)
