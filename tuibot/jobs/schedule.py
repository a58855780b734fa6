"""When a job runs: once ``at`` a time, ``every`` N seconds, or on a crontab expression.

Cron expressions mean what they mean in a crontab (:mod:`tuibot.jobs.crontab` reads
them): weekdays count from Sunday (0 and 7), a day matching *either* day field runs when
both are restricted, and a step may be larger than its range. Their fire times are
computed by :class:`tuibot.jobs.triggers.CrontabTrigger`, which applies cron(8)'s rules
when the clocks change; APScheduler only runs the jobs.

Every schedule carries its time zone (an IANA name, the machine's zone when none is
given), so "09:00" stays 09:00 across daylight-saving changes. APScheduler is imported
only when a trigger is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

from tuibot.jobs.crontab import CronSyntaxError, parse_crontab

ScheduleKind = Literal["at", "every", "cron"]
MIN_EVERY = 60
"""Shortest ``every`` interval in seconds: a job is a model turn, not a polling loop."""
MAX_EVERY = 366 * 86400
"""Longest ``every`` interval (a year and a day); use ``cron`` for rarer work."""

ALIASES = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}
"""The crontab shorthands; ``@reboot`` has no meaning for a schedule and is refused."""
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"(\d+)\s*([smhdw])")


class ScheduleError(ValueError):
    """A schedule that cannot be used; the message says what is wrong and what to write."""


class Clock(Protocol):
    """Where the scheduler reads the time (tests inject a fake one)."""

    def now(self) -> datetime:
        """The current time, time-zone aware."""
        ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass(frozen=True)
class Schedule:
    """One of the three kinds; only the field of its kind is set."""

    kind: ScheduleKind
    tz: str
    """IANA time zone the time or expression is read in (``UTC`` for ``every``)."""
    at: datetime | None = None
    every: int | None = None
    """Seconds between runs."""
    cron: str | None = None
    """A five-field crontab expression (aliases such as ``@daily`` already expanded)."""

    def to_json(self) -> dict[str, Any]:
        """The form stored in ``jobs.json``: one key naming the kind, plus ``tz``."""
        if self.kind == "at":
            assert self.at is not None
            return {"at": self.at.isoformat(), "tz": self.tz}
        if self.kind == "every":
            return {"every": self.every}
        return {"cron": self.cron, "tz": self.tz}

    @classmethod
    def from_json(cls, data: object) -> Schedule:
        """A stored schedule (past times allowed); :class:`ScheduleError` says what is wrong."""
        if not isinstance(data, dict):
            raise ScheduleError("schedule must be an object with at, every or cron")
        kinds = [key for key in ("at", "every", "cron") if key in data]
        if len(kinds) != 1:
            raise ScheduleError("schedule must have exactly one of at, every, cron")
        tz = data.get("tz", "UTC")
        if not isinstance(tz, str):
            raise ScheduleError("schedule.tz must be a time zone name")
        value = data[kinds[0]]
        if kinds[0] == "every":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ScheduleError("schedule.every must be whole seconds")
            return every(value)
        if not isinstance(value, str):
            raise ScheduleError(f"schedule.{kinds[0]} must be a string")
        if kinds[0] == "cron":
            return cron(value, tz)
        zone(tz)
        try:
            when = datetime.fromisoformat(value)
        except ValueError as error:
            raise ScheduleError(f"schedule.at is not an ISO time: {value!r}") from error
        if when.tzinfo is None:
            raise ScheduleError(f"schedule.at has no UTC offset: {value!r}")
        return cls("at", tz, at=when)

    def describe(self) -> str:
        """For lists: ``at 2026-05-01 09:00 (Europe/Lisbon)``, ``every 15m``, ``cron …``."""
        if self.kind == "at":
            assert self.at is not None
            shown = self.at.astimezone(zone(self.tz)).strftime("%Y-%m-%d %H:%M")
            return f"at {shown} ({self.tz})"
        if self.kind == "every":
            return f"every {format_duration(self.every or 0)}"
        return f"cron {self.cron} ({self.tz})"

    def trigger(self) -> Any:
        """The APScheduler trigger for this schedule."""
        zone_info = zone(self.tz)
        if self.kind == "at":
            from apscheduler.triggers.date import DateTrigger

            return DateTrigger(run_date=self.at, timezone=zone_info)
        if self.kind == "every":
            from apscheduler.triggers.interval import IntervalTrigger

            return IntervalTrigger(seconds=self.every or MIN_EVERY, timezone=UTC)
        assert self.cron is not None
        return cron_trigger(self.cron, zone_info)

    def next_fire(self, after: datetime, now: datetime) -> datetime | None:
        """The first run strictly after ``after`` (which may lie in the past), or None."""
        if self.kind == "at":
            assert self.at is not None
            return self.at if self.at > after else None
        fire: datetime | None = self.trigger().get_next_fire_time(after, now)
        return fire


# -- building schedules from what a person or a bot wrote ---------------------------


def parse_schedule(
    *, at: str = "", every_: str = "", cron_: str = "", tz: str = "", now: datetime
) -> Schedule:
    """The schedule of a new job: exactly one of ``at``, ``every_``, ``cron_``.

    ``at`` is an ISO time (``2026-05-01T09:00``, read in ``tz``) or ``+DURATION`` from now
    and must lie in the future; ``every_`` is a duration (``90s``, ``15m``, ``1h30m``, or
    plain seconds); ``cron_`` a crontab expression read in ``tz``.
    """
    given = [name for name, value in (("at", at), ("every", every_), ("cron", cron_)) if value]
    if len(given) != 1:
        raise ScheduleError("give exactly one schedule: at (a time), every (a duration) or cron")
    zone_name = tz.strip() or local_zone_name()
    if every_:
        if tz.strip():
            raise ScheduleError("every counts seconds; a time zone means nothing to it")
        return every(parse_duration(every_))
    zone(zone_name)  # also for ``at +20m``, which reads no time in it but keeps its name
    if cron_:
        schedule = cron(cron_, zone_name)
        if schedule.next_fire(now, now) is None:
            raise ScheduleError(
                f"cron {schedule.cron!r} never runs: no date has that day of the month "
                "in those months"
            )
        return schedule
    return Schedule("at", zone_name, at=parse_at(at, zone_name, now))


def every(seconds: int) -> Schedule:
    """An interval schedule, within :data:`MIN_EVERY` and :data:`MAX_EVERY`."""
    if not MIN_EVERY <= seconds <= MAX_EVERY:
        raise ScheduleError(
            f"every must be between {MIN_EVERY} s and {MAX_EVERY // 86400} days, "
            f"got {seconds} s (use cron for rarer work)"
        )
    return Schedule("every", "UTC", every=seconds)


def cron(expression: str, tz: str) -> Schedule:
    """A cron schedule; the expression is checked by building its trigger."""
    text = " ".join(expression.split())
    text = ALIASES.get(text.lower(), text)
    cron_trigger(text, zone(tz))
    return Schedule("cron", tz, cron=text)


def parse_at(text: str, tz: str, now: datetime) -> datetime:
    """``+DURATION`` from now, or an ISO time (naive times are read in ``tz``); future only."""
    text = text.strip()
    if text.startswith("+"):
        when = now + timedelta(seconds=parse_duration(text[1:]))
    else:
        try:
            when = datetime.fromisoformat(text)
        except ValueError as error:
            raise ScheduleError(
                f"at must be an ISO time such as 2026-05-01T09:00, or +DURATION such as +20m;"
                f" got {text!r}"
            ) from error
        if when.tzinfo is None:
            when = when.replace(tzinfo=zone(tz))
    if when <= now:
        raise ScheduleError(f"at {when.isoformat()} has already passed")
    return when


def parse_duration(text: str) -> int:
    """Seconds from ``90``, ``90s``, ``15m``, ``2h``, ``1d``, ``1w`` or ``1h30m``."""
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned.isdigit():
        return int(cleaned)
    parts = _DURATION.findall(cleaned)
    if not parts or "".join(n + u for n, u in parts) != cleaned:
        raise ScheduleError(f"not a duration: {text!r} (write e.g. 90s, 15m, 2h, 1d or 1h30m)")
    return sum(int(number) * _UNITS[unit] for number, unit in parts)


def format_duration(seconds: float) -> str:
    """``5400`` → ``1h30m``; ``45`` → ``45s``."""
    left = int(seconds)
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size or (unit == "s" and not parts):
            parts.append(f"{left // size}{unit}")
            left %= size
    return "".join(parts)


def zone(name: str) -> Any:
    """The ``ZoneInfo`` of an IANA name; :class:`ScheduleError` for an unknown one."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as error:
        raise ScheduleError(
            f"unknown time zone {name!r} (use an IANA name such as Europe/Berlin or UTC)"
        ) from error


def local_zone_name() -> str:
    """This machine's IANA zone name, or ``UTC`` when it cannot be told."""
    try:
        from tzlocal import get_localzone_name

        name = get_localzone_name()
        zone(name)
        return name
    except Exception:  # no zone configured, or one ZoneInfo does not know
        return "UTC"


# -- crontab → trigger ----------------------------------------------------------------


def cron_trigger(expression: str, zone_info: Any) -> Any:
    """The trigger that fires when a crontab would run ``expression`` in the zone."""
    if expression.startswith("@"):
        raise ScheduleError(f"unknown cron shorthand {expression!r} (known: {', '.join(ALIASES)})")
    try:
        spec = parse_crontab(expression)
    except CronSyntaxError as error:
        raise ScheduleError(f"bad cron expression {expression!r}: {error}") from error
    from tuibot.jobs.triggers import CrontabTrigger

    return CrontabTrigger(spec, zone_info, expression)
