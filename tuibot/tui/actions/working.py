"""The app's working indicator: the line under the conversation and the status bar's part.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. Engine events and stream batches feed a
:class:`~tuibot.tui.progress.ProgressBook`; one timer (about 8 frames a second) turns
the spinner and the elapsed time, and it runs only while the chat shown runs a turn,
so an idle app (or one whose delegations work in the background) wakes for nothing.
"""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from tuibot.tui import compat
from tuibot.tui.progress import ProgressBook
from tuibot.tui.widgets.working_line import elapsed_text, spinner

if TYPE_CHECKING:
    from textual.timer import Timer

    from tuibot.events import Event
    from tuibot.tui.messages import StreamBatch
    from tuibot.tui.widgets.conversation import Conversation
    from tuibot.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object

TICK_S = 1 / 8
"""The spinner's frame time while a turn runs."""


class WorkingCommands(_AppBase):
    """Keeps the progress of running turns and draws the one of the chat shown."""

    if TYPE_CHECKING:
        current_chat: str | None

        @property
        def conversation(self) -> Conversation: ...
        @property
        def status(self) -> StatusBar: ...

    _progress: ProgressBook | None = None
    _working_timer: Timer | None = None
    _working_frame: int = 0

    @property
    def progress(self) -> ProgressBook:
        """Chat → what its running turn is doing (made on first use)."""
        if self._progress is None:
            self._progress = ProgressBook()
        return self._progress

    @property
    def working_ticking(self) -> bool:
        """Whether the indicator's timer runs (only while the chat shown runs a turn)."""
        return self._working_timer is not None

    def progress_after(self, event: Event) -> None:
        """Follow an engine event and draw what changed."""
        self.progress.observe(event)
        self.draw_working()

    def progress_stream(self, batch: StreamBatch) -> None:
        """Count what streamed; the next tick shows it."""
        reasoning = bool(batch.reasoning) and not batch.text
        self.progress.stream(batch.chat, batch.turn, batch.pieces, reasoning)

    def _working_tick(self) -> None:
        self._working_frame += 1
        with suppress(NoMatches):  # the app is closing: its screen is gone, a turn lingers
            self.draw_working()

    def draw_working(self) -> None:
        """Show the shown chat's running turn (or nothing) in the conversation and bar.

        The timer runs only while the chat shown runs a turn: fifty delegations working
        in the background change nothing on screen between their events.
        """
        progress = self.progress.get(self.current_chat)
        self._tick_while(progress is not None)
        frame = self._working_frame
        self.conversation.working.show(progress, frame, self.stop_key())
        if progress is None:
            self.status.working = _others(len(self.progress.turns))
            return
        elapsed = elapsed_text(progress.elapsed())
        self.status.working = f"{spinner(frame)} {progress.waiting_for} {elapsed}"

    def _tick_while(self, running: bool) -> None:
        if running and self._working_timer is None:
            self._working_frame = 0
            self._working_timer = self.set_interval(TICK_S, self._working_tick, name="working")
        elif not running and self._working_timer is not None:
            self._working_timer.stop()
            self._working_timer = None

    def stop_key(self) -> str:
        """The key that stops the turn from the composer, as the person set it."""
        keys = compat.app_keymap(self).get("composer_escape", "escape")
        first = keys.split(",")[0].strip()
        return "esc" if first == "escape" else first


def _others(count: int) -> str:
    """The status bar's part when the chat shown is idle but others work."""
    if not count:
        return ""
    return f"{count} other chat{'s' if count != 1 else ''} working"
