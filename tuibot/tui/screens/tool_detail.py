"""One tool-log entry in full: what was called with which arguments, and what came back."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from tuibot.tui.text import bars

if TYPE_CHECKING:
    from tuibot.tui.widgets.tool_log import ToolEntry


class ToolDetailScreen(ModalScreen[None]):
    """Read-only: the entry's facts, its arguments as JSON and its output; Esc closes."""

    DEFAULT_CSS = """
    ToolDetailScreen { align: center middle; }
    ToolDetailScreen > Vertical {
        width: 90%; max-width: 120; height: 85%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    ToolDetailScreen .facts { color: $text-muted; margin-bottom: 1; }
    ToolDetailScreen .heading { text-style: bold; color: $accent; }
    ToolDetailScreen VerticalScroll { height: 1fr; }
    ToolDetailScreen .body { margin-bottom: 1; }
    ToolDetailScreen .hint { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close", id="tool_detail_close"),
    ]
    """Any of these keys closes the view."""

    def __init__(self, entry: ToolEntry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        entry = self.entry
        with Vertical():
            yield Label(Content(self._facts()), classes="facts")
            with VerticalScroll():
                yield Label("Message" if entry.notice else "Arguments", classes="heading")
                yield Static(Content(self._arguments()), classes="body", id="detail-arguments")
                if not entry.notice:
                    yield Label("Output", classes="heading")
                    output = "(still running)" if entry.output is None else entry.output
                    yield Static(Content(output or "(empty)"), classes="body", id="detail-output")
            yield Label("Esc closes", classes="hint")

    def _facts(self) -> str:
        entry = self.entry
        parts = [entry.tool, entry.status]
        if entry.duration_s is not None:
            parts.append(bars.duration(entry.duration_s * 1000))
        if entry.output_size is not None:
            parts.append(f"{bars.size(entry.output_size)} characters out")
        if entry.chat:
            parts.append(f"chat {entry.chat_title or entry.chat} ({entry.chat})")
        if entry.bot:
            parts.append(f"bot {entry.bot}")
        parts.append(datetime.fromtimestamp(entry.at).strftime("%Y-%m-%d %H:%M:%S"))
        return " · ".join(parts)

    def _arguments(self) -> str:
        arguments = self.entry.arguments
        if isinstance(arguments, str):
            return arguments
        return json.dumps(arguments, indent=2, ensure_ascii=False)

    def action_close(self) -> None:
        """Back to the app."""
        self.dismiss(None)
