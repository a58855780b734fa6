"""``tuibot chats rename|delete|fork|export``, run through their argparse wiring.

The data folders are the hermetic ones ``conftest.py`` sets up, so ``delete`` builds a
real engine over them and its delegations are cancelled in the real journal.
"""

from __future__ import annotations

import argparse
import io
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tuibot.commands import chats
from tuibot.delegation.journal import DelegationJournal
from tuibot.delegation.records import Delegation, Limits, Parent
from tuibot.store.chats import ChatStore
from tuibot.system.paths import DataPaths


@pytest.fixture
def store() -> ChatStore:
    return ChatStore(DataPaths.default().chats)


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tuibot")
    chats.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["chats", *argv])
    args.config = None
    return int(args.handler(args))


def call(call_id: str, name: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def conversation(store: ChatStore, title: str = "Plans") -> str:
    chat = store.create(title=title)
    store.append(
        chat.id,
        [
            {"role": "user", "content": "First question"},
            {"role": "assistant", "content": "", "tool_calls": [call("a", "ls")]},
            {"role": "tool", "tool_call_id": "a", "name": "ls", "content": "x.txt\n```\nend"},
            {"role": "assistant", "content": "There is **x.txt**."},
            {"role": "user", "content": "Second question"},
            {"role": "assistant", "content": "Second answer"},
        ],
    )
    return chat.id


def test_rename_sets_the_title(store: ChatStore, capsys: pytest.CaptureFixture[str]) -> None:
    chat = conversation(store)
    assert run("rename", chat[:-2], "  New name\nsecond line ") == 0
    assert store.load(chat).meta.title == "New name"
    assert capsys.readouterr().out.strip() == f"{chat}  New name"
    assert run("rename", chat, "   ") == 2
    assert store.load(chat).meta.title == "New name"


def test_delete_without_a_terminal_needs_yes(
    store: ChatStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = conversation(store)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert run("delete", chat) == 2
    assert "--yes" in capsys.readouterr().err and store.exists(chat)


def test_delete_cancels_the_chats_delegations(store: ChatStore) -> None:
    chat = conversation(store)
    journal = DelegationJournal(DataPaths.default().delegations)
    record = Delegation.new(
        parent=Parent(chat, "t_1", "call_1"),
        giver_bot="Assistant",
        bot="Assistant",
        task="Look things up",
        reason="",
        limits=Limits(60_000, steps=10),
        now=time.time(),
    )
    journal.create(replace(record, status="running"))
    assert run("delete", chat, "--yes") == 0
    assert not store.exists(chat)
    again = DelegationJournal(DataPaths.default().delegations)
    again.load()
    assert again.get(record.id) is not None and again.get(record.id).status == "cancelled"  # type: ignore[union-attr]
    assert run("delete", chat, "--yes") == 1  # gone: not found


def test_fork_at_a_message_keeps_the_tool_round_whole(
    store: ChatStore, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = conversation(store)
    assert run("fork", chat, "--at", "2") == 0
    new_id, title = capsys.readouterr().out.strip().split("  ", 1)
    assert title == "Plans (fork)" and new_id != chat
    fork = store.load(new_id, readonly=True)
    assert [m["role"] for m in fork.messages] == ["user", "assistant", "tool"]
    assert fork.repaired == 0 and fork.meta.kind == "direct"
    assert len(store.load(chat).messages) == 6  # the original is untouched
    assert run("fork", chat) == 0
    whole = capsys.readouterr().out.split()[0]
    assert len(store.load(whole).messages) == 6
    assert run("fork", chat, "--at", "7") == 2
    assert "between 1 and 6" in capsys.readouterr().err


def test_export_writes_markdown(store: ChatStore, tmp_path: Path) -> None:
    chat = conversation(store)
    target = tmp_path / "plans.md"
    assert run("export", chat, "-o", str(target)) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Plans\n")
    assert "## You\n\nFirst question" in text and "There is **x.txt**." in text
    assert "````\nx.txt\n```\nend\n````" in text  # the output's fence cannot close early
    assert text.index("First question") < text.index("Second question")


def test_export_to_stdout(store: ChatStore, capsys: pytest.CaptureFixture[str]) -> None:
    chat = conversation(store)
    assert run("export", chat) == 0
    assert "Second answer" in capsys.readouterr().out
