"""A long chat's last messages, read from the end of its file (what opening it shows first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tuibot.store import chat_tail
from tuibot.store.chats import ChatStore
from tuibot.tui.widgets.history_blocks import tail_start


@pytest.fixture
def store(tmp_path: Path) -> ChatStore:
    return ChatStore(tmp_path / "chats")


def _turn(n: int, size: int = 200) -> list[dict[str, Any]]:
    call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return [
        {"role": "user", "content": f"Question {n}? " + "é" * size},  # multi-byte text
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{n}", "content": "done"},
        {"role": "assistant", "content": f"Answer {n}.\n\n" + "word " * size},
    ]


def _chat(store: ChatStore, turns: int, size: int = 200) -> str:
    chat = store.create(title="long").id
    store.append(chat, [m for n in range(turns) for m in _turn(n, size)])
    return chat


def test_the_tail_is_the_end_of_what_a_full_load_reads(store: ChatStore) -> None:
    chat = _chat(store, 400)
    call = {"id": "late", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    store.append(chat, [{"role": "assistant", "content": None, "tool_calls": [call]}])
    tail, whole = store.load_tail(chat), store.load(chat, readonly=True)
    assert tail is not None and whole.repaired == tail.repaired == 1, "the unanswered call"
    count = len(tail.messages)
    assert chat_tail.TAIL_MESSAGES <= count < len(whole.messages) // 4
    assert tail.messages == whole.messages[-count:]
    assert tail.meta == whole.meta and tail.problems == []
    assert tail_start(whole.messages, tail.messages) == len(whole.messages) - count


def test_a_short_chat_or_a_bad_line_near_the_end_is_loaded_whole(store: ChatStore) -> None:
    assert store.load_tail(_chat(store, 5)) is None, "the window holds the whole file"
    chat = _chat(store, 400)
    with store.path(chat).open("ab") as handle:
        handle.write(b'{"type": "message", "message": {"role": "user", "content": "tor')
    assert store.load_tail(chat) is None, "the full load reports the torn line"


def test_the_window_grows_until_it_holds_enough_messages(store: ChatStore) -> None:
    chat = _chat(store, 60, size=3000)  # ~12 KiB a turn: 128 KiB holds ~40 messages
    tail = store.load_tail(chat)
    assert tail is not None and len(tail.messages) >= chat_tail.TAIL_MESSAGES
    assert tail.messages == store.load(chat, readonly=True).messages[-len(tail.messages) :]
    huge = _chat(store, 12, size=60_000)  # last messages past the largest window
    assert store.load_tail(huge) is None


def test_the_tail_is_found_before_messages_added_since_and_not_after_a_rewrite() -> None:
    messages = [{"role": "user", "content": str(n)} for n in range(10)]
    tail = messages[6:9]
    assert tail_start(messages, tail) == 6, "a turn appended one more meanwhile"
    assert tail_start([*messages[:8], {"role": "user", "content": "x"}], tail) is None
    assert tail_start(messages, []) is None
