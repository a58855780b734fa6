"""Bot memory: the store on real files, the three tools, and the memory in the prompt."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from engine_helpers import Recorder, ask, make_engine, sent_messages
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer

from tuibot.events import Notice, ToolFinished
from tuibot.memory import MAX_BYTES, MemoryStore, MemoryStoreError, memory_path
from tuibot.system import secrets
from tuibot.system.paths import bundled_dir
from tuibot.toolkit import ToolRegistry, load_tool_folder


def test_paths_are_file_safe_and_distinct(tmp_path: Path) -> None:
    assert memory_path(tmp_path, "Assistant") == tmp_path / "Assistant.md"
    odd = [memory_path(tmp_path, name) for name in ("a/b", "a_b", "../x", "a b", "ä")]
    assert all(path.parent == tmp_path for path in odd)
    assert len(set(odd)) == len(odd)


def test_save_appends_dated_entries_and_search_finds_them(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m" / "bot.md")
    assert store.read() == "" and store.search("tea") == []
    store.save("User prefers green tea.", now=0)
    store.save("Project lives in ~/code/trips; tests run with pytest.", now=86400)
    text_now = store.read()
    assert text_now.count("## ") == 2 and "green tea" in text_now
    assert oct((tmp_path / "m" / "bot.md").stat().st_mode & 0o777) == "0o600"
    [hit] = store.search("PYTEST trips")
    assert "~/code/trips" in hit.text and hit.line == 4
    assert store.search("tea trips") == []  # every word must be in one entry
    assert [e.text for e in store.search("user")] == ["User prefers green tea."]


def test_secrets_are_masked_before_they_reach_the_file(tmp_path: Path) -> None:
    key = "sk-test-" + "q" * 32
    secrets.remember_secret(key)
    store = MemoryStore(tmp_path / "bot.md")
    store.save(f"the key is {key}")
    assert key not in (tmp_path / "bot.md").read_text()


def test_the_cap_refuses_a_save_and_keeps_the_file(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "bot.md")
    store.save("x" * (MAX_BYTES - 200))
    before = store.read()
    with pytest.raises(MemoryStoreError, match="over its 64 KB cap"):
        store.save("y" * 500)
    assert store.read() == before
    with pytest.raises(MemoryStoreError, match="empty"):
        store.save("   ")


def test_a_full_disk_leaves_the_memory_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore(tmp_path / "mem" / "bot.md")
    store.save("first note")
    before = store.read()

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(MemoryStoreError, match=r"No space left on device.*unchanged"):
        store.save("second note")
    monkeypatch.undo()
    assert store.read() == before
    assert [p.name for p in (tmp_path / "mem").iterdir()] == ["bot.md"]  # no temp file left behind


def test_replace_refuses_when_the_memory_changed(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "bot.md")
    store.save("one")
    seen = store.read()
    store.save("two, saved meanwhile")
    with pytest.raises(MemoryStoreError, match="changed while"):
        store.replace("summary", expected=seen)
    assert "two, saved meanwhile" in store.read()
    store.replace("## Summary\n- one\n- two", expected=store.read())
    assert store.read() == "## Summary\n- one\n- two\n"


async def test_tools_refuse_outside_a_turn() -> None:
    specs, errors = load_tool_folder(bundled_dir("tools"), "bundled")
    assert errors == []
    registry = ToolRegistry()
    for spec in specs:
        registry.register(spec)
    result = await registry.execute("memory_read", {})
    assert not result.ok and "only available inside a chat turn" in result.output


async def test_the_model_saves_then_searches_and_the_next_turn_sees_memory(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(
        tool_calls([("memory_save", json.dumps({"note": "User's cat is called Miso."}))]),
        tool_calls([("memory_search", json.dumps({"query": "cat miso"}))]),
        text("Noted."),
        text("Miso!"),
    )
    chat = engine.new_chat().id
    await ask(engine, chat, "remember my cat's name: Miso")
    saved, found = seen.of(ToolFinished)
    assert saved.ok and saved.output.startswith("Saved to memory under ")
    assert found.ok and "User's cat is called Miso." in found.output
    path = hermetic / "data" / "memory" / "Assistant.md"
    assert "Miso" in path.read_text()

    other = engine.new_chat().id  # memory is the bot's, not the chat's
    await ask(engine, other, "what is my cat called?")
    system = sent_messages(server, -1)[0]["content"]
    assert "# Memory" in system and "User's cat is called Miso." in system
    await engine.close()


async def test_an_unreadable_memory_is_a_warning_not_a_failed_turn(
    server: ScriptedServer, hermetic: Path
) -> None:
    folder = hermetic / "data" / "memory"
    folder.mkdir(parents=True)
    (folder / "Assistant.md").mkdir()  # a folder where the file should be: read fails
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(text("fine"))
    outcome = await ask(engine, engine.new_chat().id, "hi")
    assert outcome.status == "completed"
    warnings = [n.message for n in seen.of(Notice) if n.level == "warning"]
    assert any(m.startswith("cannot read memory") for m in warnings)
    await engine.close()
