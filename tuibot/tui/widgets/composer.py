"""Where the person types: multi-line, Enter sends, `/` commands complete, history recalls.

STUB: to be replaced by the real composer (the interface below is what the app uses).
"""

from __future__ import annotations

from typing import Any

from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    """A TextArea whose Enter sends; posts :class:`Composer.Submitted`."""

    class Submitted(Message):
        """The person sent ``text``."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Interrupt(Message):
        """Esc: stop the running turn of the chat shown."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def show_queued(self, texts: list[str]) -> None:
        """Inputs waiting for the running turn of the shown chat."""

    def set_commands(self, commands: list[tuple[str, str]]) -> None:
        """``(name, help)`` for `/` completion: slash commands and tool names."""
