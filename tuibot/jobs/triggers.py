"""A cron trigger that runs a job at a fixed time of day once on the night clocks go back.

When daylight saving time ends, an hour of wall-clock time happens twice (02:00–02:59 in
Europe/Berlin on the last Sunday of October). APScheduler's ``CronTrigger`` fires in both,
so a backup at ``30 2 * * *`` would run twice that night. crontab (cronie, Vixie cron) runs
such a *fixed-time* job once; only jobs whose minute or hour field starts with ``*``
(``*/15 * * * *``, ``0 * * * *``) run again in the repeated hour, since they are about an
interval, not a time of day. :func:`tuibot.jobs.schedule.cron_trigger` wraps the
fixed-time ones in :class:`OncePerWallTime`.

APScheduler is imported here, at the top: this module is imported only when a trigger is
built.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from apscheduler.triggers.base import BaseTrigger


class OncePerWallTime(BaseTrigger):
    """Fires when ``inner`` does, except at a wall-clock time the zone already had once."""

    def __init__(self, inner: BaseTrigger, zone_info: Any) -> None:
        self.inner = inner
        self.zone = zone_info

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        fire: datetime | None = self.inner.get_next_fire_time(previous_fire_time, now)
        while fire is not None and repeated(fire, self.zone):
            fire = self.inner.get_next_fire_time(fire, _not_before(now, fire))
        return fire

    def __str__(self) -> str:
        return str(self.inner)

    def __repr__(self) -> str:
        return f"<OncePerWallTime {self.inner!r}>"


def _not_before(now: datetime, fire: datetime) -> datetime:
    """``now``, or ``fire`` when that is later: a cron trigger starts from the earlier of
    ``now`` and the previous fire time, so an earlier ``now`` would give ``fire`` back.
    Compared in UTC: two times of one zone compare by wall clock, fold and all."""
    return fire if now.astimezone(UTC) <= fire.astimezone(UTC) else now


def repeated(moment: datetime, zone_info: Any) -> bool:
    """Whether ``moment``'s wall-clock time in the zone happened already, an hour earlier
    (the second pass through the hour the clocks went back over)."""
    local = moment.astimezone(UTC).astimezone(zone_info)
    first = local.replace(fold=0).astimezone(UTC)
    return first < moment.astimezone(UTC)
