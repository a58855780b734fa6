"""What each running turn is doing now, read from engine events, for the working indicator.

A silent model server can take a minute before its first token; without a sign of life
a person cannot tell a slow model from a hung app. The app keeps one
:class:`TurnProgress` per chat with a running turn and draws it (see
:mod:`tuibot.tui.actions.working`). Nothing here imports Textual: it is plain bookkeeping over
the engine's events and the bridge's stream batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    Event,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from tuibot.tui import clock


@dataclass
class TurnProgress:
    """One running turn: when it started, what it waits for, how much has streamed."""

    turn: str
    started: float
    """Wall time (the app's clock) the turn started."""
    tokens: int = 0
    """Streamed pieces so far (servers send about one token a piece)."""
    streaming: str = ""
    """``answer`` or ``reasoning`` once the model sends text this round, else ""."""
    tools: dict[str, str] = field(default_factory=dict)
    """Running tool calls: call id → tool name."""
    approvals: set[str] = field(default_factory=set)
    """Requests of this chat waiting for a person."""

    @property
    def waiting_for(self) -> str:
        """What the turn waits for now, in the words the indicator shows."""
        if self.approvals:
            return "waiting for your approval"
        if self.tools:
            names = sorted(set(self.tools.values()))
            return f"running {', '.join(names)}"
        if self.streaming == "reasoning":
            return "thinking"
        if self.streaming == "answer":
            return "writing"
        return "waiting for the model"

    def elapsed(self) -> float:
        """Seconds since the turn started."""
        return max(0.0, clock.now() - self.started)


class ProgressBook:
    """Chat → :class:`TurnProgress` of its running turn; empty when nothing runs."""

    def __init__(self) -> None:
        self.turns: dict[str, TurnProgress] = {}

    def get(self, chat: str | None) -> TurnProgress | None:
        """The running turn of ``chat``, or None."""
        return self.turns.get(chat or "")

    def observe(self, event: Event) -> None:
        """Follow one engine event (every kind but the streamed deltas)."""
        if isinstance(event, TurnStarted):
            self.turns[event.chat] = TurnProgress(event.turn, clock.now())
            return
        if isinstance(event, TurnFinished):
            self.turns.pop(event.chat, None)
            return
        progress = self.turns.get(event.chat)
        if progress is None:
            return
        if isinstance(event, ToolStarted):
            progress.tools[event.call_id] = event.name
            progress.streaming = ""
        elif isinstance(event, ToolFinished):
            progress.tools.pop(event.call_id, None)
        elif isinstance(event, ApprovalRequested):
            progress.approvals.add(event.request_id)
        elif isinstance(event, ApprovalDecided):
            progress.approvals.discard(event.request_id)

    def stream(self, chat: str, turn: str, pieces: int, reasoning: bool) -> None:
        """Text streamed for ``chat``'s turn: ``pieces`` deltas, reasoning or answer."""
        progress = self.turns.get(chat)
        if progress is None or progress.turn != turn:
            return  # a turn this book never saw start: no indicator that never ends
        progress.tokens += pieces
        progress.streaming = "reasoning" if reasoning else "answer"
