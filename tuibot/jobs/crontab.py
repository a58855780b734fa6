"""A crontab(5) expression read into the sets of values it names.

tuibot computes cron fire times itself (:mod:`tuibot.jobs.triggers`) rather than through
APScheduler's ``CronTrigger``, whose reading differs from crontab's: it counts weekdays
from Monday, wants both day fields to match, refuses steps larger than their range
(``8-10/3``, which crontab reads as 8) and misses runs after the spring clock change. So
the five fields are parsed here the way crontab reads them: numbers, names (``jan`` …,
``sun`` …), ``*``, ranges ``a-b``, steps ``*/n``, ``a-b/n`` and ``a/n`` (from ``a`` to the
end), lists, and 0 or 7 for Sunday.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


class CronSyntaxError(ValueError):
    """A field crontab would not accept; the message names the field and the value."""


@dataclass(frozen=True)
class FieldRule:
    """How one field is read: its name, its bounds and the names it accepts."""

    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()
    first: int = 0
    """The value of the first name (``jan`` is 1, ``sun`` is 0)."""


RULES = (
    FieldRule("minute", 0, 59),
    FieldRule("hour", 0, 23),
    FieldRule("day of month", 1, 31),
    FieldRule("month", 1, 12, MONTH_NAMES, 1),
    FieldRule("day of week", 0, 7, DAY_NAMES, 0),
)


@dataclass(frozen=True)
class CronSpec:
    """The values of each field, and the two flags cron(8) decides by."""

    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    """Sunday is 0 (7 is folded into it)."""
    either_day: bool
    """Both day fields restricted (neither starts with ``*``): a day matching either runs."""
    fixed_time: bool
    """Neither minute nor hour starts with ``*``: a time of day, not an interval."""

    def day_matches(self, day: date) -> bool:
        """Whether the job runs on ``day`` (month, then the day-of-month/week rule)."""
        if day.month not in self.months:
            return False
        by_day = day.day in self.days
        by_weekday = day.isoweekday() % 7 in self.weekdays
        return (by_day or by_weekday) if self.either_day else (by_day and by_weekday)


def parse_crontab(expression: str) -> CronSpec:
    """The :class:`CronSpec` of a five-field expression; :class:`CronSyntaxError` if bad."""
    fields = expression.split()
    if len(fields) != 5:
        raise CronSyntaxError(
            "a cron expression has 5 fields (minute hour day-of-month month day-of-week), "
            f"got {len(fields)}"
        )
    minute, hour, day, month, weekday = (
        field_values(text, rule) for text, rule in zip(fields, RULES, strict=True)
    )
    return CronSpec(
        minutes=tuple(sorted(minute)),
        hours=tuple(sorted(hour)),
        days=frozenset(day),
        months=frozenset(month),
        weekdays=frozenset(value % 7 for value in weekday),
        either_day=not fields[2].startswith("*") and not fields[4].startswith("*"),
        fixed_time=not fields[0].startswith("*") and not fields[1].startswith("*"),
    )


def field_values(text: str, rule: FieldRule) -> set[int]:
    """The values one field names; a step may be larger than its range (``1-2/3`` → 1)."""
    values: set[int] = set()
    for item in text.lower().split(","):
        span, slash, step_text = item.partition("/")
        if slash and not (step_text.isdigit() and int(step_text) >= 1):
            raise CronSyntaxError(f"bad step {step_text!r} in {rule.name} {text!r}")
        step = int(step_text) if slash else 1
        if span == "*":
            first, last = rule.low, rule.high
        elif "-" in span:
            left, _, right = span.partition("-")
            first, last = _value(left, rule, text), _value(right, rule, text)
            if first > last:
                raise CronSyntaxError(f"{rule.name} range {span!r} runs backwards in {text!r}")
        else:
            first = _value(span, rule, text)
            last = rule.high if slash else first
        values.update(range(first, last + 1, step))
    return values


def _value(word: str, rule: FieldRule, text: str) -> int:
    """One number or name of a field, within the field's bounds."""
    if word in rule.names:
        return rule.names.index(word) + rule.first
    if word.isdigit() and rule.low <= int(word) <= rule.high:
        return int(word)
    named = f", or {rule.names[0]}-{rule.names[-1]}" if rule.names else ""
    sunday = ", where 0 and 7 are Sunday" if rule.name == "day of week" else ""
    where = f" in {text!r}" if text != word else ""
    raise CronSyntaxError(
        f"bad {rule.name} {word!r}{where} (use {rule.low}-{rule.high}{sunday}{named})"
    )
