"""The cross-process turn lock, in the engine: two engines on one data folder.

Each engine opens its own lock file descriptors, so two engines in one test process
contend exactly as two processes do (``flock`` locks belong to open files). What the
app relies on: a turn on a chat another tuibot holds waits (with a notice) and can be
interrupted while it waits; a late notice from a process that does not hold the turn
goes in between turns, never inside one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine_helpers import Recorder, ask, make_engine, write_tool
from scripted_server import ScriptedServer, silent, text, tool_calls

from tuibot.events import ChatWaiting, ToolStarted
from tuibot.store.chat_lock import lock_path

NAPPER = '''
import time
from tuibot import tool

@tool
def napper(seconds: float) -> str:
    """Sleep."""
    time.sleep(seconds)
    return "awake"
'''


async def until(condition, timeout: float = 10) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def test_a_turn_waits_for_a_chat_another_engine_holds_and_can_be_interrupted(
    server: ScriptedServer,
) -> None:
    first, second = make_engine(server), make_engine(server)
    seen = Recorder(second)
    server.enqueue(silent(30))
    chat = first.new_chat().id
    held = await first.send(chat, "first")
    await asyncio.to_thread(server.wait_for_requests, 1)

    waiting = await second.send(chat, "second")
    await until(lambda: seen.of(ChatWaiting))
    assert second.busy(chat)
    second.cancel(chat)
    outcome = await asyncio.wait_for(waiting, 5)

    assert outcome.status == "cancelled"
    [notice] = seen.of(ChatWaiting)
    assert notice.level == "warning" and f"chat {chat} is in use" in notice.message
    assert "second" not in [m["content"] for m in first.chats.load(chat).messages]
    first.cancel(chat)
    await asyncio.wait_for(held, 5)
    await first.close()
    await second.close()


async def test_the_waiting_turn_runs_when_the_other_ends_and_sees_its_answer(
    server: ScriptedServer,
) -> None:
    first, second = make_engine(server), make_engine(server)
    server.enqueue(text("one", pieces=5, delay=0.1), text("two"))
    chat = first.new_chat().id
    held = await first.send(chat, "first")
    await asyncio.to_thread(server.wait_for_requests, 1)

    outcome = await ask(second, chat, "second")
    await held

    assert outcome.status == "completed"
    contents = [(m["role"], m["content"]) for m in second.chats.load(chat).messages]
    assert contents == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
        ("assistant", "two"),
    ]
    assert lock_path(first.chats.path(chat)).read_text() == ""  # released, holder cleared
    await first.close()
    await second.close()


async def test_a_late_notice_never_splits_another_engines_tool_call_from_its_result(
    server: ScriptedServer, hermetic: Path
) -> None:
    write_tool(hermetic / "home", "napper", NAPPER)
    first, noter = make_engine(server), make_engine(server)
    seen = Recorder(first)
    server.enqueue(tool_calls([("napper", '{"seconds": 1}')]), text("rested"))
    chat = first.new_chat().id
    held = await first.send(chat, "nap")
    await until(lambda: seen.of(ToolStarted))

    noter.note_in_history(chat, "[tuibot] a late result")
    await held
    await until(lambda: "[tuibot] a late result" in str(first.chats.load(chat).messages))

    roles = [m["role"] for m in first.chats.load(chat).messages]
    assert roles == ["user", "assistant", "tool", "assistant", "user"], roles
    assert first.chats.load(chat).repaired == 0
    await first.close()
    await noter.close()


async def test_a_late_notice_on_a_free_chat_is_stored_at_once(server: ScriptedServer) -> None:
    engine = make_engine(server)
    chat = engine.new_chat().id

    engine.note_in_history(chat, "[tuibot] done")

    assert [m["content"] for m in engine.chats.load(chat).messages] == ["[tuibot] done"]
    await engine.close()
