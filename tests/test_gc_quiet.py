"""Full garbage collections wait while an answer streams, and come back after."""

from __future__ import annotations

import gc
from collections.abc import Callable

from tuibot.tui.widgets.gc_quiet import QUIET_THRESHOLD_2, GcQuiet


def test_streaming_freezes_the_heap_and_defers_full_collections() -> None:
    before = gc.get_threshold()
    quiet = GcQuiet()
    scheduled: list[Callable[[], None]] = []
    try:
        quiet.start()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (before[0], before[1], QUIET_THRESHOLD_2)
        quiet.start()  # a second answer streams too
        quiet.stop(lambda _delay, callback: scheduled.append(callback))
        quiet.stop(lambda _delay, callback: scheduled.append(callback))
        assert gc.get_threshold()[2] == QUIET_THRESHOLD_2, "released only later, when idle"
        quiet.start()  # a new answer before the release fires: it stays quiet
        for callback in scheduled:
            callback()
        assert quiet.frozen and gc.get_threshold()[2] == QUIET_THRESHOLD_2
        quiet.stop(lambda _delay, callback: callback())
        assert not quiet.frozen and gc.get_freeze_count() == 0
        assert gc.get_threshold() == before
    finally:
        quiet.streaming = 0
        quiet.release()
        gc.set_threshold(*before)
