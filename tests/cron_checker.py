"""An independent crontab(5)/cron(8) checker, for the differential test of the triggers.

Written from the manual pages, sharing no code with ``tuibot.jobs``: it walks UTC time
minute by minute (in quarter-hour blocks, inside which no real zone changes its offset),
converts each minute to the zone's wall clock and asks whether the expression matches.
cron(8)'s rule for clock changes is applied as it is written there:

- a job at a *specific time* (neither minute nor hour starts with ``*``) whose time falls
  in a skipped period runs right after the change; in a repeated period it runs once;
- a *wildcard* job runs at the wall-clock times that exist, in both passes of a repeated
  period, and not at all for times the clocks skip.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
SHORTHANDS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}
MINUTE = timedelta(minutes=1)
BLOCK = timedelta(minutes=15)


def _value(text: str, names: tuple[str, ...], first: int) -> int:
    """A number, or a name counted from ``first`` (jan = 1, sun = 0)."""
    if text in names:
        return names.index(text) + first
    return int(text)


def expand(
    field: str, low: int, high: int, names: tuple[str, ...] = (), first: int = 0
) -> set[int]:
    """The values a crontab field names: ``*``, ``a``, ``a-b``, each with ``/step``, lists."""
    values: set[int] = set()
    for item in field.lower().split(","):
        span, slash, step_text = item.partition("/")
        step = int(step_text) if slash else 1
        if span == "*":
            start, stop = low, high
        elif "-" in span:
            left, right = span.split("-")
            start, stop = _value(left, names, first), _value(right, names, first)
        else:
            start = _value(span, names, first)
            stop = high if slash else start
        values.update(range(start, stop + 1, step))
    return values


class Crontab:
    """One five-field expression, as crontab(5) reads it."""

    def __init__(self, expression: str) -> None:
        text = SHORTHANDS.get(expression.strip().lower(), expression)
        minute, hour, dom, month, dow = text.split()
        self.minutes = expand(minute, 0, 59)
        self.hours = expand(hour, 0, 23)
        self.doms = expand(dom, 1, 31)
        self.months = expand(month, 1, 12, MONTHS, 1)
        self.dows = {day % 7 for day in expand(dow, 0, 7, DAYS)}  # 7 is Sunday too
        self.either_day = not dom.startswith("*") and not dow.startswith("*")
        self.specific_time = not minute.startswith("*") and not hour.startswith("*")

    def day(self, when: date) -> bool:
        """Month, and day of month / day of week (either, when both are restricted)."""
        if when.month not in self.months:
            return False
        by_dom = when.day in self.doms
        by_dow = when.isoweekday() % 7 in self.dows
        return by_dom or by_dow if self.either_day else by_dom and by_dow

    def matches(self, wall: datetime) -> bool:
        """Whether the wall-clock minute ``wall`` is one of the expression's."""
        return wall.minute in self.minutes and wall.hour in self.hours and self.day(wall.date())


def _wall(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)


def _seen_before(moment: datetime, wall: datetime, zone: ZoneInfo) -> bool:
    """Whether the zone's clock showed ``wall`` already, up to two hours earlier."""
    return any(_wall(moment - timedelta(minutes=lag), zone) == wall for lag in (30, 60, 120))


def _skipped(block: datetime, zone: ZoneInfo) -> list[datetime]:
    """The wall-clock minutes the clock jumped over just before ``block``."""
    before, now = _wall(block - MINUTE, zone), _wall(block, zone)
    gap = int((now - before) / MINUTE) - 1
    return [before + MINUTE * (n + 1) for n in range(gap)] if gap > 0 else []


def _block_fires(tab: Crontab, block: datetime, zone: ZoneInfo) -> list[datetime]:
    """Fire times (UTC) inside one quarter-hour block, by cron(8)'s rules."""
    fires: list[datetime] = []
    if tab.specific_time and any(tab.matches(w) for w in _skipped(block, zone)):
        fires.append(block)  # a time the clocks skipped: right after the change
    wall = _wall(block, zone)
    assert _wall(block + 14 * MINUTE, zone) - wall == 14 * MINUTE, "offset changed mid-block"
    if not (tab.day(wall.date()) and wall.hour in tab.hours):
        return fires
    for k in range(15):
        moment, minute = block + k * MINUTE, wall + k * MINUTE
        if minute.minute not in tab.minutes:
            continue
        if tab.specific_time and _seen_before(moment, minute, zone):
            continue  # the second pass of a repeated period: once is enough
        if moment not in fires:
            fires.append(moment)
    return fires


def _next_block(tab: Crontab, block: datetime, zone: ZoneInfo) -> datetime:
    """The next block that can hold a fire time: the next one, or, when the rest of this
    hour cannot match, the start of the next hour that can (or of the next day), provided
    the offset is the same there (no zone changes its clock twice within a day)."""
    wall = _wall(block, zone)
    later = [hour for hour in tab.hours if hour > wall.hour] if tab.day(wall.date()) else []
    if tab.day(wall.date()) and wall.hour in tab.hours:
        return block + BLOCK
    skip = timedelta(hours=(later[0] if later else 24) - wall.hour, minutes=-wall.minute)
    target = block + skip
    same = target.astimezone(zone).utcoffset() == block.astimezone(zone).utcoffset()
    return target if same else block + BLOCK


def expected_fires(
    expression: str, zone_name: str, after: datetime, count: int, until: datetime
) -> list[datetime]:
    """The first ``count`` fire times strictly after ``after`` and not after ``until`` (UTC)."""
    tab, zone = Crontab(expression), ZoneInfo(zone_name)
    after = after.astimezone(UTC)
    block = after.replace(minute=after.minute - after.minute % 15, second=0, microsecond=0)
    fires: list[datetime] = []
    while len(fires) < count and block <= until:
        fires += [t for t in _block_fires(tab, block, zone) if after < t <= until]
        block = _next_block(tab, block, zone)
    return fires[:count]
