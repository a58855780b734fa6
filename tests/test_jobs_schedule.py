"""Schedules: crontab meaning (Sunday is 0 and 7, either-day rule), durations, time zones,
and the clear errors bad input gets."""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from cron_checker import expected_fires

from tuibot.jobs.crontab import RULES, field_values
from tuibot.jobs.schedule import (
    Schedule,
    ScheduleError,
    cron,
    every,
    format_duration,
    parse_duration,
    parse_schedule,
)

FRIDAY = datetime(2026, 3, 6, 8, 0, tzinfo=UTC)


def fires(schedule: Schedule, count: int, after: datetime = FRIDAY) -> list[datetime]:
    """The next ``count`` run times after ``after``."""
    found = []
    current = after
    for _ in range(count):
        nxt = schedule.next_fire(current, current)
        assert nxt is not None
        found.append(nxt)
        current = nxt
    return found


def test_weekday_zero_is_sunday_not_monday() -> None:
    [first] = fires(cron("0 9 * * 0", "UTC"), 1)
    assert first == datetime(2026, 3, 8, 9, 0, tzinfo=UTC)
    assert first.strftime("%A") == "Sunday"


def test_seven_is_sunday_too_and_names_mean_the_same() -> None:
    for expression in ("0 9 * * 7", "0 9 * * sun", "0 9 * * SUN"):
        assert [d.strftime("%A") for d in fires(cron(expression, "UTC"), 2)] == [
            "Sunday",
            "Sunday",
        ]


def test_ranges_lists_and_steps_count_from_sunday() -> None:
    weekdays = [d.strftime("%a") for d in fires(cron("30 7 * * 1-5", "UTC"), 6)]
    assert weekdays == ["Mon", "Tue", "Wed", "Thu", "Fri", "Mon"]
    weekday = RULES[4]
    assert field_values("1-5", weekday) == {1, 2, 3, 4, 5}
    assert field_values("5-7", weekday) == {5, 6, 7}  # 7 is Sunday, folded to 0 by the spec
    assert field_values("0,6", weekday) == {0, 6}
    assert field_values("*/2", weekday) == {0, 2, 4, 6}
    assert field_values("1-5/2", weekday) == {1, 3, 5}
    assert field_values("mon-wed", weekday) == {1, 2, 3}
    assert field_values("7/2", weekday) == {7}  # from 7 on: Sunday alone, not no day at all
    assert field_values("8-10/3", RULES[1]) == {8}  # a step larger than its range: crontab
    assert field_values("jan-mar/2", RULES[3]) == {1, 3}


def test_a_cron_expression_that_never_runs_is_refused() -> None:
    for expression in ("0 9 31 2 *", "0 9 30 feb *", "0 9 31 4,6,9,11 *"):
        with pytest.raises(ScheduleError, match="never runs"):
            parse_schedule(cron_=expression, tz="UTC", now=FRIDAY)
    leap_day = parse_schedule(cron_="0 9 29 2 *", tz="UTC", now=FRIDAY)  # rare, not never
    assert fires(leap_day, 1) == [datetime(2028, 2, 29, 9, 0, tzinfo=UTC)]


def test_day_of_month_or_day_of_week_as_crontab_means() -> None:
    # The 1st of the month OR any Monday: April 2026 starts on a Wednesday.
    days = fires(cron("0 9 1 * 1", "UTC"), 4, after=datetime(2026, 3, 28, tzinfo=UTC))
    assert [d.date().isoformat() for d in days] == [
        "2026-03-30",
        "2026-04-01",
        "2026-04-06",
        "2026-04-13",
    ]


def test_cron_runs_in_its_time_zone_across_daylight_saving() -> None:
    schedule = cron("0 9 * * *", "Europe/Berlin")
    before, after = fires(schedule, 2, after=datetime(2026, 3, 27, 12, tzinfo=UTC))
    assert (before.hour, after.hour) == (9, 9)  # 09:00 in Berlin both days ...
    assert (before.astimezone(UTC).hour, after.astimezone(UTC).hour) == (8, 7)  # CET, CEST


def test_a_time_of_day_runs_once_the_night_the_clocks_go_back() -> None:
    # Berlin, 2026-10-25: 03:00 CEST becomes 02:00 CET, so 02:30 happens twice.
    backup = cron("30 2 * * *", "Europe/Berlin")
    nights = fires(backup, 3, after=datetime(2026, 10, 23, 12, tzinfo=UTC))
    assert [n.astimezone(UTC).isoformat() for n in nights] == [
        "2026-10-24T00:30:00+00:00",
        "2026-10-25T00:30:00+00:00",  # 02:30 CEST; not again at 02:30 CET an hour later
        "2026-10-26T01:30:00+00:00",
    ]


def test_an_interval_in_cron_runs_in_both_passes_through_the_repeated_hour() -> None:
    half_hourly = cron("*/30 * * * *", "Europe/Berlin")
    times = fires(half_hourly, 4, after=datetime(2026, 10, 24, 23, 50, tzinfo=UTC))
    assert [t.astimezone(UTC).strftime("%H:%M") for t in times] == [
        "00:00",
        "00:30",
        "01:00",  # 02:00 CET, the second pass: as crontab runs a job whose hour is *
        "01:30",
    ]


def test_every_counts_from_the_last_due_time() -> None:
    assert fires(every(900), 2) == [FRIDAY + timedelta(minutes=15), FRIDAY + timedelta(minutes=30)]


def test_at_fires_once() -> None:
    when = FRIDAY + timedelta(hours=1)
    schedule = parse_schedule(at="+1h", now=FRIDAY)
    assert schedule.next_fire(FRIDAY, FRIDAY) == when
    assert schedule.next_fire(when, when) is None


def test_naive_at_is_read_in_the_given_zone() -> None:
    schedule = parse_schedule(at="2026-03-07T09:00", tz="America/New_York", now=FRIDAY)
    assert schedule.at == datetime(2026, 3, 7, 14, 0, tzinfo=UTC)


def test_aliases_and_round_trip_through_json() -> None:
    daily = cron("@daily", "Europe/Lisbon")
    assert daily.cron == "0 0 * * *"
    for schedule in (daily, every(3600), parse_schedule(at="+2h", tz="UTC", now=FRIDAY)):
        assert Schedule.from_json(schedule.to_json()) == schedule


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("0 9 * *", "5 fields"),
        ("61 9 * * *", "bad cron expression"),
        ("0 9 * * 8", "bad day of week '8'"),
        ("0 9 * * 5-1", "runs backwards"),
        ("0 x * * *", "bad cron expression"),
        ("@reboot", "unknown cron shorthand"),
    ],
)
def test_bad_cron_expressions_say_what_is_wrong(expression: str, says: str) -> None:
    with pytest.raises(ScheduleError, match=says):
        cron(expression, "UTC")


def test_bad_time_zone_names_an_example() -> None:
    with pytest.raises(ScheduleError, match=r"unknown time zone 'Mars/Olympus'.*Europe/Berlin"):
        cron("0 9 * * *", "Mars/Olympus")
    with pytest.raises(ScheduleError, match="unknown time zone"):
        parse_schedule(at="2026-05-01T09:00", tz="../etc/passwd", now=FRIDAY)


def test_bad_durations_times_and_combinations() -> None:
    assert parse_duration("1h30m") == 5400 and parse_duration("90") == 90
    assert format_duration(5400) == "1h30m" and format_duration(45) == "45s"
    with pytest.raises(ScheduleError, match="not a duration"):
        parse_duration("soon")
    with pytest.raises(ScheduleError, match="between 60 s"):
        parse_schedule(every_="10s", now=FRIDAY)
    with pytest.raises(ScheduleError, match="already passed"):
        parse_schedule(at="2026-03-06T07:00", tz="UTC", now=FRIDAY)
    with pytest.raises(ScheduleError, match="exactly one"):
        parse_schedule(every_="1h", cron_="0 9 * * *", now=FRIDAY)
    with pytest.raises(ScheduleError, match="ISO time"):
        parse_schedule(at="tomorrow", now=FRIDAY)


# -- differential: the trigger against an independent cron(8) checker ----------------

ZONES = (
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Europe/London",
    "Pacific/Chatham",
    "Asia/Kathmandu",
    "UTC",
)
CHANGES = (
    datetime(2025, 3, 30, 1, tzinfo=UTC),  # Berlin, London: spring
    datetime(2025, 10, 26, 1, tzinfo=UTC),  # Berlin, London: autumn
    datetime(2025, 3, 9, 7, tzinfo=UTC),  # New York: spring
    datetime(2025, 11, 2, 6, tzinfo=UTC),  # New York: autumn
    datetime(2025, 4, 5, 15, tzinfo=UTC),  # Lord Howe: back 30 minutes
    datetime(2025, 10, 4, 15, 30, tzinfo=UTC),  # Lord Howe: forward 30 minutes
    datetime(2025, 4, 5, 14, tzinfo=UTC),  # Chatham: back
    datetime(2025, 9, 27, 14, tzinfo=UTC),  # Chatham: forward
)
FIELDS = {
    "minute": ("0", "30", "15", "45", "*", "*/15", "*/30", "5,35", "0-59/20", "10-20/7", "59"),
    "hour": ("0", "1", "2", "3", "*", "*/2", "1-3", "2,14", "8-10/3", "0-23/5", "23"),
    "dom": ("*", "*", "*", "*", "1", "30,31", "*/2", "1-7", "5-6/3", "26"),
    "month": ("*", "*", "*", "*", "3", "mar,oct", "*/3", "3-4", "10-11", "4", "1-2/3"),
    "dow": ("*", "*", "*", "*", "0", "7", "mon", "1-5", "sun", "6,0", "*/2", "1-2/3"),
}
SHORTHANDS = ("@hourly", "@daily", "@weekly", "@monthly", "@yearly")
FIRES = 20


def generated_cases(count: int, seed: int) -> list[tuple[str, str, datetime]]:
    """(expression, zone, start) cases, the starts near clock changes or anywhere in 2025."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        if rng.random() < 0.1:
            expression = rng.choice(SHORTHANDS)
        else:
            expression = " ".join(rng.choice(FIELDS[name]) for name in FIELDS)
        if rng.random() < 0.8:
            start = rng.choice(CHANGES) - timedelta(minutes=rng.randrange(0, 72 * 60))
        else:
            start = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(525600))
        start += timedelta(seconds=rng.randrange(60))
        cases.append((expression, rng.choice(ZONES), start))
    return cases


def trigger_fires(expression: str, zone: str, after: datetime, until: datetime) -> list[datetime]:
    """What tuibot's schedule gives, asked as the scheduler asks (strictly after each)."""
    try:
        schedule = cron(expression, zone)
    except ScheduleError as error:
        return [f"refused: {error}"]  # type: ignore[list-item]
    found: list[datetime] = []
    current = after
    while len(found) < FIRES:
        nxt = schedule.next_fire(current, current)
        if nxt is None or nxt > until:
            break
        found.append(nxt.astimezone(UTC))
        current = nxt
    return found


def mismatches(cases: list[tuple[str, str, datetime]]) -> list[str]:
    """Each case where the trigger and the checker disagree, described."""
    found = []
    for expression, zone, start in cases:
        until = start + timedelta(days=400)
        want = expected_fires(expression, zone, start, FIRES, until)
        got = trigger_fires(expression, zone, start, until)
        if got != want:
            first = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None
            )
            found.append(
                f"{expression!r} {zone} from {start.isoformat()}: at #{first} "
                f"got {got[first] if first is not None else got[len(want) :][:1]} "
                f"want {want[first] if first is not None else want[len(got) :][:1]}"
            )
    return found


@pytest.mark.timeout(600)  # CPU-bound: a few seconds on an idle machine, more on a busy one
def test_cron_agrees_with_an_independent_cron8_checker() -> None:
    """TUIBOT_CRON_CASES=20000 TUIBOT_CRON_SEED=7 makes a bigger or another run."""
    count = int(os.environ.get("TUIBOT_CRON_CASES", "1000"))
    cases = generated_cases(count, seed=int(os.environ.get("TUIBOT_CRON_SEED", "16")))
    wrong = mismatches(cases)
    assert not wrong, f"{len(wrong)} of {len(cases)} cases differ:\n" + "\n".join(wrong[:15])


@pytest.mark.parametrize(
    ("expression", "zone", "after", "want"),
    [
        # APScheduler 3.11 skipped 2025-03-31 (upstream #529, #606)
        ("0 0 * * *", "Europe/Berlin", "2025-03-29T12:00", ["03-30 00:00", "03-31 00:00"]),
        ("0 0 * * mon", "Europe/Berlin", "2025-03-20T12:00", ["03-24 00:00", "03-31 00:00"]),
        ("@monthly", "Europe/Berlin", "2025-03-15T12:00", ["04-01 00:00", "05-01 00:00"]),
        ("0 0 * * *", "America/New_York", "2025-03-08T12:00", ["03-09 00:00", "03-10 00:00"]),
        # steps larger than their range mean the first value
        ("0 8-10/3 * * *", "UTC", "2025-01-01T00:00", ["01-01 08:00", "01-02 08:00"]),
        ("0 1-2/3 * * *", "UTC", "2025-01-01T00:00", ["01-01 01:00", "01-02 01:00"]),
        # a fixed time the clocks skip runs right after the change; a wildcard one never
        ("30 2 * * *", "Europe/Berlin", "2025-03-29T12:00", ["03-30 03:00", "03-31 02:30"]),
        ("*/30 2 * * *", "Europe/Berlin", "2025-03-30T00:00", ["03-31 02:00", "03-31 02:30"]),
        ("15 2 * * *", "Australia/Lord_Howe", "2025-10-04T12:00", ["10-05 02:30", "10-06 02:15"]),
        ("0 9 * * *", "Asia/Kolkata", "2025-03-29T12:00", ["03-30 09:00", "03-31 09:00"]),
    ],
)
def test_clock_changes_as_cron8(expression: str, zone: str, after: str, want: list[str]) -> None:
    tz = ZoneInfo(zone)
    start = datetime.fromisoformat(after).replace(tzinfo=tz)
    got = [
        f.astimezone(tz).strftime("%m-%d %H:%M") for f in fires(cron(expression, zone), 2, start)
    ]
    assert got == want
