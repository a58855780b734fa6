"""Running time of delegated work, read through an injectable clock.

A delegation's ``timeMs`` counts only the time it runs (paused time does not count) and
its deadline fires even while no turn runs. Both read time through a :class:`Clock`, so
a test can hand the manager a clock it moves by hand instead of sleeping through limits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation, Usage
    from tuibot.delegation.state import WorkState


class Clock(Protocol):
    """Where delegation reads the time and waits for a deadline."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (running time)."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (when a pause happened, for the record)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` on this clock."""
        ...


class SystemClock:
    """The real clock: ``time.monotonic``, ``time.time`` and ``asyncio.sleep``."""

    def monotonic(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def wall(self) -> float:
        """``time.time()``."""
        return time.time()

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep(seconds)``."""
        await asyncio.sleep(seconds)


class WorkClocks:
    """Each running record's clock: started, stopped, read, and its deadline timer."""

    def __init__(
        self, state: WorkState, clock: Clock, on_time_up: Callable[[Delegation], None]
    ) -> None:
        self.state = state
        self.clock = clock
        self._on_time_up = on_time_up
        """Pauses the work at its ``time`` limit (the manager's pauses)."""

    def wall(self) -> float:
        """Now, in seconds since the epoch (for a pause's record)."""
        return self.clock.wall()

    def run(self, record: Delegation) -> None:
        """The work may take steps from now: its clock and its deadline timer start."""
        live = self.state.entry(record.id)
        live.since = self.clock.monotonic()
        live.resume.set()
        live.timer = self.state.spawn(self.deadline(record.id), f"deadline {record.id}")

    def stop(self, delegation_id: str) -> None:
        """The clock stops (a pause or the end); the deadline timer is cancelled."""
        live = self.state.live.get(delegation_id)
        if live is None:
            return
        live.since = None
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None

    def clocked(self, record: Delegation, steps: int = 0, *, commit: bool = True) -> Usage:
        """``record.usage`` with the time run since the clock last started and ``steps``.

        With ``commit`` the clock restarts from now: the caller saves the result, so the
        time moves from the clock into the record and is never counted twice or lost.
        """
        live = self.state.live.get(record.id)
        elapsed = 0
        if live is not None and live.since is not None:
            now = self.clock.monotonic()
            elapsed = int((now - live.since) * 1000)
            if commit:
                live.since = now
        return replace(
            record.usage, time_ms=record.usage.time_ms + elapsed, steps=record.usage.steps + steps
        )

    async def deadline(self, delegation_id: str) -> None:
        """Pause the work when its time is up, even if no turn is running."""
        while True:
            record = self.state.journal.get(delegation_id)
            live = self.state.live.get(delegation_id)
            if record is None or live is None or record.status != "running":
                return
            used_ms = self.clocked(record, commit=False).time_ms - record.window.time_ms
            left_ms = record.limits.time_ms - used_ms
            if left_ms <= 0:
                self._on_time_up(record)
                return
            await self.clock.sleep(left_ms / 1000)
