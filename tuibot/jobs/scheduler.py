"""APScheduler in the engine's event loop, kept in line with ``jobs.json``.

Why these settings, job by job:

- ``max_instances=1``: a run that has not ended blocks the next one; the skipped run is
  reported (``EVENT_JOB_MAX_INSTANCES``) rather than silently dropped.
- The job's own id (``job_…``) as APScheduler's id, with ``replace_existing``: syncing
  again, or starting again, never makes a second copy.
- ``coalesce=True`` and an explicit ``misfire_grace_time`` (``jobs.misfire_grace``): after
  a sleep, the runs that fell due become one run, which says how late it is and how many
  it stands for; one later than the grace time is reported as missed instead.
- What was due while tuibot was off is not lost: each job's ``since`` (the last due time
  dealt with) is in the file, and the first run after it is registered even when it lies
  in the past, so it goes through the same coalescing and grace as a sleep.
- After a sleep the scheduler looks for due runs within a poll (seconds), not when its
  timer on the loop's monotonic clock, which stood still meanwhile, would have fired.

Runs go through :class:`_LoopExecutor`, which starts each as a task in the loop and reads
the time from the injected :class:`~tuibot.jobs.schedule.Clock` (so tests can simulate a
sleep). A run that raises is logged and reported; the scheduler goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, JobSubmissionEvent
from apscheduler.executors.base import BaseExecutor
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from tuibot.events import NoticeLevel
from tuibot.jobs.records import Job
from tuibot.jobs.schedule import Clock
from tuibot.jobs.store import JobStore, JobStoreError

log = logging.getLogger("tuibot.jobs")

HEARTBEAT_ID = "heartbeat"
"""APScheduler's id for the heartbeat (job ids all start with ``job_``)."""
POLL_SECONDS = 2.0
"""How often the scheduler checks whether another process changed ``jobs.json``, and
whether the machine slept."""
JUMP_SECONDS = 1.0
"""How far the clock may run ahead of the event loop's between two polls before the
scheduler looks for due runs again (a sleep, or the clock set forward)."""
MAX_COUNTED = 10_000
"""Due runs counted at most when saying how many one coalesced run stands for."""

Fire = Callable[..., Coroutine[Any, Any, None]]
"""``fire(key, due=, coalesced=, late=, missed=)``: one run of a job or the heartbeat."""
Report = Callable[[NoticeLevel, str], None]
"""``report(level, text)``: a notice for the tool log."""


class _LoopExecutor(BaseExecutor):  # type: ignore[misc]  # apscheduler ships no types
    """Runs each due job as an asyncio task, with its due time, how many due runs it
    stands for, how late it is and whether that is past its grace time."""

    def __init__(self, clock: Clock, report: Report) -> None:
        super().__init__()
        self._clock = clock
        self._report = report
        self.tasks: set[asyncio.Task[None]] = set()

    def _do_submit_job(self, job: Any, run_times: list[datetime]) -> None:
        due = run_times[-1]
        late = max((self._clock.now() - due).total_seconds(), 0.0)
        grace = job.misfire_grace_time
        arguments = {
            "due": due,
            "coalesced": _due_count(job, due),
            "late": late,
            "missed": grace is not None and late > grace,
        }
        task = asyncio.get_running_loop().create_task(
            job.func(*job.args, **arguments), name=f"run of {job.id}"
        )
        self.tasks.add(task)
        task.add_done_callback(lambda done: self._done(job.id, done))

    def _done(self, job_id: str, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("run of %s failed", job_id, exc_info=error)
            self._report("error", f"job {job_id}: the run failed: {error}")
        self._run_job_success(job_id, [])

    def shutdown(self, wait: bool = True) -> None:
        for task in list(self.tasks):
            task.cancel()


def _due_count(job: Any, due: datetime) -> int:
    """How many due times, from the first not yet run up to ``due``, one run stands for."""
    count, fire = 1, job.next_run_time
    while fire is not None and fire < due and count < MAX_COUNTED:
        fire = job.trigger.get_next_fire_time(fire, due)
        count += 1
    return count


class JobScheduler:
    """Keeps APScheduler's jobs equal to the file's, and starts their runs."""

    def __init__(
        self,
        store: JobStore,
        clock: Clock,
        *,
        fire_job: Fire,
        fire_heartbeat: Fire | None,
        heartbeat_every: float,
        heartbeat_since: Callable[[], float | None],
        grace: int,
        report: Report,
        skipped: Callable[[str, list[datetime]], None],
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.store = store
        self.poll_seconds = poll_seconds
        self.clock = clock
        self._fire_job = fire_job
        self._fire_heartbeat = fire_heartbeat
        self._heartbeat_every = heartbeat_every
        self._heartbeat_since = heartbeat_since
        self._grace = grace
        self._report = report
        self._skipped = skipped
        self._executor = _LoopExecutor(clock, report)
        self._scheduler = AsyncIOScheduler(
            timezone=UTC,
            executors={"default": self._executor},
            job_defaults={"coalesce": True, "max_instances": 1},
        )
        self._registered: dict[str, str] = {}
        """Job id → the schedule it was registered with (re-registered when it changes)."""
        self._manual: set[asyncio.Task[None]] = set()
        self._poller: asyncio.Task[None] | None = None
        self._problem = ""

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start in the running loop: register the heartbeat and every job, then watch."""
        self._scheduler.add_listener(self._on_max_instances, EVENT_JOB_MAX_INSTANCES)
        self._scheduler.start()
        if self._fire_heartbeat is not None and self._heartbeat_every > 0:
            self._add_heartbeat()
        self.sync()
        self._poller = asyncio.get_running_loop().create_task(self._poll(), name="jobs: poll")

    async def stop(self) -> None:
        """Stop scheduling and cancel runs in progress (their delegations stay recorded)."""
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        tasks = [*self._executor.tasks, *self._manual]
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(0)  # the shutdown is queued on the loop: let it run

    def wake(self) -> None:
        """Look for due runs now (after the clock jumped, as after a sleep)."""
        self._scheduler.wakeup()

    @property
    def running_tasks(self) -> int:
        """Runs in progress (scheduled and manual)."""
        return len(self._executor.tasks) + len(self._manual)

    # -- keeping in line with the file ------------------------------------------------

    def sync(self) -> None:
        """Register new and resumed jobs, drop removed and paused ones, start requested
        runs. A file that cannot be read keeps what is registered and is reported once."""
        try:
            jobs = self.store.all()
        except JobStoreError as error:
            if str(error) != self._problem:
                self._problem = str(error)
                self._report("error", f"jobs not updated: {error}")
            return
        self._problem = ""
        wanted = {job.id: job for job in jobs if not job.paused}
        for job_id in list(self._registered):
            if job_id not in wanted:
                self._unregister(job_id)
        for job in wanted.values():
            signature = repr(job.schedule.to_json())
            if self._registered.get(job.id) != signature:
                self._register(job, signature)
        for job in jobs:
            if job.run_requested is not None:
                self._take_request(job)

    def _register(self, job: Job, signature: str) -> None:
        since = datetime.fromtimestamp(job.since, UTC)
        first = job.schedule.next_fire(since, self.clock.now())
        self._registered[job.id] = signature
        if first is None:  # a one-shot that has run: nothing left to schedule
            with contextlib.suppress(Exception):
                self._scheduler.remove_job(job.id)
            return
        self._scheduler.add_job(
            self._dispatch,
            trigger=job.schedule.trigger(),
            args=(job.id,),
            id=job.id,
            name=job.name,
            next_run_time=first,
            replace_existing=True,
            misfire_grace_time=self._grace,
        )

    def _unregister(self, job_id: str) -> None:
        self._registered.pop(job_id, None)
        with contextlib.suppress(Exception):  # a one-shot APScheduler already dropped
            self._scheduler.remove_job(job_id)

    def _add_heartbeat(self) -> None:
        from apscheduler.triggers.interval import IntervalTrigger

        since = self._heartbeat_since()
        now = self.clock.now()
        start = datetime.fromtimestamp(since, UTC) if since is not None else now
        trigger = IntervalTrigger(seconds=self._heartbeat_every, timezone=UTC, start_date=start)
        self._scheduler.add_job(
            self._dispatch,
            trigger=trigger,
            args=(HEARTBEAT_ID,),
            id=HEARTBEAT_ID,
            name="heartbeat",
            next_run_time=trigger.get_next_fire_time(start, now),
            replace_existing=True,
            misfire_grace_time=None,  # a look at the file is never too late: once, now
        )

    async def _dispatch(self, key: str, **run: Any) -> None:
        """What APScheduler calls: the heartbeat, or a job by its id (``run`` holds the
        executor's due time, count, lateness and verdict)."""
        if key == HEARTBEAT_ID and self._fire_heartbeat is not None:
            await self._fire_heartbeat(key, **run)
        else:
            await self._fire_job(key, **run)

    def _take_request(self, job: Job) -> None:
        """A run asked for by another process: clear the request, then run."""
        from dataclasses import replace

        try:
            self.store.change_if_present(job.id, lambda j: replace(j, run_requested=None))
        except JobStoreError as error:
            self._report("error", f"job {job.id}: the requested run was not started: {error}")
            return
        self.run_now(job.id)

    async def _poll(self) -> None:
        loop = asyncio.get_running_loop()
        last = (self.clock.now(), loop.time())
        while True:
            await asyncio.sleep(self.poll_seconds)
            try:
                changed = self.store.changed()
            except JobStoreError:
                changed = True
            if changed:
                self.sync()
            last = self._wake_after_jump(last, (self.clock.now(), loop.time()))

    def _wake_after_jump(
        self, last: tuple[datetime, float], now: tuple[datetime, float]
    ) -> tuple[datetime, float]:
        """Look for due runs when the clock ran ahead of the event loop's.

        APScheduler waits for the next due run with ``call_later``, on the loop's monotonic
        clock, which stands still while the machine sleeps: without this, a run that fell
        due during a sleep would start only as long after the wake-up as the sleep lasted.
        Returns ``now``, the reading for the next poll.
        """
        ahead = (now[0] - last[0]).total_seconds() - (now[1] - last[1])
        if ahead > JUMP_SECONDS:
            log.info("the clock moved %.0f s more than the loop's (a sleep?)", ahead)
            self.wake()
        return now

    # -- runs ------------------------------------------------------------------------

    def run_now(self, job_id: str) -> None:
        """Start a run outside the schedule (it does not move the schedule on)."""
        now = self.clock.now()
        task = asyncio.get_running_loop().create_task(
            self._fire_job(job_id, due=now, coalesced=1, late=0.0, missed=False, manual=True),
            name=f"manual run of {job_id}",
        )
        self._manual.add(task)
        task.add_done_callback(lambda done: self._manual_done(job_id, done))

    def _manual_done(self, job_id: str, task: asyncio.Task[None]) -> None:
        self._manual.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("manual run of %s failed", job_id, exc_info=error)
            self._report("error", f"job {job_id}: the run failed: {error}")

    def next_run(self, job_id: str) -> datetime | None:
        """When APScheduler will next run the job (None: paused, ended or unknown)."""
        job = self._scheduler.get_job(job_id)
        return None if job is None else job.next_run_time

    def _on_max_instances(self, event: JobSubmissionEvent) -> None:
        """A due run found the last one still going: it is skipped, and said so."""
        if event.job_id == HEARTBEAT_ID:
            self._report("info", "heartbeat: skipped a beat: the last one is still running")
            return
        self._skipped(event.job_id, list(event.scheduled_run_times))
