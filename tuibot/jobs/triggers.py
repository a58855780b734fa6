"""Cron fire times computed on the zone's wall clock, with cron(8)'s rules for clock changes.

APScheduler stays the scheduler, but its ``CronTrigger`` (3.11) misses runs after the
spring change (upstream issues #529, #606: Berlin's ``0 0 * * *`` skipped 2025-03-31) and
fires a skipped hour's job at an hour its expression excludes. :class:`CrontabTrigger`
walks the wall-clock times the expression names, in order, and turns each into instants:

- a time that exists once is one run;
- a time the clocks go back over happens twice: a *fixed-time* job (neither minute nor
  hour starts with ``*``) runs in the first pass only, a *wildcard* job in both;
- a time the clocks skip: a fixed-time job runs right after the change (once, however
  many of its times were skipped); a wildcard job does not run for it.

APScheduler is imported here, at the top: this module is imported only when a trigger is
built.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

from apscheduler.triggers.base import BaseTrigger

from tuibot.jobs.crontab import CronSpec

SHIFT = timedelta(hours=3)
"""More than any clock change: wall times this far apart cannot swap their order."""
HORIZON_DAYS = 366 * 10
"""How far ahead to look before deciding the expression never runs again."""
MINUTE = timedelta(minutes=1)
TICK = timedelta(microseconds=1)


class CrontabTrigger(BaseTrigger):  # type: ignore[misc]  # apscheduler ships no types
    """Fires at the instants a crontab runs ``spec`` in ``zone_info``."""

    def __init__(self, spec: CronSpec, zone_info: Any, expression: str = "") -> None:
        self.spec = spec
        self.zone = zone_info
        self.expression = expression

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        """As APScheduler's triggers answer: the first fire at or after ``now``, or right
        after ``previous_fire_time`` when that is earlier (so missed runs are seen)."""
        start = now.astimezone(UTC)
        if previous_fire_time is not None:
            previous = previous_fire_time.astimezone(UTC)
            start = min(start, previous + TICK)
            if start == previous:
                start += TICK
        return self.first_at_or_after(start)

    def first_at_or_after(self, start: datetime) -> datetime | None:
        """The earliest fire instant not before ``start``, in the trigger's zone."""
        start = start.astimezone(UTC)
        begin = start.astimezone(self.zone).replace(tzinfo=None, second=0, microsecond=0)
        best: datetime | None = None
        best_wall = begin
        for wall in self._walls(begin - SHIFT):
            if best is not None and wall > best_wall + SHIFT:
                break
            for moment in self._instants(wall):
                if moment >= start and (best is None or moment < best):
                    best, best_wall = moment, wall
            if best is not None and best_wall == wall and self._steady(best):
                break  # no clock change ahead that could bring an earlier instant
        return best.astimezone(self.zone) if best is not None else None

    def _walls(self, begin: datetime) -> Iterator[datetime]:
        """The wall-clock minutes the expression names, from ``begin`` on, in order."""
        day, last = begin.date(), begin.date() + timedelta(days=HORIZON_DAYS)
        while day <= last:
            if day.month not in self.spec.months:
                day = date(day.year + day.month // 12, day.month % 12 + 1, 1)
                continue
            if self.spec.day_matches(day):
                for hour in self.spec.hours:
                    for minute in self.spec.minutes:
                        wall = datetime(day.year, day.month, day.day, hour, minute)
                        if wall >= begin:
                            yield wall
            day += timedelta(days=1)

    def _instants(self, wall: datetime) -> list[datetime]:
        """The UTC instants ``wall`` stands for, by cron(8)'s rules for clock changes."""
        first = wall.replace(tzinfo=self.zone).astimezone(UTC)
        second = wall.replace(tzinfo=self.zone, fold=1).astimezone(UTC)
        if first == second:
            return [first]
        if first < second:  # happens twice: the clocks went back over it
            return [first] if self.spec.fixed_time else [first, second]
        # skipped: fold=1 reads it before the change, fold=0 after it
        return [self._change(second, first)] if self.spec.fixed_time else []

    def _change(self, before: datetime, after: datetime) -> datetime:
        """The first minute with ``after``'s offset: the instant the clocks jumped."""
        offset = after.astimezone(self.zone).utcoffset()
        while after - before > MINUTE:
            middle = before + (after - before) // 2
            middle = middle.replace(second=0, microsecond=0)
            if middle <= before:
                middle = before + MINUTE
            if middle.astimezone(self.zone).utcoffset() == offset:
                after = middle
            else:
                before = middle
        return after

    def _steady(self, moment: datetime) -> bool:
        """Whether the zone keeps one offset for :data:`SHIFT` either side of ``moment``:
        then no wall time after ``moment``'s can stand for an earlier instant."""
        offsets = {(moment + k * SHIFT).astimezone(self.zone).utcoffset() for k in (-1, 0, 1)}
        return len(offsets) == 1

    def __str__(self) -> str:
        return f"cron[{self.expression}]"

    def __repr__(self) -> str:
        return f"<CrontabTrigger {self.expression!r} {self.zone}>"
