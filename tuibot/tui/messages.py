"""App-wide Textual messages: what the bridge delivers and what panes ask the app to do.

Messages that belong to one widget live nested in that widget's class; these are the
ones several senders share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.events import Event


class EngineEvent(Message):
    """One engine event (every kind except streamed text, which comes as StreamBatch)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event
        """The engine's frozen event record."""


class StreamBatch(Message):
    """Streamed answer and reasoning text of one turn, gathered over one frame."""

    def __init__(self, chat: str, turn: str, text: str, reasoning: str, *, pieces: int = 0) -> None:
        super().__init__()
        self.chat = chat
        self.turn = turn
        self.text = text
        """Answer text since the last batch (may be empty)."""
        self.reasoning = reasoning
        """Reasoning text since the last batch (may be empty)."""
        self.pieces = pieces
        """How many deltas the batch joins (about one token each), for the indicator."""


class EngineReady(Message):
    """The engine is built and its tools are loaded; panes may read its state."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine


class OpenChat(Message):
    """Show this chat in the conversation (from the chat list, kanban, tree, approvals)."""

    def __init__(self, chat: str) -> None:
        super().__init__()
        self.chat = chat


class ShowRequest(Message):
    """Select this pending request in the approvals queue (from the delegation tree)."""

    def __init__(self, request_id: str) -> None:
        super().__init__()
        self.request_id = request_id
