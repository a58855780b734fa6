"""The task board: every turn of every chat is a task, from ``doing`` to ``done``, durable.

Each input a chat answers (a person's message, a notice, delegated work) becomes a
:class:`Task` when its turn starts. The board follows the engine's events
(``TaskBoard.on_event``) to move tasks between states, so the TUI can draw a kanban
and a restart can tell which work was cut off (``TaskBoard.recover``).

This module holds the task record and its checks; the board that keeps them, follows
the events and stores them is :mod:`tuibot.tasks.board`.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any, Literal, get_args

from tuibot.store.json_fields import FieldReader, kind_of
from tuibot.store.jsonl import StorageError

TaskState = Literal["todo", "doing", "done", "error", "paused", "waiting"]
"""``waiting``: for a person's approval; ``paused``: its delegated work is at a limit."""
STATES: tuple[TaskState, ...] = get_args(TaskState)
ENDED_STATES: frozenset[TaskState] = frozenset({"done", "error"})
"""Final states: the task's turn is over."""
IN_FLIGHT_STATES: frozenset[TaskState] = frozenset({"doing", "waiting", "paused"})
"""A turn was running: after a restart nothing runs it any more (see ``recover``)."""

TITLE_LIMIT = 50
EMPTY_TITLE = "(empty)"
RETENTION_S = 24 * 3600.0
"""How long a done or failed task stays on the board (it stays on disk for good)."""

_ID = re.compile(r"task_[0-9a-f]{12}")


class TaskError(ValueError):
    """A task record is malformed; the message names the field."""


class TaskStoreError(StorageError):
    """The task file could not be read or written; the message says what failed where."""


def new_task_id() -> str:
    return f"task_{secrets.token_hex(6)}"


def task_title(text: str) -> str:
    """The first ``TITLE_LIMIT`` characters of ``text`` on one line, whitespace collapsed."""
    title = " ".join(text.split())[:TITLE_LIMIT].rstrip()
    return title or EMPTY_TITLE


@dataclass(frozen=True)
class Task:
    """One input a chat answers; each change is a new version (see :class:`TaskBoard`)."""

    id: str
    title: str
    bot: str
    chat: str
    turn: str
    """The turn that answers it: its user message in the chat file carries this id."""
    parent: str | None
    """The task whose turn delegated the work this task's chat does."""
    delegation: str | None
    """The delegation this task's chat works on, if it is a task chat."""
    state: TaskState
    iterations: int
    """Model calls made for this task."""
    tool_calls: int
    created: float
    """Seconds since the epoch."""
    updated: float
    error: str | None
    """What went wrong, when ``state`` is ``error``."""
    recovered: bool
    """Reset from a running state after a restart (see :meth:`TaskBoard.recover`)."""

    @property
    def ended(self) -> bool:
        return self.state in ENDED_STATES

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "bot": self.bot,
            "chat": self.chat,
            "turn": self.turn,
            "parent": self.parent,
            "delegation": self.delegation,
            "state": self.state,
            "iterations": self.iterations,
            "tool_calls": self.tool_calls,
            "created": self.created,
            "updated": self.updated,
            "error": self.error,
            "recovered": self.recovered,
        }

    @classmethod
    def from_json(cls, data: object) -> Task:
        """A task from its JSON form; :class:`TaskError` if any field is malformed.

        Unknown fields are ignored, so a newer tuibot's file still loads.
        """
        if not isinstance(data, dict):
            raise TaskError(f"a task must be an object, got {kind_of(data)}")
        task_id = data.get("id")
        if not isinstance(task_id, str) or not _ID.fullmatch(task_id):
            raise TaskError(f"task id must be 'task_' + 12 hex, got {_shown(task_id)}")
        where = f"task {task_id}: "
        state = data.get("state")
        if state not in STATES:
            known = ", ".join(STATES)
            raise TaskError(f"{where}state must be one of {known}, got {_shown(state)}")
        parent = _FIELDS.optional_text(data, "parent", where)
        if parent is not None and not _ID.fullmatch(parent):
            raise TaskError(f"{where}parent must be a task id, got {_shown(parent)}")
        recovered = data.get("recovered", False)
        if not isinstance(recovered, bool):
            raise TaskError(f"{where}recovered must be true or false, got {_shown(recovered)}")
        return cls(
            id=task_id,
            title=_FIELDS.text(data, "title", where),
            bot=_FIELDS.text(data, "bot", where),
            chat=_FIELDS.text(data, "chat", where),
            turn=_FIELDS.text(data, "turn", where),
            parent=parent,
            delegation=_FIELDS.optional_text(data, "delegation", where),
            state=state,
            iterations=_count(data, "iterations", where),
            tool_calls=_count(data, "tool_calls", where),
            created=_time(data, "created", where),
            updated=_time(data, "updated", where),
            error=_FIELDS.optional_text(data, "error", where),
            recovered=recovered,
        )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_FIELDS = FieldReader(TaskError, "{where}{key} must be {wanted}, got {kind}")
"""How a task's text fields are checked, in this file's wording."""


def _count(data: dict[str, Any], key: str, where: str) -> int:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TaskError(f"{where}{key} must be a whole number >= 0, got {_shown(value)}")
    return value


def _time(data: dict[str, Any], key: str, where: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise TaskError(f"{where}{key} must be a time in seconds, got {_shown(value)}")
    return float(value)


def check_line(data: dict[str, Any]) -> str | None:
    """For ``read_lines``: a line that is not a whole task is set aside."""
    try:
        Task.from_json(data)
    except TaskError as exc:
        return str(exc)
    return None
