"""A fake clock for scheduled work, and helpers to drive the scheduler with it.

The engine reads the time for jobs from the clock it is given (``engine.start_jobs``).
APScheduler itself decides which jobs are due with ``datetime.now`` in its scheduler
module, so :func:`fake_clock` points that one name at the same fake clock, as
APScheduler's own test suite does. Nothing else is patched: triggers, the executor and
tuibot's code all see the injected clock, and a test moves time with :meth:`FakeClock.jump`
(a laptop that slept) and :meth:`JobsUnderTest.wake`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from delegation_helpers import AGENT_CONFIG, engine_from, last_text

from tuibot.engine import Engine
from tuibot.jobs.book import NewJob
from tuibot.jobs.records import Job
from tuibot.jobs.schedule import Schedule, cron, every

START = datetime(2026, 3, 6, 8, 0, tzinfo=UTC)
"""A Friday, 08:00 UTC: the fake clock's start."""


class FakeClock:
    """Time that moves only when a test says so."""

    def __init__(self, start: datetime = START) -> None:
        self.current = start

    def now(self) -> datetime:
        return self.current

    def jump(self, **delta: float) -> None:
        """Move time on (``minutes=5``, ``hours=8``), as after a sleep."""
        self.current += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    """The fake clock, also behind APScheduler's scheduler module's ``datetime.now``."""
    fake = FakeClock()

    class FakeDatetime(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            current = fake.current
            return current.astimezone(tz) if tz is not None else current.replace(tzinfo=None)

    monkeypatch.setattr("apscheduler.schedulers.base.datetime", FakeDatetime)
    yield fake


def add_job(
    engine: Engine, schedule: Schedule, message: str = "Check the backups.", **extra: Any
) -> Job:
    """A job through the engine's book (the path the CLI and the cron tool take)."""
    return engine.jobs.add(NewJob(message=message, schedule=schedule, **extra))


def every_minutes(minutes: int) -> Schedule:
    return every(minutes * 60)


def crontab(expression: str, tz: str = "UTC") -> Schedule:
    return cron(expression, tz)


def stored_jobs(hermetic: Path) -> list[dict[str, Any]]:
    """The jobs as ``jobs.json`` holds them."""
    document = json.loads((hermetic / "data" / "jobs.json").read_text(encoding="utf-8"))
    return document["jobs"]


CONFIG = (
    AGENT_CONFIG
    + """
[heartbeat]
interval = {heartbeat}

[jobs]
misfire_grace = {grace}

[delegation]
approval_timeout = 60
{extra}
"""
)


def make_engine(
    server: Any,
    clock: FakeClock,
    *,
    price: float = 0,
    heartbeat: float = 0,
    grace: int = 3600,
    extra: str = "",
) -> Engine:
    """An engine over the scripted server whose job book reads the fake clock."""
    engine = engine_from(
        CONFIG.format(url=server.url, price=price, heartbeat=heartbeat, grace=grace, extra=extra)
    )
    engine.jobs.use_clock(clock)
    return engine


def start(engine: Engine, clock: FakeClock) -> Any:
    """Take the instance lock and start scheduled work on the fake clock."""
    assert engine.claim_instance("tui") is None
    return engine.start_jobs(clock)


async def jump(engine: Engine, clock: FakeClock, **delta: float) -> None:
    """Move the clock on and let the scheduler look for due runs, as after a wake-up."""
    import asyncio

    clock.jump(**delta)
    assert engine.scheduled is not None
    engine.scheduled.scheduler.wake()
    for _ in range(3):  # the wake-up is queued on the loop; the runs start after it
        await asyncio.sleep(0)


def job_requests(server: Any, needle: str) -> list[dict[str, Any]]:
    """Chat requests whose last message contains ``needle``."""
    return [
        request.body
        for request in server.requests
        if request.path.endswith("/chat/completions")
        and request.body is not None
        and needle in last_text(request.body)
    ]
