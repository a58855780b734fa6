"""Keep Python's full garbage collections from stalling the screen while the app is busy.

A Textual app holds hundreds of thousands of objects (modules, widgets, every rendered
line with its caches), and a full collection walks all of them: 100-300 ms on a slow
machine, long enough to freeze a streaming answer or a scroll through a long chat.

So the objects that live long are kept out of the collector's way (``gc.freeze``,
which costs nothing): everything alive once the app has started, and, while it is busy
(an answer streams, history blocks are drawn), everything alive when that began. Young
objects are still collected as usual, but the oldest generation waits while busy. A few
seconds after the last busy spell, the frozen objects are handed back, collected once
(garbage among them is freed while nothing moves) and what survives is frozen again, so
later full collections only walk what is new. Textual pauses the collector in the same
spirit for smooth scrolling (``App.PAUSE_GC_ON_SCROLL``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

RELEASE_AFTER_S = 3.0
"""Seconds of nothing busy before frozen objects are collected once and frozen again."""
QUIET_THRESHOLD_2 = 1_000_000
"""The oldest generation's threshold while busy: in effect, no full collections."""


class GcQuiet:
    """Counts busy spells (streaming answers, history drawing); quiet while any runs."""

    def __init__(self) -> None:
        self.busy = 0
        """Busy spells running now."""
        self.frozen = False
        """Objects are held out of the collector."""
        self._threshold: tuple[int, int, int] | None = None
        """The collector's thresholds before the busy spell began (restored on release)."""
        self._spells = 0
        """Busy spells ended so far: a release waits for the last one's delay."""

    def settle(self) -> None:
        """Freeze what is alive now (the app has started): later collections skip it."""
        gc.freeze()
        self.frozen = True

    def hold(self) -> None:
        """Something busy started, or made more long-lived objects: freeze what is alive."""
        gc.freeze()
        self.frozen = True
        if self._threshold is None:
            self._threshold = gc.get_threshold()
            young, middle, _ = self._threshold
            gc.set_threshold(young, middle, QUIET_THRESHOLD_2)

    def start(self) -> None:
        """A busy spell starts (an answer streams, history blocks are drawn)."""
        self.busy += 1
        self.hold()

    def stop(self, later: Callable[[float, Callable[[], None]], object]) -> None:
        """A busy spell ended; ``later(delay, callback)`` schedules the release."""
        self.busy = max(0, self.busy - 1)
        self._spells += 1
        if not self.busy:
            spell = self._spells
            later(RELEASE_AFTER_S, lambda: self._idle(spell))

    def _idle(self, spell: int) -> None:
        if spell == self._spells:  # nothing was busy since that spell ended
            self.release()

    def release(self) -> None:
        """Collect everything once (nothing is busy) and freeze what survives again."""
        if self.busy or self._threshold is None:
            return
        gc.unfreeze()
        gc.set_threshold(*self._threshold)
        self._threshold = None
        gc.collect()
        gc.freeze()


GC_QUIET = GcQuiet()
"""One per process, like the collector itself."""


def first_frame_shown() -> None:
    """Collections resume once the first frame is on the screen (``TuibotApp.on_ready``).

    ``tuibot`` starts with the collector off (:func:`tuibot.commands.tui.run`): start-up
    makes ~130,000 objects and frees almost none (under 3,000), so the ~170 collections
    it would trigger cost about 30 ms of the first frame's wait and find nothing. What
    start-up made is frozen first, so the first collections after it skip that too.
    """
    gc.freeze()
    gc.enable()
