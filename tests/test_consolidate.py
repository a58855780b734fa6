"""Consolidation: what is due, the model call, and the engine doing it after a turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import Recorder, ask, make_engine, sent_messages
from scripted_replies import cut, error, raw, text
from scripted_server import ScriptedServer

from tuibot.agent.consolidate import ConsolidationError, consolidate, pick, transcript
from tuibot.events import Notice


def _chat(*roles: str) -> list[dict[str, Any]]:
    return [{"role": role, "content": f"m{i}"} for i, role in enumerate(roles)]


def test_pick_waits_for_the_threshold_and_keeps_recent_messages() -> None:
    messages = _chat(*["user", "assistant"] * 10)  # 20 messages
    assert pick(messages, 0, threshold=20, keep_recent=4) is None
    assert pick(messages, 0, threshold=0, keep_recent=4) is None  # 0 = off
    assert pick(messages, 0, threshold=10, keep_recent=4) == 16
    assert pick(messages, 16, threshold=2, keep_recent=4) is None  # nothing new to fold


def test_pick_never_splits_a_tool_exchange() -> None:
    roles = [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
    messages = _chat(*roles)
    upto = pick(messages, 0, threshold=3, keep_recent=4)  # len-4 = 5 lands inside the tools
    assert upto == 2 and messages[upto]["role"] == "user"


def test_transcript_names_tools_and_clips_huge_content() -> None:
    messages = [
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "exec"}}]},
        {"role": "tool", "name": "exec", "content": "x" * 10_000},
    ]
    lines = transcript(messages).split("\n\n")
    assert lines[0] == "[assistant (calls exec)]"
    assert lines[1].startswith("[tool result (exec)] xxx") and lines[1].endswith(" […]")
    assert len(lines[1]) < 4100


async def _client(server: ScriptedServer) -> Any:
    engine = make_engine(server)
    route = engine.route_for("test-model")
    return engine, engine.client_for(route.provider)


async def test_consolidate_returns_the_models_memory(server: ScriptedServer) -> None:
    engine, client = await _client(server)
    server.enqueue(text("## People\n- cat: Miso", pieces=3))
    new = await consolidate(
        client,
        "test-model",
        {},
        bot="Assistant",
        memory="- old note",
        messages=_chat("user", "assistant"),
    )
    assert new == "## People\n- cat: Miso"
    body = server.requests[-1].body
    assert body is not None and body["temperature"] == 0 and "tools" not in body
    prompt = body["messages"][1]["content"]
    assert "- old note" in prompt and "[user] m0" in prompt
    await engine.close()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (error(500), "the model call failed"),
        (cut("## Half a memo", after=2), "broke mid-answer"),
        (raw([{"delta": {"content": "## no finish"}}], done=False), "stopped before"),
        (text("   "), "empty memory"),
        (text("## long", finish_reason="length"), "token limit"),
    ],
)
async def test_consolidate_fails_cleanly(server: ScriptedServer, reply: Any, reason: str) -> None:
    engine, client = await _client(server)
    server.enqueue(reply)
    with pytest.raises(ConsolidationError, match=reason):
        await consolidate(client, "test-model", {}, bot="B", memory="", messages=_chat("user"))
    await engine.close()


# --- through the engine ------------------------------------------------------------------


async def _settle(engine: Any) -> None:
    """Wait for background consolidations to finish."""
    for _ in range(200):
        if not engine._background:
            return
        await asyncio.sleep(0.02)
    pytest.fail("consolidation did not finish")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_after_a_long_chat_old_messages_go_into_memory(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server, agent__consolidate_after=4, agent__consolidate_keep=2)
    seen = Recorder(engine)
    chat = engine.new_chat().id
    for i in range(2):
        server.enqueue(text(f"answer {i}"))
        await ask(engine, chat, f"question {i}")
    await _settle(engine)
    assert not (hermetic / "data" / "memory" / "Assistant.md").exists()  # 4 is not over 4

    server.enqueue(text("answer 2"), text("## Notes\n- asked three questions"))
    await ask(engine, chat, "question 2")
    await _settle(engine)

    memory = (hermetic / "data" / "memory" / "Assistant.md").read_text()
    assert memory == "## Notes\n- asked three questions\n"
    records = _lines(engine.chats.path(chat))
    assert records[-1]["type"] == "consolidated" and records[-1]["upto"] == 4
    assert engine.chats.load(chat).consolidated == 4
    assert any("folded 4 older messages" in n.message for n in seen.of(Notice))

    server.enqueue(text("answer 3"))
    await ask(engine, chat, "question 3")
    sent = sent_messages(server, -1)
    assert "asked three questions" in sent[0]["content"]  # the memory is in the prompt
    assert [m["content"] for m in sent[1:]] == ["question 2", "answer 2", "question 3"]
    await engine.close()


async def test_a_failed_consolidation_changes_nothing(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server, agent__consolidate_after=2, agent__consolidate_keep=2)
    seen = Recorder(engine)
    chat = engine.new_chat().id
    memory = engine.memory_for("Assistant")
    memory.save("keep me")
    before_memory = memory.read()
    server.enqueue(text("a0"))
    await ask(engine, chat, "q0")
    before_chat = engine.chats.path(chat).read_text()
    server.enqueue(text("a1"), error(500))
    await ask(engine, chat, "q1")
    await _settle(engine)

    assert memory.read() == before_memory
    records = _lines(engine.chats.path(chat))
    assert all(r["type"] != "consolidated" for r in records)
    assert engine.chats.path(chat).read_text().startswith(before_chat)
    warnings = [n.message for n in seen.of(Notice) if n.level == "warning"]
    assert any(m.startswith("memory not consolidated (nothing changed)") for m in warnings)
    await engine.close()


async def test_a_consolidated_marker_survives_a_repairing_rewrite(hermetic: Path) -> None:
    from tuibot.store.chats import ChatStore

    store = ChatStore(hermetic / "data" / "chats")
    chat = store.create(kind="direct", bot="Assistant").id
    store.append(chat, _chat("user", "assistant", "user"))
    store.append(
        chat,
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
                ],
            }
        ],
    )
    store.mark_consolidated(chat, 2)
    store.append(chat, [{"role": "user", "content": "later"}])  # the dangling call is mid-file
    loaded = store.load(chat)
    assert loaded.repaired == 1 and loaded.consolidated == 2
    again = store.load(chat)  # after the rewrite the marker is still there
    assert again.consolidated == 2 and again.repaired == 0


async def test_consolidation_fits_the_window_and_folds_the_rest_next_time(
    server: ScriptedServer, hermetic: Path
) -> None:
    """Twenty turns of 3,000-character messages (~45k tokens) against a 4,096 window:
    the request holds only what fits, and the fold stops there, at a user message."""
    engine = make_engine(
        server,
        agent__consolidate_after=4,
        agent__consolidate_keep=2,
        agent__auto_compact=False,
        providers__local__context_window=4096,
    )
    chat = engine.new_chat().id
    for i in range(20):
        engine.chats.append(
            chat,
            [
                {"role": "user", "content": f"q{i} " + "words " * 500},
                {"role": "assistant", "content": f"a{i} " + "reply " * 500},
            ],
        )
    server.enqueue(text("answer"), text("## Notes\n- long talk"))
    await ask(engine, chat, "one more")
    await _settle(engine)
    request = server.requests[-1].body
    assert request is not None
    sent = sum(len(m["content"]) for m in request["messages"])
    assert sent <= 4096 * 3.2, sent  # within the window at the assumed 3.2 chars a token
    folded = engine.chats.load(chat).consolidated
    assert 0 < folded < 40 and engine.chats.load(chat).messages[folded]["role"] == "user"
    await engine.close()


def test_a_first_turn_bigger_than_the_room_is_folded_alone_and_a_huge_memory_waits() -> None:
    from tuibot.agent.consolidate import fold_end, transcript_room

    messages = _chat("user", "assistant", "user", "assistant")
    messages[1]["content"] = "x" * 3000
    assert fold_end(messages, 0, 4, room=1000) == 2  # that turn only, cut to fit
    assert fold_end(messages, 0, 4, room=100_000) == 4
    with pytest.raises(ConsolidationError, match="no room"):
        transcript_room(2048, 1024, 3.2, memory="m" * 8000)
