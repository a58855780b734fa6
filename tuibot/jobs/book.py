"""Adding, listing, pausing, resuming, removing and running jobs: one set of rules.

The command line (``tuibot jobs``), the bots' ``cron`` tool and the jobs screen all go
through :class:`JobBook`, so a bad schedule, an unknown bot or a chat that does not exist
is refused the same way everywhere, before anything is written. The book only edits
``jobs.json``; when this process also runs the scheduler, the scheduler is told at once,
otherwise the process that runs it notices the file changed (within seconds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from tuibot.delegation.records import Limits
from tuibot.jobs.records import Job, new_job_id
from tuibot.jobs.schedule import Clock, Schedule, SystemClock
from tuibot.jobs.store import JobStore

if TYPE_CHECKING:
    from tuibot.bots import BotDirectory
    from tuibot.settings import JobsSettings

NAME_LENGTH = 40
"""A job's name made from its message is cut to this many characters."""


class Scheduling(Protocol):
    """What the book needs of a running scheduler (:class:`tuibot.jobs.scheduler.JobScheduler`)."""

    def sync(self) -> None:
        """Bring the scheduler in line with the file."""
        ...

    def run_now(self, job_id: str) -> None:
        """Start a run of the job now, outside its schedule."""
        ...

    def next_run(self, job_id: str) -> datetime | None:
        """When the scheduler will next run the job."""
        ...


@dataclass(frozen=True)
class NewJob:
    """What a person or a bot asks for; :meth:`JobBook.add` checks it."""

    message: str
    schedule: Schedule
    bot: str = ""
    """"" = the default bot."""
    chat: str | None = None
    """Where results go; None = a chat of the job's own."""
    name: str = ""
    delete_after_run: bool = False
    limits: Limits | None = None
    """None = the ``[jobs]`` defaults."""
    origin: str | None = None
    """The chat the job was made in (the cron tool's), if any."""


class JobBook:
    """The jobs of one data folder, with the checks every front end shares."""

    def __init__(
        self,
        store: JobStore,
        bots: BotDirectory,
        settings: JobsSettings,
        *,
        chat_exists: Callable[[str], bool] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.bots = bots
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self._chat_exists = chat_exists
        self.scheduler: Scheduling | None = None
        """The scheduler this process runs, once started; None in an editing process."""

    def attach(self, scheduler: Scheduling, clock: Clock) -> None:
        """This process now runs ``scheduler`` on ``clock``: changes reach it at once."""
        self.scheduler = scheduler
        self.use_clock(clock)

    def detach(self) -> None:
        """The scheduler stopped: the book goes back to working out runs from the file."""
        self.scheduler = None

    def use_clock(self, clock: Clock) -> None:
        """Read the time from ``clock`` (the scheduler's, or a test's fake)."""
        self.clock = clock

    def default_limits(self) -> Limits:
        """A run's limits from ``[jobs]``: always a finite time, steps and maybe a budget."""
        budget = self.settings.budget_micros or None
        return Limits(self.settings.time_ms, self.settings.steps, budget)

    def all(self) -> list[Job]:
        """Every job, oldest first."""
        return self.store.all()

    def add(self, new: NewJob) -> Job:
        """Check and keep a new job; raises ``ValueError`` subclasses that say what is wrong
        (``BotError``, ``ScheduleError``, ``LimitsError``) and ``JobStoreError``."""
        message = new.message.strip()
        if not message:
            raise ValueError("a job needs a message: what the bot should do when it runs")
        if new.delete_after_run and new.schedule.kind != "at":
            raise ValueError("delete_after_run is for one-time (at) jobs; remove others by id")
        bot = self.bots.require(new.bot).name if new.bot else self.bots.default.name
        if (
            new.chat is not None
            and self._chat_exists is not None
            and not self._chat_exists(new.chat)
        ):
            raise ValueError(f"no chat {new.chat} to send results to")
        now = self.clock.now().timestamp()
        job = Job(
            id=new_job_id(),
            name=(new.name.strip() or _name_from(message)),
            schedule=new.schedule,
            message=message,
            bot=bot,
            chat=new.chat,
            limits=new.limits or self.default_limits(),
            created=now,
            since=now,
            delete_after_run=new.delete_after_run,
            origin=new.origin,
        )
        self.store.add(job)
        self._changed()
        return job

    def remove(self, wanted: str) -> Job:
        """Delete a job (a run in progress goes on; its result still arrives)."""
        job = self.store.get(wanted)
        self.store.change(job.id, lambda _: None)
        self._changed()
        return job

    def pause(self, wanted: str) -> Job:
        """Stop scheduling a job until it is resumed (runs due meanwhile are not made up)."""
        job = self.store.change(self.store.get(wanted).id, lambda j: replace(j, paused=True))
        assert job is not None
        self._changed()
        return job

    def resume(self, wanted: str) -> Job:
        """Schedule a paused job again, counting from now."""
        now = self.clock.now().timestamp()

        def resumed(job: Job) -> Job:
            return job if not job.paused else replace(job, paused=False, since=now, note="")

        job = self.store.change(self.store.get(wanted).id, resumed)
        assert job is not None
        self._changed()
        return job

    def run(self, wanted: str) -> tuple[Job, bool]:
        """Run a job now, outside its schedule: here when this process runs the
        scheduler (True), else by asking the process that does (False)."""
        job = self.store.get(wanted)
        if self.scheduler is not None:
            self.scheduler.run_now(job.id)
            return job, True
        now = self.clock.now().timestamp()
        changed = self.store.change(job.id, lambda j: replace(j, run_requested=now))
        assert changed is not None
        return changed, False

    def next_run(self, job: Job) -> datetime | None:
        """When ``job`` runs next: the scheduler's answer, or worked out from the file
        (a time in the past means it runs as soon as a tuibot that runs jobs starts)."""
        if job.paused:
            return None
        if self.scheduler is not None:
            return self.scheduler.next_run(job.id)
        since = datetime.fromtimestamp(job.since, UTC)
        return job.schedule.next_fire(since, self.clock.now())

    def _changed(self) -> None:
        if self.scheduler is not None:
            self.scheduler.sync()


def _name_from(message: str) -> str:
    """A short name from the message's first line."""
    first = message.strip().splitlines()[0]
    return first if len(first) <= NAME_LENGTH else first[: NAME_LENGTH - 1].rstrip() + "…"
