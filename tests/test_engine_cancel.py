"""Stopping work at awkward moments: nothing hangs, nothing is left half-told."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine_helpers import Recorder, ask, make_engine, sent_messages, write_tool
from scripted_server import ScriptedServer, raw, text, tool_calls

from tuibot.approvals import Decision
from tuibot.events import ApprovalDecided, ApprovalRequested, ToolFinished, ToolStarted
from tuibot.system import secrets

SLEEPER = '''
import time
from tuibot import tool

@tool
def sleeper(seconds: float) -> str:
    """Sleep."""
    time.sleep(seconds)
    return "awake"

@tool(confirm=True)
def guarded(path: str) -> str:
    """Needs a yes."""
    return "ran"
'''


async def test_closing_settles_queued_turns(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(text("slow", pieces=10, delay=0.2))
    chat = engine.new_chat().id
    futures = [await engine.send(chat, prompt) for prompt in ("one", "two", "three")]
    await asyncio.to_thread(server.wait_for_requests, 1)

    await engine.close()

    outcomes = await asyncio.wait_for(asyncio.gather(*futures), 5)
    assert [o.status for o in outcomes] == ["cancelled"] * 3
    assert engine.queued(chat) == []


async def test_cancel_mid_tool_gives_the_call_its_result(
    server: ScriptedServer, hermetic: Path
) -> None:
    write_tool(hermetic / "home", "sleeper", SLEEPER)
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("sleeper", '{"seconds": 5}')]))
    chat = engine.new_chat().id

    pending = await engine.send(chat, "nap")
    while not seen.of(ToolStarted):
        await asyncio.sleep(0.02)
    engine.cancel(chat)
    outcome = await asyncio.wait_for(pending, 3)

    assert outcome.status == "cancelled"
    [finished] = seen.of(ToolFinished)
    assert not finished.ok and "interrupted" in finished.output
    last = json.loads(engine.chats.path(chat).read_text().splitlines()[-1])["message"]
    assert last["role"] == "tool" and last["status"] == "interrupted"
    await engine.close()


async def test_cancel_during_approval_withdraws_the_request(
    server: ScriptedServer, hermetic: Path
) -> None:
    write_tool(hermetic / "home", "sleeper", SLEEPER)
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("guarded", '{"path": "x"}')]))
    chat = engine.new_chat().id

    pending = await engine.send(chat, "do it")
    while not seen.of(ApprovalRequested):
        await asyncio.sleep(0.02)
    engine.cancel(chat)
    await asyncio.wait_for(pending, 3)

    [decided] = seen.of(ApprovalDecided)
    assert not decided.allowed and engine.approvals.pending() == []
    await engine.close()


async def test_invalid_calls_are_refused_without_asking(
    server: ScriptedServer, hermetic: Path
) -> None:
    write_tool(hermetic / "home", "sleeper", SLEEPER)
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("guarded", '{"pth": "x"}')]), text("oops"))

    await ask(engine, engine.new_chat().id, "do it")

    assert seen.of(ApprovalRequested) == []
    assert "unknown argument 'pth'" in seen.of(ToolFinished)[0].output
    await engine.close()


async def test_generated_call_ids_never_repeat_within_a_turn(server: ScriptedServer) -> None:
    engine = make_engine(server)
    call = {"index": 0, "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}
    finish = {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
    for _ in range(2):  # a server that sends no ids at all
        server.enqueue(raw([{"tool_calls": [call]}, finish]))
    server.enqueue(text("done"))

    await ask(engine, engine.new_chat().id, "list twice")

    ids = [c["id"] for m in sent_messages(server) if m.get("tool_calls") for c in m["tool_calls"]]
    assert len(ids) == 2 and len(set(ids)) == 2
    await engine.close()


async def test_a_secret_read_by_a_tool_is_masked(server: ScriptedServer, hermetic: Path) -> None:
    canary = "sk-canary-tool-output-0123456789"
    secrets.remember_secret(canary)
    (hermetic / "work" / ".env").write_text(f"KEY={canary}\n")
    engine = make_engine(server)
    seen = Recorder(engine)
    engine.events.listen(  # reading a secret-looking file asks: the person allows it once
        lambda event: (
            engine.decide(event.request_id, Decision(True, reason="once"))
            if isinstance(event, ApprovalRequested)
            else None
        )
    )
    server.enqueue(tool_calls([("read_file", '{"path": ".env"}')]), text("ok"))
    chat = engine.new_chat().id

    await ask(engine, chat, "read .env")
    assert len(seen.of(ApprovalRequested)) == 1

    assert canary not in seen.of(ToolFinished)[0].output
    assert canary not in engine.chats.path(chat).read_text()
    assert canary not in str(sent_messages(server))
    await engine.close()


WHERE_RULE = '''
from tuibot import resolve_in_workspace, tool

def ask_in_workspace(arguments):
    return "inside?" if resolve_in_workspace("marker.txt").exists() else False

@tool(confirm=ask_in_workspace)
def touch(name: str) -> str:
    """Touch."""
    return "touched"
'''


async def test_confirmation_rules_see_the_configured_workspace(
    server: ScriptedServer, hermetic: Path
) -> None:
    workspace = hermetic / "elsewhere"
    workspace.mkdir()
    (workspace / "marker.txt").write_text("x")  # only in the configured workspace, not cwd
    write_tool(hermetic / "home", "touch", WHERE_RULE)
    engine = make_engine(server, tools__workspace=str(workspace))
    seen = Recorder(engine)
    engine.events.listen(
        lambda e: (
            isinstance(e, ApprovalRequested)
            and engine.decide(e.request_id, Decision(False, reason="no"))
        )
    )
    server.enqueue(tool_calls([("touch", '{"name": "a"}')]), text("ok"))

    await ask(engine, engine.new_chat().id, "touch")

    assert len(seen.of(ApprovalRequested)) == 1
    await engine.close()
