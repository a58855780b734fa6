"""The task board: the tasks of every chat under one file, following the engine's events.

Storage is one JSON Lines file (``<data>/tasks.jsonl``): every change appends the task's
whole new version, and on load the last line of each id wins. Line guarantees (whole-line
durable appends, torn lines set aside, atomic rewrites) come from :mod:`tuibot.store.jsonl`.
Superseded versions are dropped by a rewrite once the file holds more than
``COMPACT_RATIO`` lines per task and more than ``COMPACT_MIN_LINES`` lines.

Tool calls are counted in memory only and written with the task's next state change (at
the latest when its turn finishes), so a busy turn does not fsync once per tool call.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    DelegationChanged,
    Event,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from tuibot.store.jsonl import LineProblem, StorageError, append_lines, read_lines, rewrite_lines
from tuibot.tasks import (
    IN_FLIGHT_STATES,
    RETENTION_S,
    STATES,
    Task,
    TaskState,
    TaskStoreError,
    check_line,
    new_task_id,
    task_title,
)

log = logging.getLogger("tuibot.tasks")

COMPACT_MIN_LINES = 2000
COMPACT_RATIO = 4

_DONE_STATUSES = frozenset({"completed", "round_limit"})

OnChange = Callable[[Task], None]
"""Told each new version of a task, after it is in memory (and, for states, on disk)."""

_Stamp = tuple[int, int, int]


class TaskBoard:
    """Every task under one file (e.g. ``<data>/tasks.jsonl``), answered from memory.

    Call :meth:`load` once at start-up, then :meth:`recover` if this process owns the
    data (no other tuibot is running on it), and register :meth:`on_event` as a listener.
    A write that fails raises :class:`TaskStoreError` and leaves memory as it was.
    """

    def __init__(
        self,
        path: Path,
        *,
        retention_s: float = RETENTION_S,
        on_change: OnChange | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.path = path
        self.retention_s = retention_s
        self.on_change = on_change
        self._clock = clock or time.time
        """Wall time; ``time.time`` as it is when the board is made (tests freeze it)."""
        self._tasks: dict[str, Task] = {}
        """The latest version of each id, in order of first appearance (creation)."""
        self._by_turn: dict[str, str] = {}
        self._dirty: set[str] = set()
        """Tasks whose tool count changed since their last write."""
        self._lines = 0
        """Records in the file, superseded versions included: drives compaction."""
        self._stamp: _Stamp | None = None
        """The file as of our last read or write; a different one means another writer."""
        self._loaded = False
        self._stale = False
        """Someone else wrote the file since we read it: no compaction until a reload."""
        self._task_chats: dict[str, tuple[str, str | None]] = {}
        """Task chat -> (delegation id, the giver's turn), from ``DelegationChanged``."""
        self._requests: dict[str, str] = {}
        """Pending approval request -> the task it holds in ``waiting``."""

    # -- reading -----------------------------------------------------------------------

    def load(self) -> list[LineProblem]:
        """Read the file again (all or nothing); returns the torn or bad lines set aside.

        A missing file is an empty board and is not created. Counts not yet written are
        dropped: the file is the truth.
        """
        with self._failing("load", "tasks"):
            result = read_lines(self.path, set_aside=True, check=check_line)
            stamp = self._current_stamp()
        tasks: dict[str, Task] = {}
        for data in result.records:
            task = Task.from_json(data)
            tasks[task.id] = task
        self._tasks = tasks
        self._by_turn = {task.turn: task.id for task in tasks.values()}
        self._dirty.clear()
        self._lines, self._stamp = len(result.records), stamp
        self._loaded, self._stale = True, False
        for problem in result.problems:
            log.warning("%s line %d set aside: %s", self.path, problem.line, problem.reason)
        self._maybe_compact()
        return result.problems

    def get(self, task_id: str) -> Task | None:
        return self._tasks.get(task_id)

    def all(self) -> list[Task]:
        """Every task, oldest first."""
        return sorted(self._tasks.values(), key=lambda task: task.created)

    def board(self, now: float | None = None) -> list[Task]:
        """The tasks to show, oldest first: all but those ended over ``retention_s`` ago."""
        cutoff = (self._clock() if now is None else now) - self.retention_s
        return [task for task in self.all() if not (task.ended and task.updated < cutoff)]

    def for_turn(self, turn_id: str) -> Task | None:
        task_id = self._by_turn.get(turn_id)
        return None if task_id is None else self._tasks.get(task_id)

    def current(self, chat: str) -> Task | None:
        """The newest task of ``chat`` that has not ended, if any."""
        best: tuple[float, int] | None = None
        found: Task | None = None
        for index, task in enumerate(self._tasks.values()):
            if task.chat != chat or task.ended:
                continue
            if best is None or (task.created, index) >= best:
                best, found = (task.created, index), task
        return found

    # -- changing ----------------------------------------------------------------------

    def recover(self) -> list[Task]:
        """After a restart: reset every running task to ``todo``; returns all ``todo`` tasks.

        ``doing``, ``waiting`` and ``paused`` all meant a turn was running, and none
        survives a restart (pending approvals are gone too), so all three become
        ``todo`` with ``recovered`` set, in one durable write. Tasks already in ``todo``
        (recovered before and not yet run again) are returned as well, oldest first, so
        the caller can re-execute every one of them.
        """
        now = self._now()
        reset = [
            replace(task, state="todo", recovered=True, updated=now)
            for task in self.all()
            if task.state in IN_FLIGHT_STATES
        ]
        self._commit(reset)
        self._requests.clear()
        return [task for task in self.all() if task.state == "todo"]

    def set_state(self, task_id: str, state: TaskState, *, error: str | None = None) -> Task:
        """Move a task to ``state`` (e.g. a recovered task the engine re-ran or dropped)."""
        task = self._tasks.get(task_id)
        if task is None:
            raise KeyError(f"no task {task_id} in {self.path}")
        if state not in STATES:
            raise ValueError(f"unknown task state {state!r}")
        changed = replace(
            task, state=state, error=error if state == "error" else None, updated=self._now()
        )
        self._commit([changed])
        return changed

    def flush(self) -> None:
        """Write the tool counts not yet on disk (e.g. before closing)."""
        self._commit([self._tasks[task_id] for task_id in sorted(self._dirty)])

    # -- events ------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Keep the board up to date from one engine event; never raises."""
        try:
            self._apply(event)
        except Exception:
            log.exception("task board: could not apply %s", type(event).__name__)

    def _apply(self, event: Event) -> None:
        if isinstance(event, TurnStarted):
            self._turn_started(event)
        elif isinstance(event, ToolStarted):
            self._tool_started(event)
        elif isinstance(event, TurnFinished):
            self._turn_finished(event)
        elif isinstance(event, ApprovalRequested):
            self._approval_requested(event)
        elif isinstance(event, ApprovalDecided):
            self._approval_decided(event)
        elif isinstance(event, DelegationChanged):
            self._delegation_changed(event)

    def _turn_started(self, event: TurnStarted) -> None:
        now = self._now()
        known = self.for_turn(event.turn)
        if known is not None:  # the same turn run again (a recovered task)
            self._commit([replace(known, state="doing", error=None, updated=now)])
            return
        delegation, parent = self._link(event.chat)
        task = Task(
            id=new_task_id(),
            title=task_title(event.input),
            bot=event.bot,
            chat=event.chat,
            turn=event.turn,
            parent=parent,
            delegation=delegation,
            state="doing",
            iterations=0,
            tool_calls=0,
            created=now,
            updated=now,
            error=None,
            recovered=False,
        )
        self._commit([task])

    def _link(self, chat: str) -> tuple[str | None, str | None]:
        """The delegation ``chat`` works on and the giver's task, if it is a task chat."""
        if chat in self._task_chats:
            delegation, giver_turn = self._task_chats[chat]
            giver = self.for_turn(giver_turn) if giver_turn else None
            return delegation, None if giver is None else giver.id
        for task in reversed(self.all()):  # after a restart: as its earlier tasks were
            if task.chat == chat and task.delegation is not None:
                return task.delegation, task.parent
        return None, None

    def _tool_started(self, event: ToolStarted) -> None:
        task = self.for_turn(event.turn)
        if task is None or task.ended:
            return
        changed = replace(task, tool_calls=task.tool_calls + 1, updated=self._now())
        self._tasks[task.id] = changed  # written with the next state change
        self._dirty.add(task.id)
        self._notify([changed])

    def _turn_finished(self, event: TurnFinished) -> None:
        task = self.for_turn(event.turn) if event.turn else None
        if task is None or task.ended:
            return
        done = event.status in _DONE_STATUSES
        changed = replace(
            task,
            state="done" if done else "error",
            iterations=task.iterations + max(event.rounds, 0),
            error=None if done else (event.error or f"the turn was {event.status}"),
            updated=self._now(),
        )
        self._commit([changed])
        for request_id in [r for r, t in self._requests.items() if t == task.id]:
            del self._requests[request_id]

    def _approval_requested(self, event: ApprovalRequested) -> None:
        task_chat = event.details.get("task_chat")
        if "delegation" in event.details and not isinstance(task_chat, str):
            return  # about delegated work (authorize, continue): no turn waits on it
        task = self.current(task_chat if isinstance(task_chat, str) else event.chat)
        if task is None or task.state == "todo":
            return
        self._requests[event.request_id] = task.id
        if task.state == "doing":
            self._commit([replace(task, state="waiting", updated=self._now())])

    def _approval_decided(self, event: ApprovalDecided) -> None:
        task_id = self._requests.pop(event.request_id, None)
        task = None if task_id is None else self._tasks.get(task_id)
        if task is None or task.state != "waiting" or self._waits_for_request(task.id):
            return
        self._commit([replace(task, state="doing", updated=self._now())])

    def _delegation_changed(self, event: DelegationChanged) -> None:
        record = event.record
        chat, delegation = record.get("chat"), record.get("id")
        if not isinstance(chat, str) or not isinstance(delegation, str):
            return
        parent = record.get("parent")
        giver_turn = parent.get("turn") if isinstance(parent, dict) else None
        self._task_chats[chat] = (delegation, giver_turn if isinstance(giver_turn, str) else None)
        task = self.current(chat)
        if task is None:
            return
        changes: dict[str, Any] = {}
        if task.delegation is None:  # its turn started before the record named the chat
            changes["delegation"], changes["parent"] = self._link(chat)
        status = record.get("status")
        if status == "paused" and task.state in ("doing", "waiting"):
            changes["state"] = "paused"
        elif status == "running" and task.state == "paused":
            changes["state"] = "waiting" if self._waits_for_request(task.id) else "doing"
        if changes:
            self._commit([replace(task, **changes, updated=self._now())])

    def _waits_for_request(self, task_id: str) -> bool:
        return task_id in self._requests.values()

    # -- storage -----------------------------------------------------------------------

    def _now(self) -> float:
        return round(self._clock(), 3)

    def _commit(self, tasks: Sequence[Task]) -> None:
        """Append the new versions, then take them into memory and tell ``on_change``."""
        if not tasks:
            return
        subject = f"task {tasks[0].id}" if len(tasks) == 1 else f"{len(tasks)} tasks"
        with self._failing("save", subject):
            before = self._current_stamp()
            append_lines(self.path, [task.to_json() for task in tasks])
        if not self._loaded and before is None:
            self._loaded = True  # there was no file: we know every task in it
        elif not self._loaded or before != self._stamp:
            self._stale = True  # another writer (or never loaded): we do not know it all
        for task in tasks:
            self._tasks[task.id] = task
            self._by_turn[task.turn] = task.id
            self._dirty.discard(task.id)
        self._lines += len(tasks)
        try:
            self._stamp = self._current_stamp()
        except OSError:
            self._stale = True
        self._maybe_compact()
        self._notify(tasks)

    def _notify(self, tasks: Sequence[Task]) -> None:
        if self.on_change is None:
            return
        for task in tasks:
            try:
                self.on_change(task)
            except Exception:
                log.exception("task board: on_change failed for %s", task.id)

    def _maybe_compact(self) -> None:
        """Drop superseded versions once they dominate the file; failure is only logged.

        Skipped while another writer's lines may be in the file unread: a rewrite from
        memory would drop them.
        """
        lines, count = self._lines, len(self._tasks)
        if self._stale or lines <= COMPACT_MIN_LINES or lines <= COMPACT_RATIO * count:
            return
        tasks = self.all()
        try:
            rewrite_lines(self.path, [task.to_json() for task in tasks])
            self._stamp = self._current_stamp()
        except (StorageError, OSError) as exc:
            log.warning("tasks not compacted: %s", exc)
            return
        self._lines = len(tasks)
        self._dirty.clear()

    def _current_stamp(self) -> _Stamp | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    @contextmanager
    def _failing(self, action: str, subject: str) -> Iterator[None]:
        """Re-word storage trouble: ``could not save task task_… to /path: …``."""
        try:
            yield
        except (StorageError, OSError) as exc:
            if isinstance(exc, StorageError):
                where, reason, number = exc.path, exc.reason, exc.errno
            else:
                where = Path(exc.filename) if exc.filename else None
                reason, number = exc.strerror or str(exc), exc.errno
            path = where or self.path
            word = {"save": "to", "load": "from"}.get(action, "in")
            message = f"could not {action} {subject} {word} {path}: {reason}"
            raise TaskStoreError(
                message, path=path, reason=reason, errno=number, action=action
            ) from exc
