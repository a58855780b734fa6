"""``tuibot chats list`` and ``tuibot chats show``, run through their argparse wiring."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from tuibot.commands import chats
from tuibot.store.chats import ChatStore
from tuibot.store.jsonl import sidecar_path


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cli-data"
    monkeypatch.setenv("TUIBOT_DATA", str(folder))
    monkeypatch.setenv("TUIBOT_HOME", str(tmp_path / "cli-home"))
    return folder


@pytest.fixture
def store(data: Path) -> ChatStore:
    return ChatStore(data / "chats")


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tuibot")
    chats.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["chats", *argv])
    args.config = None
    return args.handler(args)


def sample(store: ChatStore) -> str:
    chat = store.create(bot="Programmer")
    calls = [
        {"id": "a", "type": "function", "function": {"name": "ls", "arguments": '{"path": "."}'}},
        {"id": "b", "type": "function", "function": {"name": "cat", "arguments": "{}"}},
    ]
    listing = "\n".join(f"file{i}.txt" for i in range(20))
    asked = {
        "role": "assistant",
        "content": "Looking.",
        "reasoning": "Use ls.",
        "tool_calls": calls,
    }
    store.append(chat.id, [{"role": "user", "content": "Which files are here?\nThanks"}])
    store.append(
        chat.id, [asked, {"role": "tool", "tool_call_id": "a", "name": "ls", "content": listing}]
    )
    return chat.id


def test_list_when_empty(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("list") == 0
    assert capsys.readouterr().out == "no chats yet\n"


def test_list_shows_newest_first(store: ChatStore, capsys: pytest.CaptureFixture[str]) -> None:
    old = store.create(title="Old one")
    new = store.create(kind="task", bot="Programmer", title="New one")
    os.utime(store.path(old.id), (1_000_000, 1_000_000))
    assert run() == 0  # bare `tuibot chats` lists
    header, first, second = capsys.readouterr().out.splitlines()
    assert header.split() == ["ID", "KIND", "BOT", "UPDATED", "TITLE"]
    assert first.split()[:3] == [new.id, "task", "Programmer"]
    assert first.endswith("New one")
    assert second.startswith(old.id) and second.endswith("Old one")


def test_list_json(store: ChatStore, capsys: pytest.CaptureFixture[str]) -> None:
    chat = store.create(title="T")
    assert run("list", "--json") == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["id"] == chat.id and json.loads(line)["title"] == "T"


def test_show_prints_the_conversation(store: ChatStore, capsys: pytest.CaptureFixture[str]) -> None:
    chat_id = sample(store)
    assert run("show", chat_id[:-2]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert out.splitlines()[0] == "Which files are here?"
    assert "[user]\nWhich files are here?\nThanks\n" in out
    assert "(reasoning)\n  │ Use ls.\nLooking.\n" in out
    assert '→ ls({"path": "."})' in out and "→ cat({})" in out
    assert "  file4.txt\n  … (15 more lines)" in out and "file5.txt" not in out
    assert "[tool cat (interrupted)]" in out
    assert "1 tool call had no result" in captured.err


def test_show_reports_problems_and_changes_nothing(
    store: ChatStore, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_id = sample(store)
    path = store.path(chat_id)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message","ts":1,"message":{"ro')
    before = path.read_bytes()
    assert run("show", chat_id) == 0
    err = capsys.readouterr().err
    assert f"tuibot: warning: chat {chat_id}, line 5: incomplete last line" in err
    assert path.read_bytes() == before and not sidecar_path(path).exists()


def test_show_json_prints_raw_records(store: ChatStore, capsys: pytest.CaptureFixture[str]) -> None:
    chat_id = sample(store)
    assert run("show", "--json", chat_id) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["type"] == "chat" and records[0]["id"] == chat_id
    assert [r["message"]["role"] for r in records[1:]] == ["user", "assistant", "tool"]


def test_show_unknown_ambiguous_and_invalid(
    store: ChatStore, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = store.create(), store.create()
    assert run("show", "c_1999") == 1
    assert capsys.readouterr().err == "tuibot: no chat matches 'c_1999'\n"
    assert run("show", "c_") == 1
    err = capsys.readouterr().err
    assert err.startswith("tuibot: ") and "ambiguous" in err
    assert first.id in err and second.id in err
    assert run("show", "../etc/passwd") == 2
    assert capsys.readouterr().err.startswith("tuibot: invalid chat id")
