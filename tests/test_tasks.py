"""The task board: turns become tasks, events move them, the file keeps them."""

from __future__ import annotations

import errno
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import make_engine
from scripted_replies import cut, text, tool_calls
from scripted_server import ScriptedServer

from tuibot.agent.loop import run_turn
from tuibot.delegation.records import Delegation, Limits, Parent
from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    DelegationChanged,
    Notice,
    TextDelta,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from tuibot.store.jsonl import sidecar_path
from tuibot.tasks import (
    EMPTY_TITLE,
    Task,
    TaskError,
    TaskStoreError,
    task_title,
)
from tuibot.tasks import board as tasks_module
from tuibot.tasks.board import TaskBoard

T0 = 1_000_000.0
DAY = 24 * 3600.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "tasks.jsonl"


@pytest.fixture
def changes() -> list[Task]:
    return []


@pytest.fixture
def board(path: Path, clock: Clock, changes: list[Task]) -> TaskBoard:
    tasks = TaskBoard(path, clock=clock, on_change=changes.append)
    assert tasks.load() == []
    return tasks


def reloaded(path: Path, clock: Clock | None = None) -> TaskBoard:
    """A fresh board over the same file, as after a restart."""
    fresh = TaskBoard(path, clock=clock or Clock())
    fresh.load()
    return fresh


def file_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def start(board: TaskBoard, chat: str, turn: str, words: str = "do the thing") -> Task:
    board.on_event(TurnStarted(chat, turn, "helper", "test-model", words))
    task = board.for_turn(turn)
    assert task is not None
    return task


def finish(board: TaskBoard, chat: str, turn: str, status: Any = "completed", **kw: Any) -> None:
    board.on_event(TurnFinished(chat, turn, status, "answer", **kw))


def delegation(chat: str | None, status: Any, *, giver_chat: str, giver_turn: str) -> Delegation:
    record = Delegation.new(
        parent=Parent(giver_chat, giver_turn, "call_1"),
        giver_bot="helper",
        bot="worker",
        task="count the files",
        reason="it is tedious",
        limits=Limits(60_000),
        now=T0,
    )
    return replace(record, chat=chat, status=status)


@contextmanager
def full_disk() -> Iterator[None]:
    """File writes fail like a full disk (the terminal's descriptors still work)."""
    real = os.write

    def write(fd: int, data: bytes) -> int:
        if fd in (0, 1, 2):
            return real(fd, data)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "write", write)
        yield


# -- a turn's life ---------------------------------------------------------------------


def test_a_turn_goes_from_doing_to_done_with_its_counts(
    board: TaskBoard, path: Path, clock: Clock, changes: list[Task]
) -> None:
    words = "  please\n\tfix   the build " + "x" * 80
    task = start(board, "c_1", "t_1", words)
    assert task.state == "doing" and task.id.startswith("task_") and len(task.id) == 17
    assert task.title == ("please fix the build " + "x" * 80)[:50]
    assert (task.bot, task.chat, task.turn, task.parent, task.delegation) == (
        "helper",
        "c_1",
        "t_1",
        None,
        None,
    )
    assert task.created == task.updated == T0

    for number in (1, 2):
        board.on_event(ToolStarted("c_1", "t_1", f"call_{number}", "list_dir", {}))
    assert board.get(task.id).tool_calls == 2  # type: ignore[union-attr]
    assert len(file_lines(path)) == 1  # counting tools writes nothing

    clock.now = T0 + 5
    finish(board, "c_1", "t_1", rounds=3)
    done = board.get(task.id)
    assert done is not None
    assert (done.state, done.iterations, done.tool_calls, done.error) == ("done", 3, 2, None)
    assert done.updated == T0 + 5 and done.created == T0
    assert len(file_lines(path)) == 2
    assert [(t.state, t.tool_calls) for t in changes] == [
        ("doing", 0),
        ("doing", 1),
        ("doing", 2),
        ("done", 2),
    ]
    assert reloaded(path).get(task.id) == done  # the batched counts are on disk


def test_a_round_limit_is_done_too(board: TaskBoard) -> None:
    task = start(board, "c_1", "t_1")
    finish(board, "c_1", "t_1", "round_limit", error="I've reached my limit", rounds=10)
    assert board.get(task.id).state == "done"  # type: ignore[union-attr]
    assert board.get(task.id).iterations == 10  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        ("failed", "the model server is unreachable", "the model server is unreachable"),
        ("interrupted", "The partial answer was kept.", "The partial answer was kept."),
        ("cancelled", None, "the turn was cancelled"),
    ],
)
def test_a_failed_turn_is_an_error_with_its_text(
    board: TaskBoard, path: Path, status: str, error: str | None, expected: str
) -> None:
    task = start(board, "c_1", "t_1")
    finish(board, "c_1", "t_1", status, error=error, rounds=1)
    failed = reloaded(path).get(task.id)
    assert failed is not None
    assert (failed.state, failed.error, failed.iterations) == ("error", expected, 1)


def test_an_ended_task_ignores_a_second_finish_and_late_tool_calls(board: TaskBoard) -> None:
    task = start(board, "c_1", "t_1")
    finish(board, "c_1", "t_1", rounds=2)
    finish(board, "c_1", "t_1", "failed", error="late", rounds=4)
    board.on_event(ToolStarted("c_1", "t_1", "call_9", "list_dir", {}))
    ended = board.get(task.id)
    assert ended is not None
    assert (ended.state, ended.iterations, ended.tool_calls) == ("done", 2, 0)


@pytest.mark.parametrize(
    ("words", "title"),
    [("", EMPTY_TITLE), (" \n\t ", EMPTY_TITLE), ("a\nb", "a b"), ("x" * 49 + " y", "x" * 49)],
)
def test_titles_are_one_short_line(words: str, title: str) -> None:
    assert task_title(words) == title


def test_other_events_and_unknown_turns_change_nothing(
    board: TaskBoard, path: Path, changes: list[Task]
) -> None:
    board.on_event(TextDelta("c_1", "t_x", "hello"))
    board.on_event(Notice("c_1", "info", "hi"))
    board.on_event(ToolStarted("c_1", "t_x", "call_1", "list_dir", {}))
    finish(board, "c_1", "t_x")
    finish(board, "c_1", "")  # cancelled before the turn started
    assert board.all() == [] and changes == [] and not path.exists()


# -- approvals and delegation ----------------------------------------------------------


def test_an_approval_holds_the_task_in_waiting_until_decided(board: TaskBoard, path: Path) -> None:
    task = start(board, "c_1", "t_1")
    board.on_event(ApprovalRequested("c_1", "req_1", "tool", "Run rm?", {"tool": "exec"}))
    assert board.get(task.id).state == "waiting"  # type: ignore[union-attr]
    assert reloaded(path).get(task.id).state == "waiting"  # type: ignore[union-attr]

    board.on_event(ApprovalDecided("c_1", "req_other", True, "allowed"))
    assert board.get(task.id).state == "waiting"  # type: ignore[union-attr]
    board.on_event(ApprovalDecided("c_1", "req_1", True, "allowed"))
    assert board.get(task.id).state == "doing"  # type: ignore[union-attr]
    assert reloaded(path).get(task.id).state == "doing"  # type: ignore[union-attr]


def test_an_approval_for_a_task_chat_holds_that_chats_task(board: TaskBoard) -> None:
    root = start(board, "c_root", "t_root")
    work = start(board, "c_task", "t_task")
    details = {"tool": "exec", "task_chat": "c_task"}
    board.on_event(ApprovalRequested("c_root", "req_1", "tool", "Run?", details))
    assert board.get(work.id).state == "waiting"  # type: ignore[union-attr]
    assert board.get(root.id).state == "doing"  # type: ignore[union-attr]
    board.on_event(ApprovalDecided("c_root", "req_1", False, "denied"))
    assert board.get(work.id).state == "doing"  # type: ignore[union-attr]


def test_a_delegation_request_does_not_hold_the_givers_turn(board: TaskBoard) -> None:
    root = start(board, "c_root", "t_root")
    details = {"delegation": "dlg_0123456789abcdef", "bot": "worker"}
    board.on_event(ApprovalRequested("c_root", "req_1", "delegations.authorize", "?", details))
    assert board.get(root.id).state == "doing"  # type: ignore[union-attr]


def test_delegated_work_links_to_the_givers_task_and_pauses(board: TaskBoard, path: Path) -> None:
    giver = start(board, "c_root", "t_root", "split the job")
    record = delegation("c_task", "running", giver_chat="c_root", giver_turn="t_root")
    board.on_event(DelegationChanged("c_root", record.to_json()))
    work = start(board, "c_task", "t_task", "count the files")
    assert (work.parent, work.delegation) == (giver.id, record.id)
    assert start(board, "c_other", "t_other").parent is None

    paused = replace(record, status="paused", rev=2)
    board.on_event(DelegationChanged("c_root", paused.to_json()))
    assert board.get(work.id).state == "paused"  # type: ignore[union-attr]
    assert board.get(giver.id).state == "doing"  # type: ignore[union-attr]
    assert reloaded(path).get(work.id).state == "paused"  # type: ignore[union-attr]

    running = replace(record, status="running", rev=3)
    board.on_event(DelegationChanged("c_root", running.to_json()))
    assert board.get(work.id).state == "doing"  # type: ignore[union-attr]
    assert reloaded(path).get(work.id).state == "doing"  # type: ignore[union-attr]


def test_a_task_paused_while_waiting_goes_back_to_waiting(board: TaskBoard) -> None:
    start(board, "c_root", "t_root")
    record = delegation("c_task", "running", giver_chat="c_root", giver_turn="t_root")
    board.on_event(DelegationChanged("c_root", record.to_json()))
    work = start(board, "c_task", "t_task")
    details = {"tool": "exec", "task_chat": "c_task"}
    board.on_event(ApprovalRequested("c_root", "req_1", "tool", "Run?", details))
    board.on_event(DelegationChanged("c_root", replace(record, status="paused").to_json()))
    assert board.get(work.id).state == "paused"  # type: ignore[union-attr]
    board.on_event(DelegationChanged("c_root", replace(record, status="running").to_json()))
    assert board.get(work.id).state == "waiting"  # type: ignore[union-attr]
    board.on_event(ApprovalDecided("c_root", "req_1", True, "allowed"))
    assert board.get(work.id).state == "doing"  # type: ignore[union-attr]


def test_a_task_chat_stays_linked_after_a_restart(board: TaskBoard, path: Path) -> None:
    giver = start(board, "c_root", "t_root")
    record = delegation("c_task", "running", giver_chat="c_root", giver_turn="t_root")
    board.on_event(DelegationChanged("c_root", record.to_json()))
    start(board, "c_task", "t_task_1")
    finish(board, "c_task", "t_task_1")

    after = reloaded(path)  # no DelegationChanged seen by this board
    again = start(after, "c_task", "t_task_2", "go on")
    assert (again.parent, again.delegation) == (giver.id, record.id)


def test_a_record_without_a_task_chat_links_nothing(board: TaskBoard) -> None:
    start(board, "c_root", "t_root")
    record = delegation(None, "authorizing", giver_chat="c_root", giver_turn="t_root")
    board.on_event(DelegationChanged("c_root", record.to_json()))
    assert start(board, "c_task", "t_task").delegation is None


# -- the board, retention, recovery ----------------------------------------------------


def test_ended_tasks_leave_the_board_after_the_retention_but_stay_stored(
    path: Path, clock: Clock
) -> None:
    board = TaskBoard(path, clock=clock, retention_s=DAY)
    done = start(board, "c_1", "t_1")
    finish(board, "c_1", "t_1")
    failed = start(board, "c_1", "t_2")
    finish(board, "c_1", "t_2", "failed", error="boom")
    running = start(board, "c_2", "t_3")

    ids = [done.id, failed.id, running.id]
    assert [t.id for t in board.board(now=T0 + DAY - 1)] == ids
    assert [t.id for t in board.board(now=T0 + DAY + 1)] == [running.id]
    clock.now = T0 + DAY + 1
    assert [t.id for t in board.board()] == [running.id]  # the board's own clock
    assert [t.id for t in board.all()] == ids

    after = reloaded(path, clock)
    assert [t.id for t in after.all()] == ids
    assert [t.id for t in after.board(now=T0 + DAY + 1)] == [running.id]
    assert {line["id"] for line in file_lines(path)} == set(ids)


def test_current_is_the_newest_unended_task_of_the_chat(board: TaskBoard, clock: Clock) -> None:
    first = start(board, "c_1", "t_1")
    clock.now += 1
    second = start(board, "c_1", "t_2")
    start(board, "c_2", "t_3")
    assert board.current("c_1") == second
    finish(board, "c_1", "t_2")
    assert board.current("c_1") == board.get(first.id)
    finish(board, "c_1", "t_1")
    assert board.current("c_1") is None


def test_recover_resets_running_tasks_to_todo_durably(board: TaskBoard, path: Path) -> None:
    doing = start(board, "c_1", "t_1")
    waiting = start(board, "c_2", "t_2")
    board.on_event(ApprovalRequested("c_2", "req_1", "tool", "Run?", {}))
    done = start(board, "c_3", "t_3")
    finish(board, "c_3", "t_3")

    after = reloaded(path)
    recovered = after.recover()
    assert [t.id for t in recovered] == [doing.id, waiting.id]
    assert all(t.state == "todo" and t.recovered for t in recovered)
    assert after.get(done.id) == board.get(done.id)

    again = reloaded(path)
    assert [(t.state, t.recovered) for t in again.all()] == [
        ("todo", True),
        ("todo", True),
        ("done", False),
    ]
    assert [t.id for t in again.recover()] == [doing.id, waiting.id]  # still not re-run

    again.on_event(TurnStarted("c_1", "t_1", "helper", "test-model", "do the thing"))
    rerun = again.get(doing.id)
    assert rerun is not None and (rerun.state, rerun.recovered) == ("doing", True)
    assert len(again.all()) == 3


def test_set_state_moves_a_task_and_refuses_unknown_ids(board: TaskBoard, path: Path) -> None:
    task = start(board, "c_1", "t_1")
    board.set_state(task.id, "error", error="dropped after a restart")
    assert reloaded(path).get(task.id).error == "dropped after a restart"  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        board.set_state("task_000000000000", "done")


def test_flush_writes_pending_tool_counts(board: TaskBoard, path: Path) -> None:
    task = start(board, "c_1", "t_1")
    board.on_event(ToolStarted("c_1", "t_1", "call_1", "list_dir", {}))
    assert reloaded(path).get(task.id).tool_calls == 0  # type: ignore[union-attr]
    board.flush()
    assert reloaded(path).get(task.id).tool_calls == 1  # type: ignore[union-attr]


# -- storage ---------------------------------------------------------------------------


def test_a_torn_last_line_is_set_aside_and_reported(board: TaskBoard, path: Path) -> None:
    task = start(board, "c_1", "t_1")
    finish(board, "c_1", "t_1")
    with open(path, "ab") as handle:
        handle.write(b'{"id": "task_0123')

    fresh = TaskBoard(path)
    problems = fresh.load()
    assert len(problems) == 1
    assert problems[0].line == 3 and "incomplete last line" in problems[0].reason
    assert fresh.get(task.id) == board.get(task.id)
    assert len(file_lines(path)) == 2  # the file is clean again
    assert '"task_0123' in sidecar_path(path).read_text("utf-8")
    assert TaskBoard(path).load() == []


def test_a_malformed_task_line_is_set_aside(path: Path) -> None:
    path.write_text('{"id": "task_0123456789ab", "state": "sleeping"}\n', encoding="utf-8")
    board = TaskBoard(path)
    problems = board.load()
    assert len(problems) == 1 and "state must be one of" in problems[0].reason
    assert board.all() == []


def test_a_failed_write_raises_and_leaves_memory_and_file_unchanged(
    board: TaskBoard, path: Path, changes: list[Task]
) -> None:
    task = start(board, "c_1", "t_1")
    before, content = board.all(), path.read_bytes()
    changes.clear()
    with full_disk(), pytest.raises(TaskStoreError) as caught:
        board.set_state(task.id, "done")
    error = caught.value
    assert error.path == path and error.errno == errno.ENOSPC
    assert str(path) in str(error) and os.strerror(errno.ENOSPC) in str(error)
    assert str(error).startswith(f"could not save task {task.id} to ")
    assert board.all() == before and changes == []
    assert path.read_bytes() == content


def test_a_failed_recover_changes_nothing(board: TaskBoard, path: Path) -> None:
    start(board, "c_1", "t_1")
    start(board, "c_2", "t_2")
    before = board.all()
    with full_disk(), pytest.raises(TaskStoreError, match="could not save 2 tasks"):
        board.recover()
    assert board.all() == before
    assert [t.state for t in reloaded(path).all()] == ["doing", "doing"]


def test_on_event_logs_a_storage_error_and_goes_on(
    board: TaskBoard, path: Path, changes: list[Task], caplog: pytest.LogCaptureFixture
) -> None:
    with full_disk(), caplog.at_level(logging.ERROR, logger="tuibot.tasks"):
        board.on_event(TurnStarted("c_1", "t_1", "helper", "test-model", "hi"))
    assert board.all() == [] and changes == []
    logged = [r for r in caplog.records if r.name == "tuibot.tasks"]
    assert len(logged) == 1 and "TurnStarted" in logged[0].getMessage()
    assert logged[0].exc_info is not None and isinstance(logged[0].exc_info[1], TaskStoreError)
    assert start(board, "c_1", "t_1").state == "doing"  # the disk is back: it works again


def test_a_broken_on_change_does_not_undo_the_change(path: Path) -> None:
    def broken(task: Task) -> None:
        raise RuntimeError("pane crashed")

    board = TaskBoard(path, on_change=broken)
    task = start(board, "c_1", "t_1")
    assert reloaded(path).get(task.id) == task


def test_an_unreadable_file_is_a_task_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "tasks.jsonl"
    folder.mkdir()  # reading a folder fails
    with pytest.raises(TaskStoreError, match=r"could not load tasks from .*tasks\.jsonl"):
        TaskBoard(folder).load()


def test_the_file_is_compacted_once_old_versions_dominate(
    board: TaskBoard, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tasks_module, "COMPACT_MIN_LINES", 10)
    task = start(board, "c_1", "t_1")
    other = start(board, "c_2", "t_2")
    states: list[Any] = ["waiting", "doing"] * 4
    for state in states:
        board.set_state(task.id, state)
    assert len(file_lines(path)) == 10  # not more than the minimum yet
    board.set_state(task.id, "done")
    assert len(file_lines(path)) == 2
    after = reloaded(path)
    assert after.get(task.id).state == "done"  # type: ignore[union-attr]
    assert after.get(other.id) == board.get(other.id)


def test_compaction_on_load(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    board = TaskBoard(path)
    board.load()
    task = start(board, "c_1", "t_1")
    for _ in range(11):
        board.set_state(task.id, "doing")
    monkeypatch.setattr(tasks_module, "COMPACT_MIN_LINES", 10)
    assert len(file_lines(path)) == 12
    reloaded(path)
    assert len(file_lines(path)) == 1


def test_no_compaction_over_another_writers_unread_lines(
    board: TaskBoard, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tasks_module, "COMPACT_MIN_LINES", 10)
    mine = start(board, "c_1", "t_1")
    elsewhere = TaskBoard(path)  # another process, writing the same file
    elsewhere.load()
    theirs = start(elsewhere, "c_2", "t_2")
    for _ in range(12):
        board.set_state(mine.id, "doing")
    assert len(file_lines(path)) == 14
    assert reloaded(path).get(theirs.id) == theirs


# -- the record form -------------------------------------------------------------------


def test_a_task_round_trips_through_json(board: TaskBoard) -> None:
    task = start(board, "c_1", "t_1")
    assert Task.from_json(json.loads(json.dumps(task.to_json()))) == task
    assert Task.from_json({**task.to_json(), "future_field": 1}) == task


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": "t_1"}, "task id must be"),
        ({"state": "sleeping"}, "state must be one of"),
        ({"title": None}, "title must be a string"),
        ({"parent": "c_1"}, "parent must be a task id"),
        ({"iterations": -1}, "iterations must be a whole number"),
        ({"tool_calls": True}, "tool_calls must be a whole number"),
        ({"created": "yesterday"}, "created must be a time"),
        ({"recovered": "yes"}, "recovered must be true or false"),
        ({"error": 3}, "error must be a string or null"),
    ],
)
def test_malformed_records_are_task_errors(
    board: TaskBoard, change: dict[str, Any], message: str
) -> None:
    data = {**start(board, "c_1", "t_1").to_json(), **change}
    with pytest.raises(TaskError, match=message):
        Task.from_json(data)
    assert issubclass(TaskError, ValueError)
    with pytest.raises(TaskError, match="must be an object"):
        Task.from_json([1])


# -- the loop counts its model calls ---------------------------------------------------


async def _turn(server: ScriptedServer) -> tuple[Any, Any]:
    engine = make_engine(server)
    chat = engine.new_chat().id
    return engine, await engine.turns.prepare(chat, "t_rounds", "list the folder")


async def test_run_turn_reports_its_model_calls(server: ScriptedServer) -> None:
    engine, turn = await _turn(server)
    server.enqueue(tool_calls([("list_dir", "{}")]), tool_calls([("list_dir", "{}")]), text("ok"))
    outcome = await run_turn(turn)
    assert (outcome.status, outcome.rounds) == ("completed", 3)
    await engine.close()


async def test_run_turn_reports_model_calls_at_the_round_limit(server: ScriptedServer) -> None:
    engine, turn = await _turn(server)
    turn.max_rounds = 2
    server.enqueue(tool_calls([("list_dir", "{}")]), tool_calls([("list_dir", "{}")]))
    outcome = await run_turn(turn)
    assert (outcome.status, outcome.rounds) == ("round_limit", 2)
    await engine.close()


async def test_run_turn_reports_model_calls_of_an_interrupted_turn(server: ScriptedServer) -> None:
    engine, turn = await _turn(server)
    server.enqueue(tool_calls([("list_dir", "{}")]), cut("half an answer", after=2))
    outcome = await run_turn(turn)
    assert (outcome.status, outcome.rounds) == ("interrupted", 2)
    assert turn.rounds == 2
    await engine.close()
