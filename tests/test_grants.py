"""Grants kept on disk: persisted by decisions, re-read, revoked, safe against bad files."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import stat
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from tuibot.approvals import ApprovalQueue, Decision
from tuibot.approvals.grants import Grant, GrantNotFound, GrantStore, GrantStoreError, grant_id
from tuibot.cli import main
from tuibot.events import ApprovalRequested, Event, Notice
from tuibot.system.paths import DataPaths


@pytest.fixture
def path(hermetic: Path) -> Path:
    """Where the engine and the CLI keep grants in this test."""
    return DataPaths.default().grants


class Queue:
    """An approval queue on a grant store, recording what it emits."""

    def __init__(self, path: Path | None) -> None:
        self.events: list[Event] = []
        self.store = GrantStore(path) if path is not None else None
        self.queue = ApprovalQueue(self.events.append, 5, grants=self.store)

    def notices(self) -> list[Notice]:
        return [e for e in self.events if isinstance(e, Notice)]

    def asked(self) -> int:
        return sum(isinstance(e, ApprovalRequested) for e in self.events)

    async def ask(self, chat: str, key: str, answer: Decision | None) -> Decision:
        """Ask about ``key``; answer with ``answer`` if a request shows up (None: it must not)."""
        before = self.asked()
        task = asyncio.create_task(self.queue.ask(chat, "tool", f"Run {key}?", {}, grant_key=key))
        for _ in range(100):
            await asyncio.sleep(0)
            if task.done() or self.queue.pending():
                break
        if answer is None:
            assert task.done(), "a request was made though a grant should answer it"
            assert self.asked() == before
            return task.result()
        [request] = self.queue.pending()
        assert self.queue.decide(request.id, answer)
        return await asyncio.wait_for(task, 1)


def stored(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["grants"]


# persisted by decisions


async def test_a_chat_grant_outlives_its_queue_but_only_in_its_chat(path: Path) -> None:
    first = Queue(path)
    decided = await first.ask("c_1", "tool:run_tests", Decision(True, "chat", reason="ok for now"))
    assert decided.allowed

    [entry] = stored(path)
    assert entry["key"] == "tool:run_tests" and entry["scope"] == "chat" and entry["chat"] == "c_1"
    assert entry["reason"] == "ok for now" and entry["id"] == grant_id(
        "chat", "c_1", "tool:run_tests"
    )

    later = Queue(path)  # a new process: nothing in memory, the same file
    again = await later.ask("c_1", "tool:run_tests", None)
    assert again.allowed and again.reason == "allowed by an earlier decision"
    other = await later.ask("c_2", "tool:run_tests", Decision(False, reason="no"))
    assert not other.allowed and later.asked() == 1


async def test_a_lifetime_grant_answers_in_every_chat(path: Path) -> None:
    await Queue(path).ask("c_1", "delegate:Assistant->Coder", Decision(True, "lifetime"))
    [entry] = stored(path)
    assert entry["scope"] == "lifetime" and entry["chat"] is None

    later = Queue(path)
    for chat in ("c_1", "c_2", "c_new"):
        assert (await later.ask(chat, "delegate:Assistant->Coder", None)).allowed
    # another key is still asked
    assert not (await later.ask("c_1", "tool:run_tests", Decision(False))).allowed


async def test_once_and_denials_are_not_kept(path: Path) -> None:
    first = Queue(path)
    await first.ask("c_1", "tool:run_tests", Decision(True, "once"))
    await first.ask("c_1", "tool:rm", Decision(False, "lifetime"))
    assert not path.exists()
    # asked again, in the same queue too
    await first.ask("c_1", "tool:run_tests", Decision(True))
    assert first.asked() == 3


async def test_without_a_store_grants_stay_in_memory(path: Path) -> None:
    memory = Queue(None)
    await memory.ask("c_1", "tool:run_tests", Decision(True, "chat"))
    assert (await memory.ask("c_1", "tool:run_tests", None)).allowed
    assert not path.exists() and memory.queue.chat_grants == {("c_1", "tool:run_tests")}


def test_the_file_is_private_and_adding_twice_keeps_the_first(path: Path) -> None:
    store = GrantStore(path)
    first = store.add(Grant("tool:run_tests", "chat", "c_1", created=100.0, reason="first"))
    again = store.add(Grant("tool:run_tests", "chat", "c_1", created=200.0, reason="second"))
    assert again == first and again.reason == "first"
    assert [g.reason for g in GrantStore(path).load()] == ["first"]
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_ids_are_stable_and_distinguish_scope_chat_and_key() -> None:
    ids = {
        Grant("tool:run_tests", "chat", "c_1").id,
        Grant("tool:run_tests", "chat", "c_2").id,
        Grant("tool:run_tests", "lifetime", None).id,
        Grant("tool:ls", "chat", "c_1").id,
    }
    assert len(ids) == 4
    assert Grant("tool:run_tests", "chat", "c_1", created=1).id == grant_id(
        "chat", "c_1", "tool:run_tests"
    )
    assert all(i.startswith("g_") and len(i) == 10 for i in ids)
    with pytest.raises(ValueError):
        Grant("tool:run_tests", "chat", None)


# revoking


async def test_a_revoked_grant_is_asked_again_even_by_a_running_queue(path: Path) -> None:
    running = Queue(path)
    await running.ask("c_1", "tool:run_tests", Decision(True, "chat"))
    assert (await running.ask("c_1", "tool:run_tests", None)).allowed

    revoked = GrantStore(path).revoke(grant_id("chat", "c_1", "tool:run_tests")[:6])  # a prefix
    assert revoked.key == "tool:run_tests" and revoked.chat == "c_1"
    assert stored(path) == []

    again = await running.ask("c_1", "tool:run_tests", Decision(False, reason="not now"))
    assert not again.allowed and running.asked() == 2


def test_revoke_names_the_choices_for_unknown_and_ambiguous_ids(path: Path) -> None:
    store = GrantStore(path)
    with pytest.raises(GrantNotFound, match="there are no grants"):
        store.revoke("g_00")
    grants = [store.add(Grant(f"tool:t{n}", "lifetime", None)) for n in range(40)]
    with pytest.raises(GrantNotFound) as unknown:
        store.revoke("g_zz")
    assert all(g.id in str(unknown.value) for g in grants)
    with pytest.raises(GrantNotFound, match="more than one") as ambiguous:
        store.revoke("g_")
    assert isinstance(ambiguous.value, GrantStoreError)
    assert len(GrantStore(path).load()) == 40  # nothing was removed


# two writers


def test_two_stores_adding_at_once_keep_every_grant(path: Path) -> None:
    stores = [GrantStore(path), GrantStore(path)]
    start = threading.Barrier(2)

    def add_many(index: int) -> None:
        start.wait()
        for n in range(30):
            stores[index].add(Grant(f"tool:w{index}_{n}", "chat", f"c_{index}"))

    threads = [threading.Thread(target=add_many, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)

    keys = {g.key for g in GrantStore(path).load()}
    assert keys == {f"tool:w{i}_{n}" for i in range(2) for n in range(30)}
    # each store also sees what the other added
    assert stores[0].allows("c_1", "tool:w1_29") and stores[1].allows("c_0", "tool:w0_0")


def test_two_processes_adding_at_once_keep_every_grant(path: Path) -> None:
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from tuibot.approvals.grants import Grant, GrantStore\n"
        "store = GrantStore(Path(sys.argv[1]))\n"
        "while time.time() < float(sys.argv[3]): pass\n"
        "for n in range(25):\n"
        "    store.add(Grant(f'tool:p{sys.argv[2]}_{n}', 'lifetime', None))\n"
    )
    start = str(time.time() + 1.5)
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(path), str(i), start]) for i in range(2)
    ]
    assert [worker.wait(30) for worker in workers] == [0, 0]
    keys = {g.key for g in GrantStore(path).load()}
    assert keys == {f"tool:p{i}_{n}" for i in range(2) for n in range(25)}


# bad files


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[]", "expected a JSON object"),
        ('{"grants": {}}', '"grants" to be a list'),
        ('{"version": 2, "grants": []}', "unsupported version"),
        ('{"grants": [1]}', "grant 0 is not a JSON object"),
        ('{"grants": [{"key": "tool:x", "scope": "chat", "chat": null, "created": 1}]}', "chat"),
        ('{"grants": [{"key": "tool:x", "scope": "forever", "created": 1}]}', "scope"),
        ('{"grants": [{"key": "tool:x", "scope": "lifetime", "created": "now"}]}', "created"),
    ],
)
def test_a_malformed_file_is_an_error_naming_it_and_is_left_alone(
    path: Path, content: str, reason: str
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    store = GrantStore(path)
    with pytest.raises(GrantStoreError) as error:
        store.load()
    assert str(path) in str(error.value) and reason in str(error.value)
    assert error.value.path == path
    with pytest.raises(GrantStoreError):
        store.add(Grant("tool:run_tests", "lifetime", None))
    with pytest.raises(GrantStoreError):
        store.allows("c_1", "tool:x")
    assert path.read_text(encoding="utf-8") == content


async def test_a_queue_on_a_broken_file_asks_and_says_why(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{broken", encoding="utf-8")
    queue = Queue(path)  # constructing reads nothing
    assert queue.events == []

    decided = await queue.ask("c_1", "tool:run_tests", Decision(True, "chat"))
    assert decided.allowed and queue.asked() == 1
    read_error, save_error = queue.notices()
    assert read_error.level == "error" and str(path) in read_error.message
    assert save_error.level == "error" and "this run only" in save_error.message
    assert path.read_text(encoding="utf-8") == "{broken"
    # the grant holds in memory for this run, without asking or re-reporting
    assert (await queue.ask("c_1", "tool:run_tests", None)).allowed
    assert len(queue.notices()) == 2


async def test_a_full_disk_still_delivers_the_decision(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    GrantStore(path).add(Grant("tool:ls", "lifetime", None, reason="earlier"))
    before = path.read_bytes()
    queue = Queue(path)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    decided = await queue.ask("c_1", "tool:run_tests", Decision(True, "chat", reason="yes"))
    monkeypatch.undo()

    assert decided.allowed and decided.reason == "yes"
    [notice] = queue.notices()
    assert notice.chat == "c_1" and notice.level == "error"
    assert "No space left on device" in notice.message and str(path) in notice.message
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [".grants.json.lock", "grants.json"]
    assert queue.store is not None
    assert [g.key for g in queue.store.all()] == ["tool:ls"]  # memory is as the disk is
    assert (await queue.ask("c_1", "tool:run_tests", None)).allowed  # this run keeps it
    assert not (await Queue(path).ask("c_1", "tool:run_tests", Decision(False))).allowed


def test_a_full_disk_raises_from_the_store(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GrantStore(path)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(GrantStoreError) as error:
        store.add(Grant("tool:run_tests", "lifetime", None))
    monkeypatch.undo()
    assert error.value.errno == errno.ENOSPC and str(path) in str(error.value)
    assert not path.exists() and store.all() == []


async def test_the_engine_starts_on_a_broken_file_and_keeps_grants_in_its_data_home(
    path: Path,
) -> None:
    from engine_helpers import make_engine

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[1,", encoding="utf-8")
    engine = make_engine("http://127.0.0.1:9/v1")
    notices: list[Event] = []
    engine.events.listen(notices.append)
    task = asyncio.create_task(engine.approvals.ask("c_1", "tool", "Run?", {}, grant_key="tool:x"))
    while not engine.approvals.pending():
        await asyncio.sleep(0.01)
    [notice] = [e for e in notices if isinstance(e, Notice)]
    assert str(path) in notice.message
    engine.decide(engine.approvals.pending()[0].id, Decision(True, "lifetime"))
    assert (await task).allowed

    path.unlink()  # fixed by the user: the next decision is kept on disk
    task = asyncio.create_task(engine.approvals.ask("c_1", "tool", "Run?", {}, grant_key="tool:y"))
    while not engine.approvals.pending():
        await asyncio.sleep(0.01)
    engine.decide(engine.approvals.pending()[0].id, Decision(True, "lifetime"))
    assert (await task).allowed
    assert [entry["key"] for entry in stored(path)] == ["tool:y"]
    await engine.close()


# the command line


def test_grants_list_with_none(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grants"]) == 0
    assert capsys.readouterr().out == "No grants.\n"
    assert main(["grants", "list", "--json"]) == 0
    assert capsys.readouterr().out == ""


def test_grants_list_shows_every_field(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = GrantStore(path)
    chat = store.add(Grant("tool:run_tests", "chat", "c_1", created=1767000000.0, reason="for c_1"))
    life = store.add(Grant("delegate:A->B", "lifetime", None, created=1767000600.0))

    assert main(["grants", "list"]) == 0
    header, first, second = capsys.readouterr().out.splitlines()
    assert header.split() == ["ID", "SCOPE", "CHAT", "CREATED", "REASON", "ALLOWS"]
    when = datetime.fromtimestamp(1767000000.0).strftime("%Y-%m-%d %H:%M")
    allows = ["every", "call", "of", "the", "tool", "run_tests"]
    assert first.split() == [chat.id, "chat", "c_1", *when.split(), "for", "c_1", *allows]
    assert second.split()[:3] == [life.id, "lifetime", "-"]
    assert second.endswith("giving work A->B")

    assert main(["grants", "list", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [{k: v for k, v in row.items() if k != "covers"} for row in rows] == [
        chat.as_dict(),
        life.as_dict(),
    ]
    assert rows[1] == {
        "covers": "giving work A->B",
        "id": life.id,
        "key": "delegate:A->B",
        "scope": "lifetime",
        "chat": None,
        "created": 1767000600.0,
        "reason": "",
    }


def test_grants_list_shows_each_grants_scope_and_an_old_exec_grant_allows_nothing(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a person reads before trusting a kept grant: exactly what it lets run."""
    store = GrantStore(path)
    keys = {
        "exec:git status --short": "running exactly: git status --short",
        "exec-prefix:npm test": "running commands that start with: npm test",
        "write-dir:/w/docs": "writing files under /w/docs/",
        "read-secret:/w/.env": "reading the secret-looking file /w/.env",
        "net:docs.example.org": "plain requests (GET/HEAD, no body or headers) to docs.example.org",
        "tool:exec": "nothing: a tool-wide exec grant from an older tuibot: exec grants now "
        "cover one command or a prefix you chose, so this one is not honoured",
        "exec:ls\x1b[2K": "running exactly: ls\\x1b[2K",  # planted by hand: still spelled out
    }
    for key in keys:
        store.add(Grant(key, "lifetime", None, created=1767000000.0))

    assert main(["grants", "list"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert "\x1b[" not in "".join(rows)
    for allows in keys.values():
        assert any(row.endswith(allows) for row in rows), (allows, rows)


def test_grants_revoke(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = GrantStore(path)
    kept = store.add(Grant("tool:ls", "lifetime", None))
    gone = store.add(Grant("tool:run_tests", "chat", "c_1"))

    assert main(["grants", "revoke", gone.id]) == 0
    out = capsys.readouterr()
    assert (
        out.out == (f"revoked {gone.id}: every call of the tool run_tests in chat c_1\n")
        and out.err == ""
    )
    assert [g.id for g in GrantStore(path).load()] == [kept.id]

    assert main(["grants", "revoke", gone.id]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.splitlines()) == 1
    assert out.err.startswith("tuibot: ") and gone.id in out.err and kept.id in out.err


def test_grants_cli_on_a_broken_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("nope", encoding="utf-8")
    assert main(["grants", "list"]) == 1
    assert main(["grants", "revoke", "g_1"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(str(path) in line for line in err)
    assert path.read_text(encoding="utf-8") == "nope"
