"""ChatStore: one durable JSONL file per chat, repaired on load, cheap to list."""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tuibot.store.chats import (
    INTERRUPTED_RESULT,
    ChatNotFound,
    ChatStore,
    InvalidChatId,
)
from tuibot.store.jsonl import StorageError, sidecar_path


@pytest.fixture
def store(tmp_path: Path) -> ChatStore:
    return ChatStore(tmp_path / "chats")


@contextmanager
def full_disk() -> Iterator[None]:
    """Every file write fails with ENOSPC (the one thing these tests fake)."""

    def write(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "write", write)
        yield


def call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def asks(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def result(call_id: str, name: str, content: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def interrupted(call_id: str, name: str) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "name": name,
        "content": INTERRUPTED_RESULT,
        "status": "interrupted",
    }


def lines(store: ChatStore, chat_id: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in store.path(chat_id).read_text("utf-8").splitlines()]


def test_create_writes_a_header_line(store: ChatStore) -> None:
    parent = {"chat": "c_20260101T000000_abcd", "delegation": "dlg_1"}
    meta = store.create(kind="task", bot="Programmer", title="Fix it", parent=parent)
    assert re.fullmatch(r"c_\d{8}T\d{6}_[0-9a-f]{4}", meta.id)
    assert store.exists(meta.id)
    [header] = lines(store, meta.id)
    assert header == {
        "type": "chat",
        "id": meta.id,
        "kind": "task",
        "bot": "Programmer",
        "title": "Fix it",
        "created": meta.created,
        "parent": parent,
        "pinned": False,
    }


def test_a_pinned_chat_reads_back_pinned(store: ChatStore) -> None:
    pinned = store.create(bot="Coder", pinned=True)
    loose = store.create(bot="Coder")
    assert store.load(pinned.id).meta.pinned is True
    assert store.load(loose.id).meta.pinned is False
    assert {m.id: m.pinned for m in store.list()} == {pinned.id: True, loose.id: False}


def test_ids_are_unique_and_sort_by_creation(store: ChatStore) -> None:
    ids = [store.create().id for _ in range(30)]
    assert len(set(ids)) == 30
    assert sorted(ids, key=lambda i: i[:17]) == ids


@pytest.mark.parametrize(
    "bad", ["../x", "c_../../etc", "c_a/b", "c_a\\b", "c_x.corrupt", "x_123", "", "c_", "c_a\n"]
)
def test_bad_ids_never_touch_a_file(store: ChatStore, tmp_path: Path, bad: str) -> None:
    before = sorted(p for p in tmp_path.rglob("*"))
    assert not store.exists(bad)
    for action in (
        lambda: store.load(bad),
        lambda: store.append(bad, [{"role": "user", "content": "hi"}]),
        lambda: store.rewrite(bad, []),
        lambda: store.set_title(bad, "t"),
        lambda: store.delete(bad),
    ):
        with pytest.raises(InvalidChatId):
            action()
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_unknown_chat_is_not_found(store: ChatStore) -> None:
    with pytest.raises(ChatNotFound, match="no chat c_20260101T000000_0000"):
        store.load("c_20260101T000000_0000")
    with pytest.raises(ChatNotFound):
        store.append("c_20260101T000000_0000", [{"role": "user", "content": "hi"}])
    assert not (store.root / "c_20260101T000000_0000.jsonl").exists()


def test_resolve_by_prefix(store: ChatStore) -> None:
    for suffix in ("aaaa", "aabb", "ccdd"):
        (store.root).mkdir(exist_ok=True)
        (store.root / f"c_20261202T194501_{suffix}.jsonl").write_text("{}\n")
    assert store.resolve("c_20261202T194501_cc") == "c_20261202T194501_ccdd"
    assert store.resolve("20261202T194501_aab") == "c_20261202T194501_aabb"
    assert store.resolve("c_20261202T194501_aaaa") == "c_20261202T194501_aaaa"
    with pytest.raises(ChatNotFound, match="ambiguous") as caught:
        store.resolve("c_20261202T194501_aa")
    assert "c_20261202T194501_aaaa" in str(caught.value)
    assert "c_20261202T194501_aabb" in str(caught.value)
    with pytest.raises(ChatNotFound, match="no chat matches"):
        store.resolve("c_1999")
    with pytest.raises(InvalidChatId):
        store.resolve("../c_2026")


def test_round_trip_keeps_every_key(store: ChatStore) -> None:
    chat = store.create()
    messages = [
        {"role": "user", "content": "list files", "turn": "t1"},
        {
            **asks(call("call_1", "ls", '{"path": "."}')),
            "reasoning": "The user wants a listing.",
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "cost_micros": 0},
            "bot": "Assistant",
            "turn": "t1",
        },
        {**result("call_1", "ls", "a.txt\nb.txt"), "turn": "t1"},
        {"role": "assistant", "content": "Two files.", "status": "interrupted", "turn": "t1"},
    ]
    store.append(chat.id, messages[:1])
    store.append(chat.id, messages[1:])
    loaded = store.load(chat.id)
    assert loaded.messages == messages
    assert loaded.problems == [] and loaded.repaired == 0
    assert all(isinstance(r["ts"], float) for r in lines(store, chat.id)[1:])


def test_unicode_and_newlines_in_content(store: ChatStore) -> None:
    chat = store.create()
    text = "Grüße 🌍\nzweite Zeile\r\n\u2028done\x00"
    store.append(chat.id, [{"role": "user", "content": text}])
    assert store.load(chat.id).messages == [{"role": "user", "content": text}]
    assert len(store.path(chat.id).read_bytes().splitlines()) == 2


def test_a_bad_message_is_refused_before_anything_is_written(store: ChatStore) -> None:
    chat = store.create()
    before = store.path(chat.id).read_bytes()
    with pytest.raises(ValueError, match="message 1"):
        store.append(chat.id, [{"role": "user", "content": "ok"}, {"content": "no role"}])
    assert store.path(chat.id).read_bytes() == before


def test_title_comes_from_the_first_user_message(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "system", "content": "be brief"}])
    assert store.list()[0].title == ""
    long_line = "word " * 30
    store.append(chat.id, [{"role": "user", "content": f"\n  {long_line}\nsecond line"}])
    store.append(chat.id, [{"role": "user", "content": "a later message"}])
    title = ChatStore(store.root).list()[0].title
    assert len(title) == 60 and title.endswith("…") and title.startswith("word word")
    assert lines(store, chat.id)[0]["title"] == title
    assert len(store.load(chat.id).messages) == 3


def test_title_from_content_parts_and_explicit_titles_stay(store: ChatStore) -> None:
    parts = [{"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "What?"}]
    untitled = store.create()
    store.append(untitled.id, [{"role": "user", "content": parts}])
    titled = store.create(title="Mine")
    store.append(titled.id, [{"role": "user", "content": "Something else"}])
    titles = {m.id: m.title for m in store.list()}
    assert titles == {untitled.id: "What?", titled.id: "Mine"}
    store.set_title(titled.id, "  Renamed\nignored  ")
    assert {m.id: m.title for m in store.list()}[titled.id] == "Renamed"
    assert store.load(titled.id).messages == [{"role": "user", "content": "Something else"}]


def test_list_is_newest_first_and_skips_other_files(store: ChatStore) -> None:
    first, second, third = (store.create(title=t) for t in ("one", "two", "three"))
    for chat, mtime in ((first, 3000), (second, 1000), (third, 2000)):
        os.utime(store.path(chat.id), (mtime, mtime))
    (store.root / "notes.txt").write_text("not a chat")
    (store.root / f".{first.id}.jsonl.x.tmp").write_text("temp")
    sidecar_path(store.path(first.id)).write_text('{"line": 2}\n')
    listed = store.list()
    assert [m.title for m in listed] == ["one", "three", "two"]
    assert [m.updated for m in listed] == [3000, 2000, 1000]


def test_list_reads_only_the_header(store: ChatStore) -> None:
    chat = store.create(title="Head only")
    path = store.path(chat.id)
    with open(path, "ab") as handle:
        handle.write(b"garbage that a full read would set aside\n" + b"x" * 100_000)
    before = path.read_bytes()
    [meta] = store.list()
    assert meta.title == "Head only"
    assert path.read_bytes() == before
    assert not sidecar_path(path).exists()


def test_empty_store_lists_nothing(store: ChatStore) -> None:
    assert store.list() == []


def test_torn_line_is_set_aside_and_the_next_append_is_clean(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "hi"}])
    path = store.path(chat.id)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message","ts":1.0,"message":{"role":"assistant","content":"Hel')
    loaded = store.load(chat.id)
    assert loaded.messages == [{"role": "user", "content": "hi"}]
    assert [p.line for p in loaded.problems] == [3]
    store.append(chat.id, [{"role": "assistant", "content": "Hello again"}])
    again = store.load(chat.id)
    assert again.problems == []
    assert again.messages[-1] == {"role": "assistant", "content": "Hello again"}
    kept = json.loads(sidecar_path(path).read_text("utf-8"))
    assert kept["text"].endswith('"content":"Hel')


def test_append_to_a_torn_file_without_loading_first(store: ChatStore) -> None:
    chat = store.create()
    with open(store.path(chat.id), "ab") as handle:
        handle.write(b'{"type":"mess')
    store.append(chat.id, [{"role": "user", "content": "after the crash"}])
    loaded = store.load(chat.id)
    assert loaded.messages == [{"role": "user", "content": "after the crash"}]
    assert [p.text for p in loaded.problems] == ['{"type":"mess']


def test_bad_records_are_problems_not_crashes(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "one"}])
    path = store.path(chat.id)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message","ts":1,"message":{"content":"no role"}}\n')
        handle.write(b'{"type":"message","ts":1,"message":"not an object"}\n')
        handle.write(b'{"type":"surprise"}\n')
        handle.write(b"\x00\x00\x00\n")
        handle.write(b'{"type":"message","ts":2,"message":{"role":"user","content":"two"}}\n')
    loaded = store.load(chat.id)
    assert [m["content"] for m in loaded.messages] == ["one", "two"]
    assert [p.line for p in loaded.problems] == [3, 4, 5, 6]
    assert 'without a "role"' in loaded.problems[0].reason
    assert len(sidecar_path(path).read_text("utf-8").splitlines()) == 4
    assert store.load(chat.id).problems == []


def test_a_lost_header_is_rebuilt(store: ChatStore) -> None:
    chat = store.create(kind="direct", title="x")
    store.append(chat.id, [{"role": "user", "content": "still here"}])
    path = store.path(chat.id)
    data = path.read_bytes()
    path.write_bytes(b"{broken header\n" + data[data.index(b"\n") + 1 :])
    loaded = store.load(chat.id)
    assert loaded.messages == [{"role": "user", "content": "still here"}]
    assert {p.line for p in loaded.problems} == {0, 1}
    assert loaded.meta.id == chat.id and int(loaded.meta.created) == int(chat.created)
    assert lines(store, chat.id)[0]["type"] == "chat"
    assert store.load(chat.id).problems == []


def test_loading_twice_is_stable(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "go"}, asks(call("a", "ls"))])
    with open(store.path(chat.id), "ab") as handle:
        handle.write(b"torn")
    first = store.load(chat.id)
    on_disk = store.path(chat.id).read_bytes()
    second = store.load(chat.id)
    assert (first.repaired, len(first.problems)) == (1, 1)
    assert (second.repaired, second.problems) == (0, [])
    assert second.messages == first.messages
    assert store.path(chat.id).read_bytes() == on_disk


def test_one_trailing_call_without_a_result_is_repaired(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "go"}, asks(call("a", "read_file"))])
    loaded = store.load(chat.id)
    assert loaded.repaired == 1
    assert loaded.messages[-1] == interrupted("a", "read_file")
    assert lines(store, chat.id)[-1]["message"] == interrupted("a", "read_file")
    fresh = ChatStore(store.root).load(chat.id)
    assert fresh.repaired == 0 and fresh.messages == loaded.messages


def test_two_of_three_missing_go_after_the_existing_result(store: ChatStore) -> None:
    chat = store.create()
    turn = asks(call("a", "ls"), call("b", "cat"), call("c", "grep"))
    store.append(chat.id, [{"role": "user", "content": "go"}, turn, result("b", "cat")])
    loaded = store.load(chat.id)
    assert loaded.repaired == 2
    expected = [turn, result("b", "cat"), interrupted("a", "ls"), interrupted("c", "grep")]
    assert loaded.messages[1:] == expected
    assert [r["message"] for r in lines(store, chat.id)[2:]] == loaded.messages[1:]
    assert store.load(chat.id).repaired == 0


def test_a_repair_in_the_middle_rewrites_in_place(store: ChatStore) -> None:
    chat = store.create()
    history = [
        {"role": "user", "content": "go"},
        asks(call("a", "ls")),
        {"role": "user", "content": "hello?"},
        {"role": "assistant", "content": "Hi."},
    ]
    for message in history:
        store.append(chat.id, [message])
    stamps = [r["ts"] for r in lines(store, chat.id)[1:]]
    loaded = store.load(chat.id)
    assert loaded.repaired == 1
    assert loaded.messages == [*history[:2], interrupted("a", "ls"), *history[2:]]
    on_disk = lines(store, chat.id)[1:]
    assert [r["message"] for r in on_disk] == loaded.messages
    assert [r["ts"] for i, r in enumerate(on_disk) if i != 2] == stamps
    assert store.load(chat.id).repaired == 0


def test_readonly_load_repairs_in_memory_only(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "go"}, asks(call("a", "ls"))])
    with open(store.path(chat.id), "ab") as handle:
        handle.write(b"torn")
    before = store.path(chat.id).read_bytes()
    loaded = store.load(chat.id, readonly=True)
    assert loaded.repaired == 1 and len(loaded.problems) == 1
    assert store.path(chat.id).read_bytes() == before
    assert not sidecar_path(store.path(chat.id)).exists()


def test_rewrite_replaces_the_history_and_keeps_the_header(store: ChatStore) -> None:
    chat = store.create(kind="task", bot="Programmer", title="Keep me")
    store.append(chat.id, [{"role": "user", "content": f"m{i}"} for i in range(10)])
    summary = [{"role": "user", "content": "summary of m0..m9"}]
    store.rewrite(chat.id, summary)
    loaded = store.load(chat.id)
    assert loaded.messages == summary
    assert (loaded.meta.kind, loaded.meta.bot, loaded.meta.title) == (
        "task",
        "Programmer",
        "Keep me",
    )


def test_rewrite_sets_aside_bad_lines_instead_of_dropping_them(store: ChatStore) -> None:
    chat = store.create()
    with open(store.path(chat.id), "ab") as handle:
        handle.write(b"precious garbage\n")
    store.rewrite(chat.id, [{"role": "user", "content": "new"}])
    sidecar = sidecar_path(store.path(chat.id)).read_text("utf-8")
    assert "precious garbage" in sidecar


def test_rewrite_is_atomic(store: ChatStore, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "original"}])
    before = store.path(chat.id).read_bytes()

    def crash(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(StorageError, match=f"could not save chat {chat.id}"):
        store.rewrite(chat.id, [{"role": "user", "content": "replacement"}])
    monkeypatch.setattr(os, "replace", os.rename)
    assert store.path(chat.id).read_bytes() == before
    assert os.listdir(store.root) == [f"{chat.id}.jsonl"]
    assert store.load(chat.id).messages == [{"role": "user", "content": "original"}]


def test_full_disk_on_append_says_what_and_where(store: ChatStore) -> None:
    chat = store.create(title="t")
    store.append(chat.id, [{"role": "user", "content": "kept"}])
    path = store.path(chat.id)
    before = path.read_bytes()
    with full_disk(), pytest.raises(StorageError) as caught:
        store.append(chat.id, [{"role": "assistant", "content": "lost to a full disk"}])
    assert str(caught.value) == (
        f"could not save chat {chat.id} to {path}: No space left on device"
    )
    assert path.read_bytes() == before
    assert store.load(chat.id).messages == [{"role": "user", "content": "kept"}]


def test_full_disk_on_rewrite_and_on_create(store: ChatStore) -> None:
    chat = store.create(title="t")
    store.append(chat.id, [{"role": "user", "content": "kept"}])
    before = store.path(chat.id).read_bytes()
    with full_disk(), pytest.raises(StorageError, match="No space left on device"):
        store.rewrite(chat.id, [{"role": "user", "content": "new"}])
    with full_disk(), pytest.raises(StorageError, match="could not create chat c_"):
        store.create()
    assert store.path(chat.id).read_bytes() == before
    assert os.listdir(store.root) == [f"{chat.id}.jsonl"]
    assert store.load(chat.id).messages == [{"role": "user", "content": "kept"}]


def test_full_disk_during_a_repair_is_an_error_not_a_loss(store: ChatStore) -> None:
    chat = store.create()
    store.append(chat.id, [{"role": "user", "content": "go"}, asks(call("a", "ls"))])
    with open(store.path(chat.id), "ab") as handle:
        handle.write(b"torn")
    before = store.path(chat.id).read_bytes()
    with full_disk(), pytest.raises(StorageError, match=f"could not repair chat {chat.id}"):
        store.load(chat.id)
    assert store.path(chat.id).read_bytes() == before
    assert store.load(chat.id).repaired == 1


def test_delete_removes_the_chat_and_its_sidecar(store: ChatStore) -> None:
    chat = store.create()
    keep = store.create()
    sidecar_path(store.path(chat.id)).write_text('{"line": 1}\n')
    store.delete(chat.id)
    assert not store.exists(chat.id)
    assert os.listdir(store.root) == [f"{keep.id}.jsonl"]
    with pytest.raises(ChatNotFound):
        store.delete(chat.id)
