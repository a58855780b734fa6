"""A job's run: work the job's bot gives itself, in a task chat below the results chat.

Running each run as a delegation gives it everything delegated work has: limits (a
finite default from ``[jobs]``), a pause at a limit that becomes an approval request,
tool confirmations that wait in the approvals queue (nobody answers them automatically:
with nobody watching, they wait for their timeout), the task board, the delegation tree,
and recovery after a restart. The result reaches the results chat as any delegation's
does: a notice that starts a turn there.

All runs of a job share one task chat, so the bot sees what it did last time. A run
whose predecessor is still open (running, paused, waiting for a person, even one left
from before a restart) is skipped and said so: one job never runs twice at once.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tuibot.bots import BotError
from tuibot.delegation.manager import DelegationRefused
from tuibot.events import DelegationChanged, Event, Notice, NoticeLevel
from tuibot.jobs.records import Job, Run, clip
from tuibot.jobs.schedule import Clock, format_duration, zone
from tuibot.jobs.store import JobNotFound, JobStore, JobStoreError
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation
    from tuibot.engine import Engine

log = logging.getLogger("tuibot.jobs")

ENDED = {"completed", "failed", "cancelled"}


class JobRuns:
    """Starts runs, remembers which delegation does which job's run, records the end."""

    def __init__(self, engine: Engine, store: JobStore, clock: Clock) -> None:
        self.engine = engine
        self.store = store
        self.clock = clock
        self._watched: dict[str, str] = {}
        """Delegation id → job id, for runs whose end is not recorded yet."""
        self._ends: dict[str, asyncio.Future[None]] = {}
        self._stop_listening = engine.events.listen(self._on_event)
        self.on_removed: list[Any] = []
        """Called with a job id after a ``delete_after_run`` job was removed."""

    def close(self) -> None:
        """Stop following delegations."""
        self._stop_listening()
        for future in self._ends.values():
            if not future.done():
                future.cancel()

    def catch_up(self) -> None:
        """Follow runs left open by an earlier process; record those that ended meanwhile."""
        for job in self.store.all():
            run = job.last_run
            if run is None or run.status != "running" or run.delegation is None:
                continue
            record = self.engine.delegations.get(run.delegation)
            if record is None or record.status in ENDED:
                self._record_end(job.id, run.delegation, record)
            else:
                self._watched[run.delegation] = job.id

    # -- a run -------------------------------------------------------------------------

    async def fire(
        self,
        job_id: str,
        *,
        due: datetime,
        coalesced: int = 1,
        late: float = 0.0,
        missed: bool = False,
        manual: bool = False,
    ) -> None:
        """One due (or manual) run of ``job_id``: start it and wait for its end."""
        try:
            job = self.store.get(job_id)
        except JobStoreError as error:
            self._notice("error", f"job {job_id}: not run: {error}")
            return
        if job.paused and not manual:
            return
        if not manual:  # this due time is dealt with, whatever happens next
            job = self._update(job.id, since=max(job.since, due.timestamp())) or job
        if missed:
            self._remark(
                job,
                "warning",
                f"missed the run due {_when(due, job)}: {_late(late)} "
                "late, more than jobs.misfire_grace allows; it was not run",
            )
            return
        previous = self._open_run(job)
        if previous is not None:
            which = "did not run it now" if manual else f"skipped the run due {_when(due, job)}"
            self._remark(
                job,
                "warning",
                f"{which}: the previous run ({previous.id}) is still {previous.status}",
            )
            return
        record = self._start(job, due, coalesced, late, manual)
        if record is not None:
            await self._ended(record.id)

    def _start(
        self, job: Job, due: datetime, coalesced: int, late: float, manual: bool
    ) -> Delegation | None:
        """Open the run's delegation; a run that cannot start is recorded as failed."""
        try:
            chat, own = self._results_chat(job)
            task_chat = job.task_chat if chat == job.chat else None
            if task_chat is not None and not self.engine.chats.exists(task_chat):
                task_chat = None
            record = self.engine.delegations.schedule_run(
                chat=chat,
                bot=job.bot,
                task=job.message,
                limits=job.limits,
                first=_first_message(job, due, coalesced, late, manual),
                task_chat=task_chat,
            )
        except (BotError, DelegationRefused, StorageError, ValueError) as error:
            run = Run(due.timestamp(), self._now(), "failed", None, clip(str(error)), late)
            self._update(job.id, last_run=run, note=f"could not start: {error}")
            self._notice("error", f"job {job.name} ({job.id}): could not start: {error}")
            return None
        self._watched[record.id] = job.id
        run = Run(due.timestamp(), self._now(), "running", record.id, "", late, coalesced)
        note = _lateness(late, coalesced)
        self._update(
            job.id, chat=chat, own_chat=own, task_chat=record.chat, last_run=run, note=note
        )
        self._notice(
            "info",
            f"job {job.name} ({job.id}): run {record.id} started" + (f"; {note}" if note else ""),
        )
        return record

    def _results_chat(self, job: Job) -> tuple[str, bool]:
        """The chat results go to: the job's, else (none yet, or deleted) one of its own."""
        if job.chat is not None and self.engine.chats.exists(job.chat):
            return job.chat, job.own_chat
        meta = self.engine.new_chat(bot=job.bot, title=f"Job: {job.name}")
        if job.chat is not None:
            self._notice(
                "warning",
                f"job {job.name}: its chat {job.chat} is gone; results now go to {meta.id}",
            )
        return meta.id, True

    def _open_run(self, job: Job) -> Delegation | None:
        """The job's previous run when it has not ended (also one from before a restart)."""
        run = job.last_run
        if run is None or run.delegation is None:
            return None
        record = self.engine.delegations.get(run.delegation)
        return record if record is not None and record.is_open else None

    # -- the end of a run ----------------------------------------------------------------

    async def _ended(self, delegation_id: str) -> None:
        """Wait until the run's delegation ends (so the scheduler sees it as running)."""
        record = self.engine.delegations.get(delegation_id)
        if record is None or not record.is_open:
            return
        future = self._ends.setdefault(delegation_id, asyncio.get_running_loop().create_future())
        try:
            await future
        finally:
            self._ends.pop(delegation_id, None)

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, DelegationChanged):
            return
        delegation_id = event.record.get("id")
        if delegation_id not in self._watched or event.record.get("status") not in ENDED:
            return
        self._record_end(
            self._watched.pop(delegation_id),
            delegation_id,
            self.engine.delegations.get(delegation_id),
        )
        future = self._ends.get(delegation_id)
        if future is not None and not future.done():
            future.set_result(None)

    def _record_end(self, job_id: str, delegation_id: str, record: Delegation | None) -> None:
        """Put the run's outcome into the job; remove a ``delete_after_run`` job now."""
        status = record.status if record is not None else "failed"
        result = (record.result or "") if record is not None else "its delegation is gone"

        def ended(job: Job) -> Job | None:
            run = job.last_run
            if run is None or run.delegation != delegation_id:
                return job
            if job.delete_after_run:
                return None
            return replace(job, last_run=replace(run, status=status, result=clip(result)))

        try:
            before = self.store.get(job_id)
            after = self.store.change_if_present(job_id, ended)
        except JobNotFound:  # removed while it ran: the result reached its chat; no record
            log.info("job %s was removed; its run %s ended %s", job_id, delegation_id, status)
            return
        except JobStoreError as error:
            self._notice(
                "error", f"job {job_id}: the end of run {delegation_id} was not recorded: {error}"
            )
            return
        if after is None and before.delete_after_run:
            self._notice(
                "info", f"job {before.name} ({job_id}) ran and was removed (delete_after_run)"
            )
            for callback in self.on_removed:
                callback(job_id)

    # -- a run skipped by the scheduler ------------------------------------------------

    def skipped(self, job_id: str, due_times: list[datetime]) -> None:
        """APScheduler found the last run still going: the due run is skipped."""
        if not due_times:
            return
        try:
            job = self.store.get(job_id)
        except JobStoreError:
            return
        due = due_times[-1]
        job = self._update(job.id, since=max(job.since, due.timestamp())) or job
        self._remark(
            job,
            "warning",
            f"skipped the run due {_when(due, job)}: the previous run is still going",
        )

    # -- plumbing ----------------------------------------------------------------------

    def _update(self, job_id: str, **changes: Any) -> Job | None:
        try:
            return self.store.change_if_present(job_id, lambda job: replace(job, **changes))
        except JobStoreError as error:
            self._notice("error", f"job {job_id}: not recorded: {error}")
            return None

    def _remark(self, job: Job, level: NoticeLevel, text: str) -> None:
        self._update(job.id, note=text)
        self._notice(level, f"job {job.name} ({job.id}): {text}")

    def _notice(self, level: NoticeLevel, text: str) -> None:
        getattr(log, "error" if level == "error" else "info")("%s", text)
        self.engine.events.publish(Notice("", level, text))

    def _now(self) -> float:
        return self.clock.now().timestamp()


def _first_message(job: Job, due: datetime, coalesced: int, late: float, manual: bool) -> str:
    """The task chat's input: which job, when it was due (or that a person started it),
    how late, and the message. The bot reads this to know why it is working now."""
    if manual:
        head = f"[tuibot] Job “{job.name}” ({job.id}), run now by the user at {_when(due, job)}."
        return f"{head}\n\n{job.message}"
    head = f"[tuibot] Scheduled job “{job.name}” ({job.id}), due {_when(due, job)}."
    lateness = _lateness(late, coalesced)
    if lateness:
        head += f" This run is {lateness} (tuibot was not running, or the machine slept)."
    return f"{head}\n\n{job.message}"


def _when(due: datetime, job: Job) -> str:
    """The due time in the job's time zone."""
    return due.astimezone(zone(job.schedule.tz)).strftime("%Y-%m-%d %H:%M %Z")


def _late(seconds: float) -> str:
    return format_duration(seconds)


def _lateness(late: float, coalesced: int) -> str:
    """``2h5m late; it stands for 3 runs that fell due`` — or "" for a punctual run."""
    parts = []
    if late >= 60:
        parts.append(f"{format_duration(late)} late")
    if coalesced > 1:
        parts.append(f"it stands for {coalesced} runs that fell due meanwhile")
    return "; ".join(parts)
