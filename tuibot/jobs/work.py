"""Scheduled work for one engine: the scheduler, the job runs and the heartbeat, wired.

The engine builds this in :meth:`tuibot.engine.Engine.start_jobs`, only in the process
that holds the single-instance lock; stopping it cancels runs in progress, whose
delegations stay recorded for the next start to recover, like any other work.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tuibot.events import Notice
from tuibot.jobs.heartbeat import Heartbeat
from tuibot.jobs.runs import JobRuns
from tuibot.jobs.schedule import Clock
from tuibot.jobs.scheduler import JobScheduler
from tuibot.system.paths import config_home

if TYPE_CHECKING:
    from tuibot.jobs.host import JobsHost

log = logging.getLogger("tuibot.jobs")


@dataclass
class ScheduledWork:
    """What runs scheduled work in this process."""

    scheduler: JobScheduler
    runs: JobRuns
    heartbeat: Heartbeat

    async def stop(self) -> None:
        """Stop scheduling and following runs."""
        await self.scheduler.stop()
        self.runs.close()


def start(host: JobsHost, clock: Clock) -> ScheduledWork:
    """Register every job and the heartbeat in the running loop, and start scheduling."""
    store = host.jobs.store
    settings = host.settings

    def report(level: str, text: str) -> None:
        host.events.publish(Notice("", level, text))  # type: ignore[arg-type]

    runs = JobRuns(host, store, clock)
    heartbeat = Heartbeat(host, store, clock, config_home())
    scheduler = JobScheduler(
        store,
        clock,
        fire_job=runs.fire,
        fire_heartbeat=heartbeat.fire,
        heartbeat_every=settings.heartbeat.interval,
        heartbeat_since=heartbeat.since,
        grace=settings.jobs.misfire_grace,
        report=report,
        skipped=runs.skipped,
    )
    runs.on_removed.append(lambda _job_id: scheduler.sync())
    try:
        runs.catch_up()
    except Exception as error:  # a broken file must not stop the app from starting
        log.warning("earlier job runs not followed: %s", error)
        report("error", f"jobs: earlier runs not followed: {error}")
    scheduler.start()
    host.jobs.attach(scheduler, clock)
    return ScheduledWork(scheduler, runs, heartbeat)
