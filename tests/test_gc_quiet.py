"""Full garbage collections wait while the app is busy, and come back once it is idle."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

from tuibot.tui.render.gc_quiet import QUIET_THRESHOLD_2, GcQuiet


class Node:
    """Something that can be part of a reference cycle (only the collector frees it)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> Node:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a


def test_busy_spells_freeze_the_heap_and_defer_full_collections() -> None:
    before = gc.get_threshold()
    quiet = GcQuiet()
    scheduled: list[Callable[[], None]] = []
    later = lambda _delay, callback: scheduled.append(callback)  # noqa: E731
    try:
        quiet.start()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (before[0], before[1], QUIET_THRESHOLD_2)
        quiet.start()  # history is drawn while an answer streams
        quiet.stop(later)
        assert not scheduled, "still busy: no release is even scheduled"
        quiet.stop(later)
        assert gc.get_threshold()[2] == QUIET_THRESHOLD_2, "released only later, when idle"
        quiet.start()  # busy again before the release fires: it stays quiet
        quiet.stop(later)
        first, last = scheduled
        first()
        assert gc.get_threshold()[2] == QUIET_THRESHOLD_2, "a later spell ended since"
        last()
        assert gc.get_threshold() == before
    finally:
        quiet.busy = 0
        gc.unfreeze()
        gc.set_threshold(*before)


def test_the_release_frees_garbage_that_was_frozen_and_freezes_what_lives() -> None:
    before = gc.get_threshold()
    quiet = GcQuiet()
    try:
        node = _cycle()
        garbage = weakref.ref(node)
        quiet.start()  # the cycle is alive here, so it is frozen with the rest
        del node
        gc.collect()
        assert garbage() is not None, "frozen objects are not collected while busy"
        quiet.stop(lambda _delay, callback: callback())
        assert garbage() is None, "collected once nothing was busy"
        assert gc.get_freeze_count() > 0, "what survives is frozen again"
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_settle_freezes_what_start_up_made() -> None:
    quiet = GcQuiet()
    try:
        gc.unfreeze()
        quiet.settle()
        assert gc.get_freeze_count() > 0 and quiet.frozen
    finally:
        gc.unfreeze()
