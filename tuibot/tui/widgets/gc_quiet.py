"""Keep Python's full garbage collections from stalling the screen while text streams.

A Textual app holds hundreds of thousands of objects (every rendered line is a Strip with
its caches), and a full collection walks all of them: 300-500 ms on a slow machine, long
enough to freeze a streaming answer several times. While an answer streams, the objects
already alive are moved out of the collector's way (``gc.freeze``, which costs nothing);
young objects are still collected as usual, but the oldest generation (whose collection
walks everything that survived since the last freeze: 20-50 ms here, several times a
minute) waits. A few seconds after the last answer ends
(or when another chat is opened), they are handed back, so garbage among them is freed
while nothing is streaming. Textual does the same for smooth scrolling
(``App.PAUSE_GC_ON_SCROLL``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

RELEASE_AFTER_S = 3.0
"""Seconds of no streaming before frozen objects go back to the collector."""
QUIET_THRESHOLD_2 = 1_000_000
"""The oldest generation's threshold while streaming: in effect, no full collections."""


class GcQuiet:
    """Counts streaming answers; freezes the heap while any streams."""

    def __init__(self) -> None:
        self.streaming = 0
        """Answers streaming now."""
        self.frozen = False
        """Objects are held out of the collector."""
        self._threshold: tuple[int, int, int] | None = None
        """The collector's thresholds before streaming began (restored on release)."""

    def hold(self) -> None:
        """An answer started streaming, or settled more blocks: freeze what is alive."""
        gc.freeze()
        self.frozen = True
        if self._threshold is None:
            self._threshold = gc.get_threshold()
            young, middle, _ = self._threshold
            gc.set_threshold(young, middle, QUIET_THRESHOLD_2)

    def start(self) -> None:
        """An answer starts streaming."""
        self.streaming += 1
        self.hold()

    def stop(self, later: Callable[[float, Callable[[], None]], object]) -> None:
        """An answer ended; ``later(delay, callback)`` schedules the release."""
        self.streaming = max(0, self.streaming - 1)
        if not self.streaming:
            later(RELEASE_AFTER_S, self._idle)

    def _idle(self) -> None:
        if not self.streaming:
            self.release()

    def release(self) -> None:
        """Give every frozen object back to the collector (when nothing streams)."""
        if self.frozen and not self.streaming:
            gc.unfreeze()
            self.frozen = False
            if self._threshold is not None:
                gc.set_threshold(*self._threshold)
                self._threshold = None


GC_QUIET = GcQuiet()
"""One per process, like the collector itself."""
