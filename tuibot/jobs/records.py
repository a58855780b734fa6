"""Job records: what ``jobs.json`` holds for each job and for the heartbeat.

A record is a frozen value with a strict JSON form (camelCase keys, times in float
seconds since the epoch). Anything malformed is refused with :class:`JobRecordError`,
whose message names the field, so a hand-edited file that went wrong is reported and left
alone rather than half-read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from tuibot.delegation.records import Limits, LimitsError
from tuibot.jobs.schedule import Schedule, ScheduleError
from tuibot.store.json_fields import FieldReader

JOB_ID = re.compile(r"job_[0-9a-f]{8}")
RUN_STATUSES = ("running", "completed", "failed", "cancelled", "idle")
"""``idle``: the heartbeat found nothing to do (no model call was made)."""
MAX_RESULT = 300
"""Characters of a run's result kept in the record (the whole result is in the chat)."""


class JobRecordError(ValueError):
    """A stored job is malformed; the message says which field and why."""


_FIELDS = FieldReader(JobRecordError, "{where}: {key} must be {wanted}")
"""How a job record's text fields are checked, in this file's wording."""


def new_job_id() -> str:
    """``job_`` + 8 random hex digits: stable for the job's life, unique without a counter."""
    return f"job_{os.urandom(4).hex()}"


def clip(text: str) -> str:
    """A result shortened for the record: its first lines, at most :data:`MAX_RESULT`."""
    text = text.strip()
    return text if len(text) <= MAX_RESULT else text[: MAX_RESULT - 1].rstrip() + "…"


@dataclass(frozen=True)
class Run:
    """The latest run of a job (or heartbeat): when it was due, how it went."""

    due: float
    """When it was scheduled to run."""
    started: float
    status: str
    """``running``, ``completed``, ``failed``, ``cancelled`` (or ``idle`` for the heartbeat)."""
    delegation: str | None = None
    """The delegation doing the run's work (a job's run); None for the heartbeat."""
    result: str = ""
    """The start of the result or the error."""
    late: float = 0.0
    """Seconds between ``due`` and ``started``."""
    coalesced: int = 1
    """How many due runs this one stands for (more than one after a sleep)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "due": self.due,
            "started": self.started,
            "status": self.status,
            "delegation": self.delegation,
            "result": self.result,
            "late": self.late,
            "coalesced": self.coalesced,
        }

    @classmethod
    def from_json(cls, data: object, where: str) -> Run:
        fields = _object(data, where)
        status = fields.get("status")
        if status not in RUN_STATUSES:
            raise JobRecordError(f"{where}.status must be one of {', '.join(RUN_STATUSES)}")
        coalesced = fields.get("coalesced", 1)
        if isinstance(coalesced, bool) or not isinstance(coalesced, int) or coalesced < 1:
            raise JobRecordError(f"{where}.coalesced must be a whole number >= 1")
        return cls(
            due=_number(fields, "due", where),
            started=_number(fields, "started", where),
            status=status,
            delegation=_FIELDS.optional_text(fields, "delegation", where),
            result=_FIELDS.text(fields, "result", where, default=""),
            late=_number(fields, "late", where, default=0.0),
            coalesced=coalesced,
        )


@dataclass(frozen=True)
class Job:
    """A message for a bot on a schedule, and what the scheduler knows of its runs."""

    id: str
    name: str
    schedule: Schedule
    message: str
    """What the bot should do, as it receives it in the run's task chat."""
    bot: str
    chat: str | None
    """Where results go: the chat the job came from, or its own (None until made)."""
    limits: Limits
    """Each run's limits, as for any delegated work."""
    created: float
    since: float
    """Runs due after this time count; moved on by every run, skip and resume."""
    own_chat: bool = False
    """Whether ``chat`` was made for this job (else it is the chat the job came from)."""
    delete_after_run: bool = False
    paused: bool = False
    task_chat: str | None = None
    """The task chat every run works in, so the bot keeps the job's history."""
    last_run: Run | None = None
    note: str = ""
    """The scheduler's latest remark: a missed or skipped run, a run that could not start."""
    origin: str | None = None
    """The chat the job was made in (by the cron tool), if any: its bot may remove it."""
    run_requested: float | None = None
    """Set by ``tuibot jobs run`` (or the jobs screen) in another process; the running
    instance runs the job and clears it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "schedule": self.schedule.to_json(),
            "message": self.message,
            "bot": self.bot,
            "chat": self.chat,
            "ownChat": self.own_chat,
            "deleteAfterRun": self.delete_after_run,
            "limits": self.limits.to_json(),
            "paused": self.paused,
            "created": self.created,
            "since": self.since,
            "taskChat": self.task_chat,
            "lastRun": None if self.last_run is None else self.last_run.to_json(),
            "note": self.note,
            "origin": self.origin,
            "runRequested": self.run_requested,
        }

    @classmethod
    def from_json(cls, data: object, where: str) -> Job:
        """A stored job; :class:`JobRecordError` names the first malformed field."""
        fields = _object(data, where)
        job_id = fields.get("id")
        if not isinstance(job_id, str) or not JOB_ID.fullmatch(job_id):
            raise JobRecordError(f"{where}: id must be 'job_' + 8 hex digits")
        where = f"{where} ({job_id})"
        try:
            schedule = Schedule.from_json(fields.get("schedule"))
            limits = Limits.parse(fields.get("limits"))
        except (ScheduleError, LimitsError) as error:
            raise JobRecordError(f"{where}: {error}") from error
        last = fields.get("lastRun")
        return cls(
            id=job_id,
            name=_FIELDS.text(fields, "name", where),
            schedule=schedule,
            message=_FIELDS.text(fields, "message", where, nonempty=True, strip=True),
            bot=_FIELDS.text(fields, "bot", where, nonempty=True, strip=True),
            chat=_FIELDS.optional_text(fields, "chat", where),
            limits=limits,
            created=_number(fields, "created", where),
            since=_number(fields, "since", where),
            own_chat=_flag(fields, "ownChat", where),
            delete_after_run=_flag(fields, "deleteAfterRun", where),
            paused=_flag(fields, "paused", where),
            task_chat=_FIELDS.optional_text(fields, "taskChat", where),
            last_run=None if last is None else Run.from_json(last, f"{where}: lastRun"),
            note=_FIELDS.text(fields, "note", where, default=""),
            origin=_FIELDS.optional_text(fields, "origin", where),
            run_requested=_optional_number(fields, "runRequested", where),
        )


@dataclass(frozen=True)
class Beat:
    """The heartbeat's own state: its chat and its latest run."""

    chat: str | None = None
    """The heartbeat chat, made on the first look that finds something to do."""
    since: float | None = None
    """When the heartbeat last looked (None: never)."""
    last_run: Run | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "chat": self.chat,
            "since": self.since,
            "lastRun": None if self.last_run is None else self.last_run.to_json(),
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: object) -> Beat:
        if data is None:
            return cls()
        where = "heartbeat"
        fields = _object(data, where)
        last = fields.get("lastRun")
        return cls(
            chat=_FIELDS.optional_text(fields, "chat", where),
            since=_optional_number(fields, "since", where),
            last_run=None if last is None else Run.from_json(last, f"{where}: lastRun"),
            note=_FIELDS.text(fields, "note", where, default=""),
        )


@dataclass
class Document:
    """Everything in ``jobs.json``, as read: the jobs by id and the heartbeat."""

    jobs: dict[str, Job] = field(default_factory=dict)
    beat: Beat = field(default_factory=Beat)

    def copy(self) -> Document:
        return Document(dict(self.jobs), replace(self.beat))


def _object(data: object, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise JobRecordError(f"{where} must be a JSON object")
    return data


def _number(fields: dict[str, Any], key: str, where: str, default: float | None = None) -> float:
    value = fields.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise JobRecordError(f"{where}: {key} must be a number (seconds since the epoch)")
    return float(value)


def _optional_number(fields: dict[str, Any], key: str, where: str) -> float | None:
    return None if fields.get(key) is None else _number(fields, key, where)


def _flag(fields: dict[str, Any], key: str, where: str) -> bool:
    value = fields.get(key, False)
    if not isinstance(value, bool):
        raise JobRecordError(f"{where}: {key} must be true or false")
    return value
