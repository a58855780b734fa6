"""Engine behaviour around turns: ordering, durability, cancel, approvals, commands, errors."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import socket
from pathlib import Path

import pytest
from engine_helpers import Recorder, ask, make_engine, sent_messages, write_tool
from scripted_server import ScriptedServer, error, silent, text, tool_calls

from tuibot.approvals import Decision
from tuibot.events import ApprovalRequested, CommandOutput, ToolFinished, TurnFinished

CONFIRM_TOOL = '''
from pathlib import Path
from tuibot import tool

@tool(confirm=True)
def launch(target: str) -> str:
    """Launch something irreversible."""
    Path("launched.txt").write_text(target)
    return f"launched {target}"
'''


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


async def test_user_message_is_durable_before_the_model_answers(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(text("slow answer", pieces=5, delay=0.2))
    chat = engine.new_chat().id

    pending = await engine.send(chat, "remember me")
    await asyncio.to_thread(server.wait_for_requests, 1)
    on_disk = engine.chats.path(chat).read_text()
    assert "remember me" in on_disk and "slow answer" not in on_disk
    await pending
    await engine.close()


async def test_one_turn_at_a_time_per_chat_in_order(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(text("first answer", pieces=4, delay=0.05), text("second answer"))
    chat = engine.new_chat().id

    first = await engine.send(chat, "one")
    second = await engine.send(chat, "two")
    assert engine.queued(chat) in (["one", "two"], ["two"])
    await asyncio.gather(first, second)

    contents = [m["content"] for m in engine.chats.load(chat).messages]
    assert contents == ["one", "first answer", "two", "second answer"]
    assert sent_messages(server, 1)[-3:][0]["content"] == "one"
    await engine.close()


async def test_many_chats_run_at_once(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(*(text("answer", pieces=5, delay=0.3) for _ in range(3)))
    chats = [engine.new_chat().id for _ in range(3)]

    futures = [await engine.send(chat, "go") for chat in chats]
    # All three requests reach the server while the first answer is still streaming.
    await asyncio.to_thread(server.wait_for_requests, 3)
    assert not any(future.done() for future in futures)
    outcomes = await asyncio.gather(*futures)

    assert all(isinstance(o, TurnFinished) and o.status == "completed" for o in outcomes)
    await engine.close()


async def test_cancel_keeps_the_partial_answer(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(text("a b c d e f g h i j", pieces=10, delay=0.2))
    chat = engine.new_chat().id

    pending = await engine.send(chat, "talk")
    while not any(getattr(e, "delta", "") for e in seen.events):
        await asyncio.sleep(0.02)
    assert engine.cancel(chat)
    outcome = await pending

    assert isinstance(outcome, TurnFinished) and outcome.status == "cancelled"
    last = engine.chats.load(chat).messages[-1]
    assert last["role"] == "assistant" and last["status"] == "interrupted"
    assert last["content"] and "j" not in last["content"]
    await engine.close()


async def test_dangling_tool_calls_are_repaired_before_the_request(
    server: ScriptedServer,
) -> None:
    engine = make_engine(server)
    chat = engine.new_chat().id
    call = {"id": "call_x", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}
    engine.chats.append(
        chat,
        [
            {"role": "user", "content": "list"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
        ],
    )
    server.enqueue(text("fine"))

    outcome = await ask(engine, chat, "again")

    assert outcome.status == "completed"
    sent = sent_messages(server)
    assert sent[-2]["role"] == "tool" and sent[-2]["tool_call_id"] == "call_x"
    assert "interrupted" in sent[-2]["content"]
    await engine.close()


async def test_confirmation_allow_deny_and_chat_grant(
    server: ScriptedServer, hermetic: Path
) -> None:
    write_tool(hermetic / "home", "launch", CONFIRM_TOOL)
    engine = make_engine(server)
    answers = iter([Decision(False, reason="not today"), Decision(True, "chat", reason="go ahead")])
    engine.events.listen(
        lambda e: isinstance(e, ApprovalRequested) and engine.decide(e.request_id, next(answers))
    )
    seen = Recorder(engine)
    chat = engine.new_chat().id
    for _ in range(3):
        server.enqueue(tool_calls([("launch", '{"target": "moon"}')]), text("ok"))

    await ask(engine, chat, "launch")
    denied = seen.of(ToolFinished)[-1]
    assert not denied.ok and "not today" in denied.output
    assert not (hermetic / "work" / "launched.txt").exists()

    await ask(engine, chat, "launch, please")
    assert seen.of(ToolFinished)[-1].ok
    assert (hermetic / "work" / "launched.txt").read_text() == "moon"

    await ask(engine, chat, "once more")  # the chat grant answers without asking
    assert len(seen.of(ApprovalRequested)) == 2 and seen.of(ToolFinished)[-1].ok
    details = seen.of(ApprovalRequested)[0].details
    assert details["bot"] == "Assistant" and details["tool"] == "launch"  # who asks, and what
    await engine.close()


async def test_unanswered_confirmation_is_denied(server: ScriptedServer, hermetic: Path) -> None:
    write_tool(hermetic / "home", "launch", CONFIRM_TOOL)
    engine = make_engine(server, tools__confirm_timeout=0.2)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("launch", '{"target": "mars"}')]), text("ok"))

    await ask(engine, engine.new_chat().id, "launch")

    [finished] = seen.of(ToolFinished)
    assert not finished.ok and "nobody answered" in finished.output
    assert engine.approvals.pending() == []
    await engine.close()


async def test_slash_commands_work_without_a_server(hermetic: Path) -> None:
    (hermetic / "work" / "here.txt").write_text("x")
    engine = make_engine(closed_port_url())  # nothing listens: commands must not need it
    chat = engine.new_chat().id

    listing = await (await engine.send(chat, "/list_dir path=."))
    helped = await (await engine.send(chat, "/help"))
    unknown = await (await engine.send(chat, "/frobnicate"))
    fresh = await (await engine.send(chat, "/new"))
    bad = await (await engine.send(chat, "/list_dir path"))

    assert isinstance(listing, CommandOutput) and listing.ok and "here.txt" in listing.text
    assert isinstance(helped, CommandOutput) and "/read_file" in helped.text
    assert isinstance(unknown, CommandOutput) and not unknown.ok
    assert isinstance(fresh, CommandOutput) and fresh.new_chat and fresh.new_chat != chat
    assert isinstance(bad, CommandOutput) and "key=value" in bad.text
    assert engine.chats.load(chat).messages == []  # commands are not history
    await engine.close()


async def test_a_slash_command_is_the_users_own_act(hermetic: Path) -> None:
    """Typed by the user: no confirmation, no bot whitelist; disabled still refuses."""
    engine = make_engine(closed_port_url(), agent__tools=["read_file"])
    recorder = Recorder(engine)
    chat = engine.new_chat().id

    ran = await (await engine.send(chat, "/exec command='echo typed > marker.txt'"))
    engine.tools.set_disabled({"exec"})
    refused = await (await engine.send(chat, "/exec command='echo again >> marker.txt'"))

    assert isinstance(ran, CommandOutput) and ran.ok, ran
    assert (hermetic / "work" / "marker.txt").read_text() == "typed\n"
    assert recorder.of(ApprovalRequested) == []
    assert isinstance(refused, CommandOutput) and not refused.ok
    assert "tool exec is disabled" in refused.text
    await engine.close()


async def test_server_down_is_a_friendly_unreachable_error(hermetic: Path) -> None:
    engine = make_engine(closed_port_url())
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "anyone?")

    assert outcome.status == "failed" and outcome.error_kind == "unreachable"
    assert outcome.error and "Cannot reach the model server" in outcome.error
    assert engine.chats.load(chat).messages[0]["content"] == "anyone?"
    await engine.close()


@pytest.mark.parametrize(
    ("reply", "kind", "needle"),
    [
        (error(500), "rejected", "internal error"),
        (error(404, message="model 'x' not found"), "rejected", "model 'x' not found"),
        (silent(5), "unreachable", "went silent"),
    ],
)
async def test_provider_errors_end_the_turn_with_a_message(
    server: ScriptedServer, reply: object, kind: str, needle: str
) -> None:
    engine = make_engine(server, providers__local__stream_timeout=0.5)
    server.enqueue(reply)  # type: ignore[arg-type]

    outcome = await ask(engine, engine.new_chat().id, "hello")

    assert outcome.status == "failed" and outcome.error_kind == kind
    assert outcome.error and needle in outcome.error
    await engine.close()


async def test_rate_limit_is_retried(server: ScriptedServer) -> None:
    engine = make_engine(server, providers__local__max_retries=2)
    server.enqueue(error(429, headers={"Retry-After": "0"}), text("after the wait"))

    outcome = await ask(engine, engine.new_chat().id, "hello")

    assert outcome.status == "completed" and outcome.text == "after the wait"
    assert len(server.requests) == 2
    await engine.close()


async def test_full_disk_stops_before_the_model_and_loses_nothing(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(server)
    chat = engine.new_chat().id
    server.enqueue(text("first"))
    await ask(engine, chat, "one")
    before = engine.chats.path(chat).read_bytes()

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    outcome = await ask(engine, chat, "two")
    monkeypatch.undo()

    assert outcome.status == "failed" and outcome.error
    assert "No space left on device" in outcome.error
    assert len(server.requests) == 1, "the model must not be called when saving failed"
    assert engine.chats.path(chat).read_bytes() == before
    assert [m["content"] for m in engine.chats.load(chat).messages] == ["one", "first"]
    await engine.close()


async def test_torn_line_is_reported_and_the_chat_continues(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    chat = engine.new_chat().id
    server.enqueue(text("first"), text("second"))
    await ask(engine, chat, "one")
    with engine.chats.path(chat).open("a") as handle:
        handle.write('{"type": "message", "message": {"role": "user", "cont')

    outcome = await ask(engine, chat, "two")

    assert outcome.status == "completed"
    assert any("set aside" in getattr(e, "message", "") for e in seen.events)
    lines = engine.chats.path(chat).read_text().splitlines()
    assert all(json.loads(line) for line in lines)
    assert [m["content"] for m in engine.chats.load(chat).messages][-2:] == ["two", "second"]
    await engine.close()


RULE_TOOL = """
from tuibot import tool

def risky(arguments):
    if arguments["target"] == "boom":
        raise RuntimeError("broken rule")
    return f"Write {arguments['target']}?" if arguments["target"].startswith("/etc") else False

@tool(confirm=risky)
def put(target: str) -> str:
    \"\"\"Write somewhere.\"\"\"
    return f"wrote {target}"
"""


async def test_confirmation_rule_decides_per_call(server: ScriptedServer, hermetic: Path) -> None:
    write_tool(hermetic / "home", "put", RULE_TOOL)
    engine = make_engine(server)
    engine.events.listen(
        lambda e: (
            isinstance(e, ApprovalRequested)
            and engine.decide(e.request_id, Decision(False, reason="no"))
        )
    )
    seen = Recorder(engine)
    server.enqueue(
        tool_calls(
            [
                ("put", '{"target": "notes.txt"}'),
                ("put", '{"target": "/etc/passwd"}'),
                ("put", '{"target": "boom"}'),
            ]
        ),
        text("ok"),
    )

    await ask(engine, engine.new_chat().id, "write")

    asked = [e.summary for e in seen.of(ApprovalRequested)]
    assert len(asked) == 2 and "Write /etc/passwd?" in asked[0]
    assert "confirmation rule failed" in asked[1]
    results = {e.call_id: e.ok for e in seen.of(ToolFinished)}
    assert list(results.values()) == [True, False, False]
    await engine.close()
