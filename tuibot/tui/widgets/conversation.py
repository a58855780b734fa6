"""The centre pane: one chat's messages, streamed answers, reasoning and tool calls.

STUB: to be replaced by the real view (see the interface below, which the app uses).
"""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.widgets import Static

from tuibot.events import CommandOutput, Event
from tuibot.tui.messages import StreamBatch


class Conversation(VerticalScroll):
    """Shows one chat; the app feeds it the chat's history, events and stream batches."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chat: str | None = None
        """The chat shown, or None before one is opened."""

    def show_chat(self, chat: str, messages: list[dict[str, Any]]) -> None:
        """Replace what is shown with ``messages`` (records as the chat store loads them)."""
        self.chat = chat
        self.remove_children()
        for message in messages:
            self.mount(Static(str(message.get("content") or "")))

    def echo_user(self, text: str) -> None:
        """Show the person's message at once (the turn's TurnStarted must not repeat it)."""
        self.mount(Static(text))

    def resume_stream(self, turn: str, text: str, reasoning: str) -> None:
        """Opened mid-answer: show what has streamed so far; batches continue it."""
        self.mount(Static(text))

    def show_command_output(self, output: CommandOutput) -> None:
        """What a slash command printed (not stored in the chat)."""
        self.mount(Static(output.text))

    def show_problem(self, text: str) -> None:
        """A banner at the top of the view (no model server, a config problem)."""
        self.mount(Static(text, classes="problem"))

    def apply(self, event: Event) -> None:
        """An engine event of the shown chat (the app filters by chat)."""

    def apply_stream(self, batch: StreamBatch) -> None:
        """Streamed text of the shown chat."""
        self.mount(Static(batch.text))

    def set_reasoning_visible(self, visible: bool) -> None:
        """Expand or collapse every reasoning block."""

    def set_tool_output_visible(self, visible: bool) -> None:
        """Expand or collapse every tool call."""
