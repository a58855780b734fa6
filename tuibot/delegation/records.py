"""Delegation records: one bot handing a task to another, with limits and what it used.

A record is what the journal keeps on disk and what other processes read back, so it is a
frozen value with a strict JSON form: anything malformed is refused (:class:`RecordError`)
rather than guessed at. Times are float seconds in memory and whole milliseconds on disk
(``createdAt``, ``updatedAt``, a pause's ``at``); money is whole micro-USD, so every
number compares exactly.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard, get_args

from tuibot.store.json_fields import FieldReader, kind_of

Status = Literal["authorizing", "queued", "running", "paused", "completed", "failed", "cancelled"]
STATUSES: tuple[Status, ...] = get_args(Status)
OPEN_STATUSES: frozenset[Status] = frozenset({"authorizing", "queued", "running", "paused"})
"""Work that may still run: it holds limits and can be resumed or cancelled."""
ENDED_STATUSES: frozenset[Status] = frozenset(STATUSES) - OPEN_STATUSES
"""Final states: the record only changes again if a person edits the file."""

PauseLimit = Literal["time", "steps", "budget", "loop", "restart"]
PAUSE_LIMITS: tuple[PauseLimit, ...] = get_args(PauseLimit)

MIN_TIME_MS = 1_000
"""One second: anything shorter could not finish a single model call."""
MAX_TIME_MS = 2_592_000_000
"""Thirty days: a longer grant is almost certainly a unit mistake."""

_ID = re.compile(r"dlg_[0-9a-f]{16}")
_LIMIT_KEYS = {"timeMs": "time_ms", "steps": "steps", "budgetMicros": "budget_micros"}


class LimitsError(ValueError):
    """Limits a person or bot asked for are not acceptable; the message names the field."""


class RecordError(ValueError):
    """A stored delegation record is malformed; the message says which field and why."""


def new_delegation_id() -> str:
    """``dlg_`` + 16 random hex digits: unique without coordinating processes."""
    return f"dlg_{os.urandom(8).hex()}"


def _is_int(value: object) -> TypeGuard[int]:
    """JSON integers only: ``True`` is an int to Python but never a count."""
    return isinstance(value, int) and not isinstance(value, bool)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _shown(value: object) -> str:
    """A bad value for an error message: itself if short, else only its type."""
    text = "null" if value is None else repr(value)
    return text if len(text) <= 40 else kind_of(value)


_FIELDS = FieldReader(
    RecordError,
    required="{where}{key} must be {wanted}, got {shown}",
    optional="{where}{key} must be {wanted}, got {kind}",
    shown=_shown,
)
"""How a record's text fields are checked, in this file's wording."""


@dataclass(frozen=True)
class Limits:
    """How much a delegation may use before it pauses and asks its giver again."""

    time_ms: int
    steps: int | None = None
    """Model calls; None means no step limit."""
    budget_micros: int | None = None
    """Cost in micro-USD; None means no budget limit."""

    def to_json(self) -> dict[str, int]:
        values = {"timeMs": self.time_ms, "steps": self.steps, "budgetMicros": self.budget_micros}
        return {key: value for key, value in values.items() if value is not None}

    @classmethod
    def parse(cls, value: object) -> Limits:
        """Check limits from a tool call or a file; :class:`LimitsError` says what is wrong."""
        if not isinstance(value, dict):
            raise LimitsError(f"limits must be an object, got {kind_of(value)}")
        for key in value:
            if key not in _LIMIT_KEYS:
                known = ", ".join(_LIMIT_KEYS)
                raise LimitsError(f"limits has an unknown field {key!r} (known: {known})")
        if "timeMs" not in value:
            raise LimitsError("limits.timeMs is required")
        time_ms = value["timeMs"]
        if not _is_int(time_ms):
            raise LimitsError(f"limits.timeMs must be an integer, got {kind_of(time_ms)}")
        if not MIN_TIME_MS <= time_ms <= MAX_TIME_MS:
            raise LimitsError(
                f"limits.timeMs must be between {MIN_TIME_MS} (1 s) and "
                f"{MAX_TIME_MS} (30 days), got {time_ms}"
            )
        counts: dict[str, int | None] = {}
        for key in ("steps", "budgetMicros"):
            count = value.get(key)
            if count is not None and not _is_int(count):
                raise LimitsError(f"limits.{key} must be an integer, got {kind_of(count)}")
            if count is not None and count < 1:
                raise LimitsError(f"limits.{key} must be at least 1, got {count}")
            counts[key] = count
        return cls(time_ms, counts["steps"], counts["budgetMicros"])


@dataclass(frozen=True)
class Usage:
    """What a delegation used: wall time, model calls and cost."""

    time_ms: int = 0
    steps: int = 0
    cost_micros: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.time_ms + other.time_ms,
            self.steps + other.steps,
            self.cost_micros + other.cost_micros,
        )

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.time_ms - other.time_ms,
            self.steps - other.steps,
            self.cost_micros - other.cost_micros,
        )

    def to_json(self) -> dict[str, int]:
        return {"timeMs": self.time_ms, "steps": self.steps, "costMicros": self.cost_micros}

    @classmethod
    def from_json(cls, data: object, *, where: str = "usage") -> Usage:
        """Missing counts read as 0; anything but a whole number >= 0 is refused."""
        fields = _object(data, where)
        values = []
        for key in ("timeMs", "steps", "costMicros"):
            value = fields.get(key, 0)
            if not _is_int(value) or value < 0:
                raise RecordError(f"{where}.{key} must be a whole number >= 0, got {_shown(value)}")
            values.append(value)
        return cls(*values)


@dataclass(frozen=True)
class Pause:
    """Why a delegation stopped and what it waits for before it may go on."""

    limit: PauseLimit
    """The limit reached: ``time``, ``steps``, ``budget``, ``loop`` or ``restart``."""
    request: str | None
    """The approval request put to the giver, once there is one."""
    delegation: str | None
    """The delegation whose limit paused this one (a nested grant), if not itself."""
    at: float
    """When it paused, in seconds since the epoch."""

    def to_json(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "request": self.request,
            "delegation": self.delegation,
            "at": _ms(self.at),
        }

    @classmethod
    def from_json(cls, data: object, *, where: str = "pause") -> Pause:
        fields = _object(data, where)
        limit = fields.get("limit")
        if limit not in PAUSE_LIMITS:
            known = ", ".join(PAUSE_LIMITS)
            raise RecordError(f"{where}.limit must be one of {known}, got {_shown(limit)}")
        return cls(
            limit,
            _FIELDS.optional_text(fields, "request", f"{where}."),
            _FIELDS.optional_text(fields, "delegation", f"{where}."),
            _millis(fields, "at", f"{where}.") / 1000,
        )


@dataclass(frozen=True)
class Parent:
    """Where the delegation was given: the giver's chat, turn and tool call."""

    chat: str
    turn: str | None = None
    tool_call: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"chat": self.chat, "turn": self.turn, "toolCallId": self.tool_call}

    @classmethod
    def from_json(cls, data: object, *, where: str = "parent") -> Parent:
        fields = _object(data, where)
        return cls(
            _FIELDS.text(fields, "chat", f"{where}.", nonempty=True),
            _FIELDS.optional_text(fields, "turn", f"{where}."),
            _FIELDS.optional_text(fields, "toolCallId", f"{where}."),
        )


@dataclass(frozen=True)
class Delegation:
    """One task handed from ``giver_bot`` to ``bot``; each change is a new ``rev``."""

    id: str
    parent: Parent
    giver_bot: str
    bot: str
    chat: str | None
    """The task chat the bot works in; None until the work starts."""
    status: Status
    task: str
    reason: str
    """Why the giver delegated, shown when a person is asked to authorize."""
    result: str | None
    limits: Limits
    usage: Usage
    """Everything used since the delegation started."""
    window: Usage
    """``usage`` when the limits last (re)started: limits are checked against ``used()``."""
    pause: Pause | None
    created: float
    updated: float
    rev: int
    """1 when created; the journal adds one per update (optimistic concurrency)."""

    @classmethod
    def new(
        cls,
        *,
        parent: Parent,
        giver_bot: str,
        bot: str,
        task: str,
        reason: str,
        limits: Limits,
        now: float | None = None,
    ) -> Delegation:
        """A fresh record awaiting authorization: rev 1, nothing used, no task chat yet."""
        when = round(time.time() if now is None else now, 3)
        return cls(
            id=new_delegation_id(),
            parent=parent,
            giver_bot=giver_bot,
            bot=bot,
            chat=None,
            status="authorizing",
            task=task,
            reason=reason,
            result=None,
            limits=limits,
            usage=Usage(),
            window=Usage(),
            pause=None,
            created=when,
            updated=when,
            rev=1,
        )

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    def used(self) -> Usage:
        """What counts against the current limits."""
        return self.usage - self.window

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "parent": self.parent.to_json(),
            "giverBot": self.giver_bot,
            "bot": self.bot,
            "chat": self.chat,
            "status": self.status,
            "task": self.task,
            "reason": self.reason,
            "result": self.result,
            "limits": self.limits.to_json(),
            "usage": self.usage.to_json(),
            "window": self.window.to_json(),
            "pause": None if self.pause is None else self.pause.to_json(),
            "createdAt": _ms(self.created),
            "updatedAt": _ms(self.updated),
            "rev": self.rev,
        }

    @classmethod
    def from_json(cls, data: object) -> Delegation:
        """A record from its JSON form; :class:`RecordError` if any field is malformed."""
        fields = _object(data, "delegation record")
        record_id = fields.get("id")
        if not isinstance(record_id, str) or not _ID.fullmatch(record_id):
            shown = _shown(record_id)
            raise RecordError(f"delegation record: id must be 'dlg_' + 16 hex, got {shown}")
        where = f"delegation {record_id}"
        prefix = f"{where}: "
        status = fields.get("status")
        if status not in STATUSES:
            known = ", ".join(STATUSES)
            raise RecordError(f"{prefix}status must be one of {known}, got {_shown(status)}")
        try:
            limits = Limits.parse(fields.get("limits"))
        except LimitsError as exc:
            raise RecordError(f"{where}: {exc}") from exc
        pause = fields.get("pause")
        rev = fields.get("rev")
        if not _is_int(rev) or rev < 1:
            raise RecordError(f"{prefix}rev must be a whole number >= 1, got {_shown(rev)}")
        return cls(
            id=record_id,
            parent=Parent.from_json(fields.get("parent"), where=f"{where}: parent"),
            giver_bot=_FIELDS.text(fields, "giverBot", prefix, nonempty=True),
            bot=_FIELDS.text(fields, "bot", prefix, nonempty=True),
            chat=_FIELDS.optional_text(fields, "chat", prefix),
            status=status,
            task=_FIELDS.text(fields, "task", prefix),
            reason=_FIELDS.text(fields, "reason", prefix),
            result=_FIELDS.optional_text(fields, "result", prefix),
            limits=limits,
            usage=Usage.from_json(fields.get("usage"), where=f"{where}: usage"),
            window=Usage.from_json(fields.get("window"), where=f"{where}: window"),
            pause=None if pause is None else Pause.from_json(pause, where=f"{where}: pause"),
            created=_millis(fields, "createdAt", prefix) / 1000,
            updated=_millis(fields, "updatedAt", prefix) / 1000,
            rev=rev,
        )


def _object(data: object, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RecordError(f"{where} must be an object, got {kind_of(data)}")
    return data


def _millis(fields: dict[str, Any], key: str, prefix: str) -> int:
    value = fields.get(key)
    if not _is_int(value) or value < 0:
        raise RecordError(f"{prefix}{key} must be whole milliseconds >= 0, got {_shown(value)}")
    return value


def describe(record: Delegation) -> str:
    """One line for lists: id, status, bot, usage against limits, task."""
    used, limits = record.used(), record.limits
    parts = [f"time {used.time_ms // 1000}/{limits.time_ms // 1000}s"]
    if limits.steps is not None:
        parts.append(f"steps {used.steps}/{limits.steps}")
    if limits.budget_micros is not None:
        parts.append(f"budget {used.cost_micros}/{limits.budget_micros}µ$")
    pause = f" [paused: {record.pause.limit}]" if record.pause else ""
    return f"{record.id}  {record.status:<11} {record.bot:<12} {', '.join(parts)}{pause}  " + (
        record.task.splitlines()[0][:60] if record.task else ""
    )
