"""Delegation records and their journal, on real files.

The journal is the only memory of work handed between bots, so it must survive torn
writes and full disks and never let two writers silently overwrite each other.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tuibot.delegation import (
    ENDED_STATUSES,
    OPEN_STATUSES,
    Delegation,
    DelegationConflict,
    DelegationJournal,
    DelegationNotFound,
    DelegationStorageError,
    Limits,
    LimitsError,
    Parent,
    Pause,
    RecordError,
    Usage,
    new_delegation_id,
)
from tuibot.delegation import journal as journal_module
from tuibot.store.jsonl import StorageError, sidecar_path


def make(task: str = "summarise the logs", *, chat: str = "c_parent") -> Delegation:
    return Delegation.new(
        parent=Parent(chat, turn="t_1", tool_call="call_1"),
        giver_bot="Assistant",
        bot="Researcher",
        task=task,
        reason="it needs a web search",
        limits=Limits(60_000, steps=20),
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "delegations.jsonl"


@pytest.fixture
def journal(path: Path) -> DelegationJournal:
    journal = DelegationJournal(path)
    assert journal.load() == []
    return journal


# Limits


def test_limits_parse_accepts_the_bounds_and_omits_missing_fields() -> None:
    assert Limits.parse({"timeMs": 1_000}) == Limits(1_000)
    full = {"timeMs": 2_592_000_000, "steps": 1, "budgetMicros": 5}
    assert Limits.parse(full) == Limits(2_592_000_000, 1, 5)
    assert Limits.parse(full).to_json() == full
    assert Limits.parse({"timeMs": 5_000, "steps": None}).to_json() == {"timeMs": 5_000}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1], "limits must be an object, got list"),
        ({"timeMs": 5_000, "tokens": 3}, "limits has an unknown field 'tokens'"),
        ({"steps": 3}, "limits.timeMs is required"),
        ({"timeMs": "5000"}, "limits.timeMs must be an integer, got str"),
        ({"timeMs": 5_000.0}, "limits.timeMs must be an integer, got float"),
        ({"timeMs": True}, "limits.timeMs must be an integer, got bool"),
        ({"timeMs": 999}, "limits.timeMs must be between 1000 (1 s) and 2592000000 (30 days)"),
        ({"timeMs": 2_592_000_001}, "got 2592000001"),
        ({"timeMs": 5_000, "steps": 0}, "limits.steps must be at least 1, got 0"),
        ({"timeMs": 5_000, "steps": True}, "limits.steps must be an integer, got bool"),
        ({"timeMs": 5_000, "budgetMicros": -1}, "limits.budgetMicros must be at least 1, got -1"),
        ({"timeMs": 5_000, "budgetMicros": 1.5}, "limits.budgetMicros must be an integer"),
    ],
)
def test_limits_parse_refuses_with_a_message_naming_the_field(value: object, message: str) -> None:
    with pytest.raises(LimitsError) as caught:
        Limits.parse(value)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


# Records


def full_record() -> Delegation:
    return Delegation(
        id=new_delegation_id(),
        parent=Parent("c_parent", turn="t_7", tool_call="call_3"),
        giver_bot="Assistant",
        bot="Researcher",
        chat="c_task",
        status="paused",
        task="find the release notes\nand summarise them",
        reason="needs the web",
        result="partial: 3 of 5 found",
        limits=Limits(120_000, steps=30, budget_micros=250_000),
        usage=Usage(90_000, 25, 200_000),
        window=Usage(30_000, 5, 50_000),
        pause=Pause("budget", request="req_1", delegation=None, at=1_764_704_702.25),
        created=1_764_704_701.5,
        updated=1_764_704_702.75,
        rev=4,
    )


def test_a_full_record_round_trips_through_json() -> None:
    record = full_record()
    data = record.to_json()
    assert list(data) == [
        "id",
        "parent",
        "giverBot",
        "bot",
        "chat",
        "status",
        "task",
        "reason",
        "result",
        "limits",
        "usage",
        "window",
        "pause",
        "createdAt",
        "updatedAt",
        "rev",
    ]
    assert data["createdAt"] == 1_764_704_701_500
    assert data["updatedAt"] == 1_764_704_702_750
    assert data["parent"] == {"chat": "c_parent", "turn": "t_7", "toolCallId": "call_3"}
    assert data["usage"] == {"timeMs": 90_000, "steps": 25, "costMicros": 200_000}
    assert data["pause"]["at"] == 1_764_704_702_250
    assert Delegation.from_json(json.loads(json.dumps(data))) == record


def test_record_helpers() -> None:
    record = full_record()
    assert record.used() == Usage(60_000, 20, 150_000)
    assert Usage(1, 2, 3) + Usage(10, 20, 30) == Usage(11, 22, 33)
    assert record.is_open
    assert not replace(record, status="completed").is_open
    every = OPEN_STATUSES | ENDED_STATUSES
    assert every == {
        "authorizing",
        "queued",
        "running",
        "paused",
        "completed",
        "failed",
        "cancelled",
    }
    assert not OPEN_STATUSES & ENDED_STATUSES
    new = make()
    assert new.rev == 1 and new.status == "authorizing" and new.chat is None
    assert len(new.id) == 20 and new.id.startswith("dlg_") and new.id != make().id


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": "dlg_xyz"}, "id must be 'dlg_' + 16 hex"),
        ({"status": "done"}, "status must be one of authorizing"),
        ({"bot": ""}, "bot must be a non-empty string"),
        ({"rev": 0}, "rev must be a whole number >= 1"),
        ({"limits": {"timeMs": 10}}, "limits.timeMs must be between"),
        ({"usage": {"steps": -1}}, "usage.steps must be a whole number >= 0"),
        ({"pause": {"limit": "mood", "at": 1}}, "pause.limit must be one of time"),
        ({"parent": "c_1"}, "parent must be an object, got str"),
        ({"createdAt": 1.5}, "createdAt must be whole milliseconds"),
    ],
)
def test_a_malformed_record_is_refused(change: dict[str, Any], message: str) -> None:
    data = {**full_record().to_json(), **change}
    with pytest.raises(RecordError) as caught:
        Delegation.from_json(data)
    assert message in str(caught.value)


# Journal


def test_create_update_and_reload_give_the_latest_revision(
    journal: DelegationJournal, path: Path
) -> None:
    first = journal.create(make("one"))
    second = journal.create(make("two", chat="c_other"))
    running = journal.update(replace(first, status="running", chat="c_task"), expected_rev=1)
    assert running.rev == 2 and running.updated >= first.updated
    done = journal.update(replace(running, status="completed", result="ok"), expected_rev=2)
    assert done.rev == 3
    assert len(path.read_bytes().splitlines()) == 4  # every revision is its own line

    fresh = DelegationJournal(path)
    assert fresh.load() == []
    assert fresh.get(first.id) == done
    assert fresh.all() == [done, second]
    assert fresh.children("c_parent") == [done]
    assert fresh.children("c_other") == [second]
    assert fresh.get("dlg_0000000000000000") is None


def test_create_refuses_a_taken_id_or_a_later_revision(journal: DelegationJournal) -> None:
    record = journal.create(make())
    with pytest.raises(DelegationConflict, match="already exists"):
        journal.create(record)
    with pytest.raises(ValueError, match="starts at revision 1"):
        journal.create(replace(make(), rev=2))
    with pytest.raises(DelegationNotFound):
        journal.update(make(), expected_rev=1)


def test_a_stale_update_conflicts_and_writes_nothing(
    journal: DelegationJournal, path: Path
) -> None:
    record = journal.create(make())
    journal.update(replace(record, status="queued"), expected_rev=1)
    before = path.read_bytes()
    with pytest.raises(DelegationConflict) as caught:
        journal.update(replace(record, status="cancelled"), expected_rev=1)
    message = str(caught.value)
    assert record.id in message and "expected revision 1" in message
    assert "revision 2" in message and "read it again" in message
    assert (caught.value.expected, caught.value.current) == (1, 2)
    assert path.read_bytes() == before
    assert journal.get(record.id).status == "queued"  # type: ignore[union-attr]


def test_an_update_by_another_journal_is_detected(journal: DelegationJournal, path: Path) -> None:
    record = journal.create(make())
    other = DelegationJournal(path)  # another process, as far as the file is concerned
    other.load()
    other.update(replace(record, status="cancelled"), expected_rev=1)
    assert journal.get(record.id) == record  # not re-read yet: memory is stale
    before = path.read_bytes()

    with pytest.raises(DelegationConflict, match="expected revision 1"):
        journal.update(replace(record, status="running"), expected_rev=1)
    assert path.read_bytes() == before
    assert journal.get(record.id).status == "cancelled"  # type: ignore[union-attr]
    moved = journal.update(replace(record, result="noted"), expected_rev=2)
    assert moved.rev == 3


def test_an_update_by_another_process_is_detected(journal: DelegationJournal, path: Path) -> None:
    record = journal.create(make())
    script = (
        "import sys\n"
        "from dataclasses import replace\n"
        "from pathlib import Path\n"
        "from tuibot.delegation import DelegationJournal\n"
        "j = DelegationJournal(Path(sys.argv[1])); j.load()\n"
        "r = j.get(sys.argv[2])\n"
        "j.update(replace(r, status='failed'), expected_rev=1)\n"
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", script, str(path), record.id], check=True, cwd=root)
    with pytest.raises(DelegationConflict):
        journal.update(replace(record, status="running"), expected_rev=1)
    assert journal.get(record.id).status == "failed"  # type: ignore[union-attr]


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_writer_waits_for_the_lock(journal: DelegationJournal, path: Path) -> None:
    import fcntl

    record = journal.create(make())
    fd = os.open(journal.lock_path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another process mid-update
    worker = threading.Thread(
        target=journal.update, args=(replace(record, status="queued"),), kwargs={"expected_rev": 1}
    )
    try:
        worker.start()
        time.sleep(0.2)
        assert worker.is_alive()
        assert len(path.read_bytes().splitlines()) == 1  # nothing written while it waits
    finally:
        os.close(fd)
        worker.join(5)
    assert not worker.is_alive()
    assert journal.get(record.id).rev == 2  # type: ignore[union-attr]


def test_a_torn_last_line_is_set_aside_and_reported(journal: DelegationJournal, path: Path) -> None:
    first = journal.create(make("one"))
    second = journal.create(make("two"))
    with open(path, "ab") as handle:
        handle.write(b'{"id":"dlg_00000000000000')

    fresh = DelegationJournal(path)
    problems = fresh.load()
    assert [p.line for p in problems] == [3]
    assert "incomplete last line" in problems[0].reason
    assert fresh.all() == [first, second]
    assert b"dlg_00000000000000" in sidecar_path(path).read_bytes()
    assert DelegationJournal(path).load() == []  # repaired once, clean afterwards
    updated = fresh.update(replace(first, status="queued"), expected_rev=1)
    assert DelegationJournal(path).load() == [] and updated.rev == 2


def test_a_malformed_record_line_is_reported(journal: DelegationJournal, path: Path) -> None:
    first = journal.create(make("one"))
    last = journal.create(make("three"))
    good = path.read_bytes().splitlines(keepends=True)
    bad = json.dumps({**make().to_json(), "status": "exploded"}).encode() + b"\n"
    path.write_bytes(good[0] + bad + good[1])

    fresh = DelegationJournal(path)
    problems = fresh.load()
    assert [p.line for p in problems] == [2]
    assert "status must be one of" in problems[0].reason and "exploded" in problems[0].text
    assert fresh.all() == [first, last]


def test_a_full_disk_raises_and_changes_nothing(
    journal: DelegationJournal, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = journal.create(make())
    before = path.read_bytes()
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        """Like a disk filling up: half of a write lands, the rest fails."""
        if fd in (0, 1, 2):
            return real_write(fd, data)
        if len(data) > 1:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)
    with pytest.raises(DelegationStorageError) as caught:
        journal.update(replace(record, status="running"), expected_rev=1)
    with pytest.raises(DelegationStorageError):
        journal.create(make("another"))
    monkeypatch.undo()

    error = caught.value
    assert isinstance(error, StorageError) and error.errno == errno.ENOSPC
    assert str(error).startswith(f"could not save delegation {record.id} to {path}")
    assert os.strerror(errno.ENOSPC) in str(error)
    assert journal.get(record.id) == record and len(journal.all()) == 1
    assert path.read_bytes() == before
    assert journal.update(replace(record, status="running"), expected_rev=1).rev == 2


def test_an_unreadable_journal_raises_a_storage_error(path: Path) -> None:
    path.mkdir(parents=True)  # a folder where the file should be
    with pytest.raises(DelegationStorageError) as caught:
        DelegationJournal(path).load()
    assert str(caught.value).startswith(f"could not load delegations from {path}")


def test_compact_keeps_only_the_latest_revisions(journal: DelegationJournal, path: Path) -> None:
    records = [journal.create(make(f"task {n}")) for n in range(3)]
    for record in records:
        current = record
        for rev in range(1, 4):
            current = journal.update(replace(current, result=f"r{rev}"), expected_rev=rev)
    assert len(path.read_bytes().splitlines()) == 12
    before = journal.all()

    journal.compact()
    lines = path.read_bytes().splitlines()
    assert [json.loads(line)["rev"] for line in lines] == [4, 4, 4]
    fresh = DelegationJournal(path)
    assert fresh.load() == []
    assert fresh.all() == before
    assert journal.update(replace(before[0], status="queued"), expected_rev=4).rev == 5


def test_update_compacts_a_file_grown_large(
    journal: DelegationJournal, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "COMPACT_MIN_LINES", 10)
    keep = journal.create(make("kept"))
    record = journal.create(make("busy"))
    for rev in range(1, 9):
        record = journal.update(replace(record, result=str(rev)), expected_rev=rev)
        assert len(path.read_bytes().splitlines()) == 2 + rev  # 10 lines: not yet
    record = journal.update(replace(record, result="last"), expected_rev=9)
    assert len(path.read_bytes().splitlines()) == 2  # 11 > max(10, 4 * 2): compacted
    fresh = DelegationJournal(path)
    fresh.load()
    assert fresh.all() == [keep, record]
