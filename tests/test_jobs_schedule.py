"""Schedules: crontab meaning (Sunday is 0 and 7, either-day rule), durations, time zones,
and the clear errors bad input gets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tuibot.jobs.schedule import (
    Schedule,
    ScheduleError,
    cron,
    every,
    format_duration,
    parse_duration,
    parse_schedule,
    weekday_names,
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
    assert weekday_names("1-5") == "mon,tue,wed,thu,fri"
    assert weekday_names("5-7") == "fri,sat,sun"
    assert weekday_names("0,6") == "sat,sun"
    assert weekday_names("*/2") == "tue,thu,sat,sun"
    assert weekday_names("1-5/2") == "mon,wed,fri"
    assert weekday_names("mon-wed") == "mon,tue,wed"
    assert weekday_names("7/2") == "sun"  # from 7 on: Sunday alone, not no day at all


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
