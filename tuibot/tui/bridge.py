"""The one seam between the engine and Textual: engine events in, Textual messages out.

Every event becomes an :class:`~tuibot.tui.messages.EngineEvent` posted to the app, in
order. Streamed text is the exception: a fast local model sends hundreds of deltas a
second, and a message per delta would make the screen redraw per token. Deltas are
gathered per turn and delivered as one :class:`~tuibot.tui.messages.StreamBatch` per
frame; any other event first flushes what is gathered, so order is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from tuibot.events import Event, ReasoningDelta, TextDelta
from tuibot.system.masking import Masked
from tuibot.tui.messages import EngineEvent, StreamBatch

if TYPE_CHECKING:
    from textual.message import Message

    from tuibot.events import EventStream

FRAME_S = 1 / 30
"""How long deltas are gathered before they are delivered: one frame at 30 fps."""


class EngineBridge:
    """Listens to an engine's event stream and posts messages through ``post``."""

    def __init__(self, events: EventStream, post: Callable[[Message], object]) -> None:
        self._post = post
        self._pending: dict[tuple[str, str], list[list[str]]] = {}
        """(chat, turn) → [answer pieces, reasoning pieces] not yet delivered."""
        self._flush_handle: asyncio.TimerHandle | None = None
        self._stop = events.listen(Masked(self._on_event))  # known secrets never shown

    def close(self) -> None:
        """Stop listening; anything gathered is delivered first."""
        self.flush()
        self._stop()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, TextDelta | ReasoningDelta):
            pieces = self._pending.setdefault((event.chat, event.turn), [[], []])
            pieces[isinstance(event, ReasoningDelta)].append(event.delta)
            if self._flush_handle is None:
                loop = asyncio.get_running_loop()
                self._flush_handle = loop.call_later(FRAME_S, self.flush)
            return
        self.flush()
        self._post(EngineEvent(event))

    def flush(self) -> None:
        """Deliver gathered deltas now, one batch per turn."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        pending, self._pending = self._pending, {}
        for (chat, turn), (text, reasoning) in pending.items():
            count = len(text) + len(reasoning)
            self._post(StreamBatch(chat, turn, "".join(text), "".join(reasoning), pieces=count))
