"""Killing ``tuibot ask`` mid-stream and mid-tool loses nothing, and the chat goes on.

A real process is killed with SIGKILL (no cleanup code runs) at the two worst moments:
while the answer streams and while a tool runs. The chat must then load, carry the
user's message, and be accepted by the model server when it is continued: a tool call
left without a result gets a synthetic "interrupted" one. Ctrl+C (SIGINT) is the polite
version: exit 130, and the partial answer is kept, marked "interrupted".
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from ask_helpers import (
    CHAT_LINE,
    ask_argv,
    assert_well_formed,
    chat_store,
    finish,
    kill,
    load_chat,
    read_at_least,
    read_until,
    run_ask,
    sent,
    start,
    write_user_tool,
)
from scripted_server import ScriptedServer, text, tool_calls

from tuibot.store.chats import INTERRUPTED_RESULT

SLOW_ANSWER = "word " * 300
"""Streams for about 15 s at 50 ms a piece: plenty of time to interrupt it."""

SLEEPER = """\
import time
from pathlib import Path

from tuibot import tool


@tool
def sleeper(seconds: float = 30) -> str:
    \"\"\"Wait, like a slow build or download.\"\"\"
    Path({started!r}).write_text("running", encoding="utf-8")
    time.sleep(seconds)
    return "woke up"
"""


@pytest.fixture
def sleeping(tmp_path: Path) -> Path:
    """Install the sleeper tool; returns the file it writes once it really runs."""
    started = tmp_path / "sleeper-started"
    write_user_tool("sleeper", SLEEPER.format(started=str(started)))
    return started


def wait_for(path: Path, timeout: float = 20) -> None:
    """Block until ``path`` exists: the tool's thread is running, not just announced."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def started_chat(stderr: bytes) -> str:
    """The chat id from the first stderr line."""
    found = CHAT_LINE.search(stderr.decode())
    assert found, stderr
    return found.group(1)


def test_killed_mid_stream_the_chat_loads_and_continues(server: ScriptedServer) -> None:
    server.enqueue(text(SLOW_ANSWER, pieces=300, delay=0.05))
    process = start(ask_argv(server, "Tell me a long story."))
    assert process.stdout is not None and process.stderr is not None
    chat = started_chat(read_until(process.stderr, b"\n"))
    assert read_at_least(process.stdout, 10).startswith(b"word")

    kill(process)
    code, _, _ = finish(process)

    assert code == -signal.SIGKILL
    loaded = chat_store().load(chat)
    assert loaded.problems == [] and loaded.repaired == 0
    assert [(m["role"], m["content"]) for m in loaded.messages] == [
        ("user", "Tell me a long story.")
    ]

    server.enqueue(text("Where was I? Ah yes."))
    again = run_ask(server, "--chat", chat, "Go on.")

    assert again.code == 0, again.stderr
    assert again.stdout == "Where was I? Ah yes.\n"
    messages = sent(server)
    assert_well_formed(messages)
    assert [(m["role"], m["content"]) for m in messages[1:]] == [
        ("user", "Tell me a long story."),
        ("user", "Go on."),
    ]


def test_killed_mid_tool_the_dangling_call_is_repaired(
    server: ScriptedServer, sleeping: Path
) -> None:
    server.enqueue(tool_calls([("sleeper", '{"seconds": 30}', "call_sleep")]))
    process = start(ask_argv(server, "Wait for the build."))
    assert process.stderr is not None
    status = read_until(process.stderr, "→ sleeper".encode())
    chat = started_chat(status)
    wait_for(sleeping)

    kill(process)
    finish(process)

    before = load_chat(chat)  # read-only: the repair is shown but not yet saved
    assert before.repaired == 1
    assistant, result = before.messages[-2:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_sleep"]
    assert result["role"] == "tool" and result["tool_call_id"] == "call_sleep"
    assert result["content"] == INTERRUPTED_RESULT and result["status"] == "interrupted"

    server.enqueue(text("The build was interrupted; shall I retry?"))
    again = run_ask(server, "--chat", chat, "What happened?")

    assert again.code == 0, again.stderr
    assert again.stdout == "The build was interrupted; shall I retry?\n"
    messages = sent(server)
    assert_well_formed(messages)
    tool_message = next(m for m in messages if m["role"] == "tool")
    assert tool_message["tool_call_id"] == "call_sleep"
    assert tool_message["content"] == INTERRUPTED_RESULT
    after = load_chat(chat)
    assert after.repaired == 0  # the repair was saved once, by the continuing ask
    assert len(after.messages) == 5


def test_ctrl_c_mid_stream_exits_130_and_keeps_the_partial_answer(server: ScriptedServer) -> None:
    server.enqueue(text(SLOW_ANSWER, pieces=300, delay=0.05))
    process = start(ask_argv(server, "Tell me a long story."))
    assert process.stdout is not None and process.stderr is not None
    chat = started_chat(read_until(process.stderr, b"\n"))
    shown = read_at_least(process.stdout, 10)

    kill(process, signal.SIGINT)
    code, rest, errors = finish(process)

    assert code == 130, errors
    assert "Traceback" not in errors
    stdout = (shown + rest.encode()).decode()
    assistant = load_chat(chat).messages[-1]
    assert assistant["role"] == "assistant" and assistant["status"] == "interrupted"
    assert assistant["content"].startswith("word") and len(assistant["content"]) < len(SLOW_ANSWER)
    assert stdout.rstrip("\n") == assistant["content"]  # exactly what the user saw


def test_ctrl_c_mid_tool_exits_130_promptly(server: ScriptedServer, sleeping: Path) -> None:
    """A sync tool still sleeping in its thread must not hold the process until it returns."""
    server.enqueue(tool_calls([("sleeper", '{"seconds": 10}', "call_sleep")]))
    process = start(ask_argv(server, "Wait for the build."))
    assert process.stderr is not None
    chat = started_chat(read_until(process.stderr, "→ sleeper".encode()))
    wait_for(sleeping)

    interrupted = time.monotonic()
    kill(process, signal.SIGINT)
    code, _, errors = finish(process, timeout=40)
    took = time.monotonic() - interrupted

    assert code == 130, errors
    assert "Traceback" not in errors
    assert took < 5, f"ask took {took:.1f} s to stop after Ctrl+C"
    assert_well_formed(load_chat(chat).messages)
