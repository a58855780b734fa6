"""The left pane: every chat with bot, status and unread mark.

STUB: to be replaced (the interface below is what the app uses).
"""

from __future__ import annotations

from typing import Any

from textual.message import Message
from textual.widgets import OptionList

from tuibot.events import Event


class ChatList(OptionList):
    """Lists chats; selecting one posts :class:`~tuibot.tui.messages.OpenChat`."""

    class RenameRequested(Message):
        """The person wants to rename ``chat`` (the app asks for the title)."""

        def __init__(self, chat: str, title: str) -> None:
            super().__init__()
            self.chat = chat
            self.title = title

    class DeleteRequested(Message):
        """The person wants to delete ``chat`` (the app asks to confirm)."""

        def __init__(self, chat: str, title: str) -> None:
            super().__init__()
            self.chat = chat
            self.title = title

    class PinRequested(Message):
        """The person wants to pin ``chat`` to a bot (the app asks which)."""

        def __init__(self, chat: str) -> None:
            super().__init__()
            self.chat = chat

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def load(self, engine: Any) -> None:
        """Read every chat from the engine's store."""

    def apply(self, event: Event) -> None:
        """Follow status changes from engine events."""

    def set_current(self, chat: str) -> None:
        """Mark ``chat`` as the one shown (and read)."""
