"""What the app remembers across chat switches: usage, live answers, early input.

The conversation pane shows one chat; a chat that streams while another is shown
must still open mid-answer, and the status bar sums every chat's usage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tuibot.events import ContextMeasured, Event, TurnFinished, TurnStarted, Usage
from tuibot.tui.messages import StreamBatch


@dataclass
class LiveAnswer:
    """The streamed part of a running turn that the chat file does not hold yet."""

    turn: str
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)


class SessionState:
    """Per-session bookkeeping the app keeps beside the engine's own records."""

    def __init__(self) -> None:
        self.total = Usage()
        """Tokens and cost of every turn finished this session."""
        self.per_chat: dict[str, Usage] = {}
        self.live: dict[str, LiveAnswer] = {}
        """Chat → its running turn's streamed text so far."""
        self.context: dict[str, tuple[int, int]] = {}
        """Chat → (tokens its last request took, the model's window), for the meter."""
        self._early: list[tuple[str | None, str]] = []

    def observe(self, event: Event) -> None:
        """Follow turns: a new live answer on start, usage counted at the end."""
        if isinstance(event, ContextMeasured):
            self.context[event.chat] = (event.used, event.window)
        elif isinstance(event, TurnStarted):
            self.live[event.chat] = LiveAnswer(event.turn)
        elif isinstance(event, TurnFinished):
            self.live.pop(event.chat, None)
            self.total = self.total + event.usage
            self.per_chat[event.chat] = self.per_chat.get(event.chat, Usage()) + event.usage

    def stream(self, batch: StreamBatch) -> None:
        """Keep a batch of streamed text for the chat it belongs to."""
        live = self.live.get(batch.chat)
        if live is None or live.turn != batch.turn:
            live = self.live[batch.chat] = LiveAnswer(batch.turn)
        if batch.text:
            live.text.append(batch.text)
        if batch.reasoning:
            live.reasoning.append(batch.reasoning)

    def usage_of(self, chat: str | None) -> Usage:
        """Usage of one chat this session (zero for none)."""
        return self.per_chat.get(chat or "", Usage())

    def keep_early_input(self, chat: str | None, text: str) -> None:
        """Input typed before the engine was ready, sent once it is."""
        self._early.append((chat, text))

    def take_early_input(self) -> list[tuple[str | None, str]]:
        early, self._early = self._early, []
        return early
