"""Chats that outgrow a local model's window keep working (issue 15).

Each test drives the real engine and the real openai SDK against a scripted server that
behaves like llama.cpp or Ollama at its window (see ``window_server``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import Recorder, ask, make_engine
from scripted_server import ScriptedServer, error
from window_server import is_summary, request_tokens, windowed

from tuibot.events import ContextMeasured, Notice

BIG = "".join(f"line {i}: some file content that goes on\n" for i in range(1300))  # ~51 KB
SMALL_TOOLS = {
    "agent__tools": ["read_file"],
    "providers__local__context_window": 0,  # unknown: the server must tell
    "agent__default_context_window": 32768,  # assumed bigger than the server's
}


def seed_big_result(engine: Any, chat: str) -> None:
    """A finished turn whose read_file returned ~51 KB, as on disk after that turn."""
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "big.txt"}'},
    }
    engine.chats.append(
        chat,
        [
            {"role": "user", "content": "read big.txt"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "name": "read_file", "content": BIG},
            {"role": "assistant", "content": "I read it."},
        ],
    )


def chat_bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    """Bodies of the chat requests (not the window probes)."""
    return [r.body for r in server.requests if r.path.endswith("/chat/completions") and r.body]


def assert_pairs_valid(messages: list[dict[str, Any]]) -> None:
    """The system prompt first; every tool result right after the call that asked for it."""
    assert messages[0]["role"] == "system"
    assert messages[1]["role"] == "user"
    open_calls: set[str] = set()
    for message in messages[1:]:
        if message["role"] == "assistant":
            open_calls = {c["id"] for c in message.get("tool_calls") or ()}
        elif message["role"] == "tool":
            assert message["tool_call_id"] in open_calls
        else:
            open_calls = set()


async def test_a_refusal_for_size_learns_the_window_and_the_chat_goes_on(
    server: ScriptedServer,
) -> None:
    sizes = windowed(server, 6000, "refuse")
    engine = make_engine(server, **SMALL_TOOLS)
    events = Recorder(engine)
    chat = engine.new_chat().id
    seed_big_result(engine, chat)
    for question in ("what is on line 7?", "and line 9?", "thanks, and line 11?"):
        outcome = await ask(engine, chat, question)
        assert outcome.status == "completed", outcome.error
        assert outcome.text == "Fine."
    bodies = chat_bodies(server)
    assert sizes[0] > 6000  # the first request was refused for size ...
    assert all(request_tokens(b) <= 6000 for b in bodies[1:])  # ... and no later one
    assert_pairs_valid(bodies[-1]["messages"])
    [result] = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert "the full result is in the chat file" in result["content"]
    stored = engine.chats.load(chat).messages
    assert any(m.get("content") == BIG for m in stored)  # the file keeps the whole result
    assert engine.windows.lookup(engine.settings.providers["local"], "test-model").tokens == 6000
    assert not [n for n in events.of(Notice) if n.level == "error"]
    await engine.close()


@pytest.mark.parametrize("style", ["empty", "drop", "hangup"])
async def test_an_empty_stream_near_the_window_is_an_overflow_not_a_protocol_error(
    server: ScriptedServer, style: str
) -> None:
    windowed(server, 6000, style)
    engine = make_engine(server, **SMALL_TOOLS)
    chat = engine.new_chat().id
    seed_big_result(engine, chat)
    outcome = await ask(engine, chat, "what is on line 7?")
    assert outcome.status == "completed", outcome.error
    assert request_tokens(chat_bodies(server)[-1]) <= 6000
    await engine.close()


async def test_when_even_the_retry_is_too_big_the_error_says_so_in_words(
    server: ScriptedServer,
) -> None:
    windowed(server, 600, "empty")  # smaller than the system prompt and tools
    engine = make_engine(server, **SMALL_TOOLS)
    chat = engine.new_chat().id
    seed_big_result(engine, chat)
    outcome = await ask(engine, chat, "what is on line 7?")
    assert outcome.status == "failed"
    assert "OpenAI-compatible" not in (outcome.error or "")
    assert "context window" in (outcome.error or "")
    await engine.close()


async def test_a_server_that_cuts_the_prompt_silently_is_caught_and_the_window_learnt(
    server: ScriptedServer,
) -> None:
    windowed(server, 4096, "truncate")
    engine = make_engine(server, **SMALL_TOOLS)
    events = Recorder(engine)
    chat = engine.new_chat().id
    seed_big_result(engine, chat)
    first = await ask(engine, chat, "what is on line 7?")
    assert first.status == "completed"
    warnings = [n.message for n in events.of(Notice) if n.level == "warning"]
    assert any("cut the prompt" in w for w in warnings)
    await ask(engine, chat, "and line 9?")
    assert request_tokens(chat_bodies(server)[-1]) <= 4096
    await engine.close()


FIXED_WINDOW = {
    "agent__tools": ["read_file"],
    "providers__local__context_window": 8000,
    "agent__consolidate_after": 0,  # memory consolidation is not what is tested here
}


def long_chat(engine: Any, chat: str, turns: int) -> None:
    """``turns`` finished turns, each with a tool call and a 2 KB result."""
    for n in range(turns):
        call = {
            "id": f"call_{n}",
            "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{n}.txt"})},
        }
        engine.chats.append(
            chat,
            [
                {"role": "user", "content": f"read f{n}.txt please"},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {
                    "role": "tool",
                    "tool_call_id": f"call_{n}",
                    "name": "read_file",
                    "content": f"{n} " * 700,
                },
                {"role": "assistant", "content": f"f{n}.txt holds the number {n}."},
            ],
        )


async def test_auto_compaction_summarises_old_turns_keeps_pairs_and_the_originals(
    server: ScriptedServer, hermetic: Path
) -> None:
    sizes = windowed(server, 8000, "refuse")
    engine = make_engine(server, **FIXED_WINDOW)
    events = Recorder(engine)
    chat = engine.new_chat().id
    long_chat(engine, chat, 30)
    outcome = await ask(engine, chat, "what did f3.txt hold?")
    assert outcome.status == "completed", outcome.error
    bodies = chat_bodies(server)
    assert [is_summary(b) for b in bodies] == [True, False]
    sent = bodies[-1]["messages"]
    assert "Summary of the earlier conversation" in sent[0]["content"]
    assert "The user asked about a big file" in sent[0]["content"]
    assert_pairs_valid(sent)
    assert max(sizes) <= 8000
    loaded = engine.chats.load(chat)
    assert len(loaded.messages) == 30 * 4 + 2  # every original message is still there
    assert loaded.compaction is not None and loaded.compaction["upto"] > 0
    assert any("Compacted" in n.message for n in events.of(Notice))
    assert events.of(ContextMeasured)[-1].window == 8000
    # the next turn starts from the summary without asking for a new one
    await ask(engine, chat, "and f29?")
    assert [is_summary(b) for b in chat_bodies(server)] == [True, False, False]
    await engine.close()


async def test_a_failed_compaction_leaves_the_chat_as_it_was(server: ScriptedServer) -> None:
    windowed(server, 8000, "refuse", summary=error(500, message="out of memory"))
    engine = make_engine(server, **FIXED_WINDOW)
    events = Recorder(engine)
    chat = engine.new_chat().id
    long_chat(engine, chat, 30)
    before = engine.chats.path(chat).read_bytes()
    outcome = await ask(engine, chat, "what did f3.txt hold?")
    assert outcome.status == "completed", outcome.error  # old turns left out, not lost
    after = engine.chats.path(chat).read_bytes()
    assert after.startswith(before) and b'"compaction"' not in after
    assert engine.chats.load(chat).compaction is None
    assert any(
        "Compaction failed and the chat is unchanged" in n.message for n in events.of(Notice)
    )
    assert_pairs_valid(chat_bodies(server)[-1]["messages"])
    await engine.close()


def test_ask_json_done_carries_the_context_in_use(server: ScriptedServer) -> None:
    from ask_helpers import json_lines, of_type, run_ask

    windowed(server, 50_000, "refuse")
    ran = run_ask(server, "--json", "hello", TUIBOT_PROVIDERS__LOCAL__CONTEXT_WINDOW="32768")
    assert ran.code == 0, ran.stderr
    (done,) = of_type(json_lines(ran), "done")
    assert done["context"]["window"] == 32768
    assert 1000 < done["context"]["used"] < 32768  # system prompt and tools at least


async def test_chats_show_marks_where_compaction_happened(server: ScriptedServer) -> None:
    from ask_helpers import tuibot_argv

    windowed(server, 8000, "refuse")
    engine = make_engine(server, **FIXED_WINDOW)
    chat = engine.new_chat().id
    long_chat(engine, chat, 30)
    await ask(engine, chat, "what did f3.txt hold?")
    upto = engine.chats.load(chat).compactions[-1]["upto"]
    await engine.close()
    import subprocess

    shown = subprocess.run(tuibot_argv("chats", "show", chat), capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    mark = out.index("── compacted")
    assert "The user asked about a big file" in out[mark:]
    assert "f0.txt holds the number 0." in out[:mark]  # the originals are still shown
    assert f"read f{upto // 4}.txt please" in out[mark:]


async def test_compact_command_summarises_now_with_the_persons_instructions(
    server: ScriptedServer,
) -> None:
    windowed(server, 100_000, "refuse")
    engine = make_engine(server, **FIXED_WINDOW)
    chat = engine.new_chat().id
    long_chat(engine, chat, 5)
    output = await (await engine.send(chat, "/compact keep the API decisions"))
    assert output.ok, output.text
    [summary_request] = chat_bodies(server)
    assert is_summary(summary_request)
    assert "keep the API decisions" in summary_request["messages"][0]["content"]
    loaded = engine.chats.load(chat)
    assert loaded.compaction is not None and loaded.compaction["upto"] == 12
    assert len(loaded.messages) == 20
    await ask(engine, chat, "go on")
    sent = chat_bodies(server)[-1]["messages"]
    assert "Summary of the earlier conversation" in sent[0]["content"]
    assert sent[1]["content"] == "read f3.txt please"  # the last two turns stay whole
    await engine.close()


async def test_compact_on_a_short_chat_says_there_is_nothing_to_do(server: ScriptedServer) -> None:
    engine = make_engine(server, **FIXED_WINDOW)
    chat = engine.new_chat().id
    long_chat(engine, chat, 2)
    output = await (await engine.send(chat, "/compact"))
    assert not output.ok and "Nothing to compact" in output.text
    assert not chat_bodies(server)
    await engine.close()


async def test_delegated_work_is_fitted_to_the_window_like_any_chat(
    server: ScriptedServer, hermetic: Path
) -> None:
    """A helper's task chat reads a ~51 KB file under an 8,000-token window: its next
    request is fitted (the result cut, the file keeps it) and the work completes."""
    from delegation_helpers import CONFIG, Script, delegate_call, engine_from, settle
    from scripted_server import text, tool_calls

    Path("big.txt").write_text(BIG, encoding="utf-8")
    config = CONFIG.format(url=server.url, price=0, approval_timeout=30, delegation="")
    config = config.replace("max_retries = 0", "max_retries = 0\ncontext_window = 8000")
    engine = engine_from(config)
    sizes: list[int] = []

    def measured(reply: Any) -> Any:
        def answer(body: dict[str, Any]) -> Any:
            sizes.append(request_tokens(body))
            return reply

        return answer

    read = tool_calls([("read_file", '{"path": "big.txt"}')])
    Script(
        server,
        [
            ("Summarise big.txt", delegate_call("Read big.txt and report", {"timeMs": 600_000})),
            ('"status": "queued"', text("A helper reads it.")),
            ("gives you this task: Read big.txt", measured(read)),
            ("line 0:", measured(text("It holds numbered lines."))),
            ("is done.", text("The file holds numbered lines.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Summarise big.txt")
    await settle(engine, chat)
    [record] = engine.delegations.given_by(chat)
    task = engine.chats.load(record.chat or "", readonly=True).messages
    await engine.close()
    assert record.status == "completed" and record.result == "It holds numbered lines."
    assert len(sizes) == 2 and max(sizes) <= 8000, sizes
    stored = max(len(str(m.get("content"))) for m in task if m["role"] == "tool")
    assert stored > 8000 * 4  # the task chat keeps the result as the tool gave it
