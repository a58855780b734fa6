"""The engine's events: frozen records on one async fan-out stream.

Front ends never reach into the engine's state to draw it; they render these. The TUI
turns them into Textual messages, ``ask`` prints them, the trace log writes them. Every
event names the chat it belongs to so one stream can carry many chats at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Usage:
    """Token counts and cost of one or more model calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_micros: int = 0
    """Cost in micro-USD; 0 when the model has no known price."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_micros + other.cost_micros,
        )

    def as_dict(self) -> dict[str, int]:
        """The JSON form used in chat files, traces and ``ask --json``."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_micros": self.cost_micros,
        }


@dataclass(frozen=True)
class Event:
    """Base of every engine event."""

    chat: str


@dataclass(frozen=True)
class TurnStarted(Event):
    """A turn took the chat's lock and is about to call the model."""

    turn: str
    bot: str
    model: str
    input: str = ""
    """The input the turn answers (the user's message or a notice), for task titles."""
    notice: bool = False
    """The input is tuibot's own message (a task, a delegation's result), not a person's."""
    attachments: tuple[str, ...] = ()
    """A chip label per file attached to the input (``📎 notes.md · text · 2 KiB``)."""


@dataclass(frozen=True)
class TextDelta(Event):
    """A piece of the assistant's answer as it streams."""

    turn: str
    delta: str


@dataclass(frozen=True)
class ReasoningDelta(Event):
    """A piece of the model's reasoning (shown, stored, never re-sent)."""

    turn: str
    delta: str


@dataclass(frozen=True)
class ToolStarted(Event):
    """A tool call was received; validation, any approval and the run follow."""

    turn: str
    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolFinished(Event):
    """A tool call ended; ``ok`` is false for errors, denials and invalid calls."""

    turn: str
    call_id: str
    name: str
    ok: bool
    output: str
    duration_s: float


NoticeLevel = Literal["info", "warning", "error"]
"""How much a notice matters: the TUI colours it, ``ask`` prints warnings and errors."""
ApprovalKind = Literal[
    "tool", "delegations.authorize", "delegations.continue", "delegations.tree_limit"
]
"""What a request asks: a tool call, first work for another bot, continuing at a limit,
or a whole delegation tree at a bound."""
TurnStatus = Literal["completed", "failed", "interrupted", "cancelled", "round_limit"]


@dataclass(frozen=True)
class TurnFinished(Event):
    """A turn ended; ``text`` is the whole final answer (possibly partial)."""

    turn: str
    status: TurnStatus
    text: str
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    """A friendly description of what went wrong, when ``status`` is not completed."""
    error_kind: str | None = None
    """``unreachable`` or ``rejected`` for model-server trouble, else None."""
    rounds: int = 0
    """Model calls the turn made (0 when it ended before calling the model)."""
    context: dict[str, int] | None = None
    """``{"used": tokens, "window": tokens}`` of the turn's last model call, when known."""


@dataclass(frozen=True)
class ContextMeasured(Event):
    """The size of the request about to be sent against the model's window (the meter)."""

    used: int
    window: int
    known: bool = True
    """False when ``window`` is the assumed default, not the model's own."""


@dataclass(frozen=True)
class Notice(Event):
    """Something a person should read that is not part of the answer."""

    level: NoticeLevel
    message: str


@dataclass(frozen=True)
class McpServerNotice(Notice):
    """An MCP server came up or failed; front ends refresh what shows servers and prompts."""

    server: str = ""
    state: str = ""
    """``ready`` or ``failed``."""


@dataclass(frozen=True)
class ChatWaiting(Notice):
    """A turn waits for a chat another process is using (a warning, shown as any notice;
    ``ask --json`` also says it on stderr)."""

    holder_pid: int = 0
    """The process that holds the chat."""


@dataclass(frozen=True)
class CommandOutput(Event):
    """What a slash command printed; commands never call the model."""

    command: str
    ok: bool
    text: str
    new_chat: str | None = None
    """Set by ``/new``: the chat the front end should switch to."""
    compose: str | None = None
    """Set by an MCP prompt command: the text the front end puts into the composer."""


@dataclass(frozen=True)
class ApprovalRequested(Event):
    """The engine waits for a human decision on ``request_id``."""

    request_id: str
    kind: ApprovalKind
    summary: str
    details: dict[str, Any] = field(default_factory=dict)
    """What exactly would happen (tool name and arguments, for a tool confirmation)."""


@dataclass(frozen=True)
class ApprovalDecided(Event):
    """A pending request was decided (by a person, a policy, or its timeout)."""

    request_id: str
    allowed: bool
    reason: str


@dataclass(frozen=True)
class DelegationChanged(Event):
    """A delegation record changed; ``chat`` is the chat that gave the work."""

    record: dict[str, Any]
    """The record as stored (see ``tuibot.delegation.records.Delegation.to_json``)."""


@dataclass(frozen=True)
class TaskChanged(Event):
    """A task on the board changed (see ``tuibot.tasks.Task.to_json``)."""

    task: dict[str, Any]


Listener = Callable[[Event], None]

log = logging.getLogger("tuibot.events")


class EventStream:
    """One publisher, many subscribers; publishing never waits.

    Synchronous listeners run inline (the trace log, ``ask``'s printer: no queue hop per
    token). Async subscribers each get their own unbounded queue so a slow reader never
    stalls the agent loop. A listener with nothing to do per token registers with
    ``deltas=False`` and is not called for the text and reasoning deltas at all.
    """

    def __init__(self) -> None:
        self._every: tuple[Listener, ...] = ()
        """Every listener, in the order they were added: all of them get other events."""
        self._streamed: tuple[Listener, ...] = ()
        """The listeners that also get the per-token deltas."""
        self._queues: list[asyncio.Queue[Event | None]] = []

    def listen(self, listener: Listener, *, deltas: bool = True) -> Callable[[], None]:
        """Call ``listener`` for every event (``deltas=False``: every event but the
        per-token :class:`TextDelta` and :class:`ReasoningDelta`); returns a function
        that stops it."""
        self._every += (listener,)
        if deltas:
            self._streamed += (listener,)

        def stop() -> None:
            self._every = _without(self._every, listener)
            if deltas:
                self._streamed = _without(self._streamed, listener)

        return stop

    def publish(self, event: Event) -> None:
        """Hand ``event`` to every listener and subscriber.

        A listener that raises is logged and skipped: a broken front end (a closed pipe,
        a bug in a pane) must never break the turn that is publishing.
        """
        listeners = self._streamed if type(event) in _DELTAS else self._every
        for listener in listeners:  # a tuple: listening or stopping meanwhile is safe
            try:
                listener(event)
            except Exception:
                log.exception("event listener %r failed on %s", listener, type(event).__name__)
        for queue in self._queues:
            queue.put_nowait(event)

    async def subscribe(self) -> AsyncIterator[Event]:
        """Iterate over events published from now on, until :meth:`close`."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self._queues.append(queue)
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            self._queues.remove(queue)

    def close(self) -> None:
        """End every subscription."""
        for queue in self._queues:
            queue.put_nowait(None)


_DELTAS = frozenset({TextDelta, ReasoningDelta})
"""The per-token events (exact types: nothing subclasses them)."""


def _without(listeners: tuple[Listener, ...], listener: Listener) -> tuple[Listener, ...]:
    """``listeners`` less the first ``listener`` (ValueError when it is not there)."""
    index = listeners.index(listener)
    return listeners[:index] + listeners[index + 1 :]
