"""The agent loop through the engine: real SDK, real HTTP, real files."""

from __future__ import annotations

import json
from pathlib import Path

from engine_helpers import Recorder, ask, make_engine, sent_messages
from scripted_server import ScriptedServer, cut, length, raw, text, tool_calls

from tuibot.agent.messages import history_window
from tuibot.events import (
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)
from tuibot.toolkit.registry import ERROR_HINT


async def test_plain_answer_streams_and_is_stored(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(text("Hello there, how can I help?", usage=(12, 7)))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "hi")

    deltas = seen.of(TextDelta)
    assert len(deltas) > 3, "the answer must arrive in pieces"
    assert "".join(d.delta for d in deltas) == "Hello there, how can I help?"
    assert outcome.status == "completed"
    assert outcome.text == "Hello there, how can I help?"
    assert (outcome.usage.prompt_tokens, outcome.usage.completion_tokens) == (12, 7)
    stored = engine.chats.load(chat).messages
    assert [m["role"] for m in stored] == ["user", "assistant"]
    assert stored[1]["content"] == "Hello there, how can I help?"
    await engine.close()


async def test_tool_call_split_across_chunks_runs_and_feeds_back(
    server: ScriptedServer, hermetic: Path
) -> None:
    (hermetic / "work" / "notes.txt").write_text("alpha\nbeta\n")
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(
        tool_calls([("read_file", '{"path": "notes.txt"}')], mode="split"),
        text("The file has two lines."),
    )
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "what is in notes.txt?")

    assert outcome.status == "completed"
    [finished] = seen.of(ToolFinished)
    assert finished.ok and "beta" in finished.output
    second = sent_messages(server, 1)
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert second[-1]["role"] == "tool" and "alpha" in second[-1]["content"]
    assert second[-1]["tool_call_id"] == second[-2]["tool_calls"][0]["id"]
    await engine.close()


async def test_whole_and_parallel_calls_each_get_a_result(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(
        tool_calls([("list_dir", '{"path": "."}'), ("list_dir", "{}")], mode="whole"),
        tool_calls(
            [("list_dir", '{"path": "."}', "call_a"), ("list_dir", "{}", "call_b")],
            mode="interleaved",
        ),
        text("done"),
    )
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "list twice, twice")

    assert outcome.status == "completed"
    messages = sent_messages(server, 2)
    results = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    calls = {c["id"] for m in messages if m.get("tool_calls") for c in m["tool_calls"]}
    assert len(calls) == 4 and results == calls
    await engine.close()


async def test_reasoning_is_streamed_stored_and_never_resent(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(
        text("Four.", reasoning="2 plus 2 is 4", reasoning_field="reasoning"),
        text("Yes."),
    )
    chat = engine.new_chat().id

    await ask(engine, chat, "2+2?")
    await ask(engine, chat, "sure?")

    assert "".join(d.delta for d in seen.of(ReasoningDelta)) == "2 plus 2 is 4"
    assert engine.chats.load(chat).messages[1]["reasoning"] == "2 plus 2 is 4"
    resent = sent_messages(server, 1)
    assert all("reasoning" not in m for m in resent)
    assert all(set(m) <= {"role", "content", "tool_calls", "tool_call_id", "name"} for m in resent)
    await engine.close()


async def test_malformed_arguments_are_repaired(server: ScriptedServer, hermetic: Path) -> None:
    (hermetic / "work" / "a.txt").write_text("repaired!")
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("read_file", "{'path': 'a.txt',}")]), text("ok"))

    await ask(engine, engine.new_chat().id, "read a.txt")

    [finished] = seen.of(ToolFinished)
    assert finished.ok and "repaired!" in finished.output
    await engine.close()


async def test_unparseable_arguments_never_run_the_tool(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("list_dir", '["not", "an", "object"]')]), text("sorry"))

    outcome = await ask(engine, engine.new_chat().id, "list")

    [finished] = seen.of(ToolFinished)
    assert not finished.ok
    assert "not a JSON object" in finished.output and ERROR_HINT in finished.output
    assert outcome.status == "completed"
    assert sent_messages(server, 1)[-1]["content"] == finished.output
    await engine.close()


async def test_invalid_and_unknown_calls_return_errors_with_hint(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(
        tool_calls([("read_file", '{"limit": "ten"}'), ("launch_rockets", "{}")]),
        text("I will try again"),
    )

    await ask(engine, engine.new_chat().id, "go")

    invalid, unknown = sorted(seen.of(ToolFinished), key=lambda e: e.name != "read_file")
    assert not invalid.ok and "missing required argument 'path'" in invalid.output
    assert not unknown.ok and "Available tools: " in unknown.output
    assert "list_dir" in unknown.output and "read_file" in unknown.output
    assert ERROR_HINT in invalid.output and ERROR_HINT in unknown.output
    await engine.close()


async def test_stream_cut_mid_answer_keeps_partial_text(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(cut("The beginning of a long answer that never ends", after=4))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "tell me")

    assert outcome.status == "interrupted"
    assert outcome.text and "The beginning".startswith(outcome.text[:5])
    stored = engine.chats.load(chat).messages[-1]
    assert stored["status"] == "interrupted" and stored["content"] == outcome.text
    assert outcome.error and "partial answer was kept" in outcome.error
    await engine.close()


async def test_stream_ending_inside_a_tool_call_runs_nothing(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    partial_call = {
        "tool_calls": [
            {
                "index": 0,
                "id": "c1",
                "type": "function",
                "function": {"name": "list_dir", "arguments": '{"pa'},
            }
        ]
    }
    server.enqueue(raw([{"role": "assistant", "content": None}, partial_call], done=False))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "list")

    assert outcome.status in ("interrupted", "failed")
    assert seen.of(ToolStarted) == []
    assert all("tool_calls" not in m for m in engine.chats.load(chat).messages)
    await engine.close()


async def test_length_finish_warns_and_completes(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(length("An answer cut at max_tokens"))

    outcome = await ask(engine, engine.new_chat().id, "long please")

    assert outcome.status == "completed"
    assert any("token limit" in n.message for n in seen.of(Notice))
    await engine.close()


async def test_round_limit_stops_with_a_clear_message(server: ScriptedServer) -> None:
    engine = make_engine(server, agent__max_rounds=2)
    server.enqueue(*(tool_calls([("list_dir", "{}")]) for _ in range(2)))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "loop forever")

    assert outcome.status == "round_limit"
    assert "limit of 2 model calls" in outcome.text
    assert len([r for r in server.requests if r.body]) == 2
    assert engine.chats.load(chat).messages[-1]["status"] == "round_limit"
    await engine.close()


async def test_history_sent_is_capped_at_a_user_message(server: ScriptedServer) -> None:
    engine = make_engine(server, agent__history_limit=3)
    server.enqueue(text("one"), text("two"), text("three"))
    chat = engine.new_chat().id
    for prompt in ("first", "second", "third"):
        await ask(engine, chat, prompt)

    third = sent_messages(server, 2)
    assert third[0]["role"] == "system"
    assert [m["content"] for m in third[1:]] == ["second", "two", "third"]
    await engine.close()


def test_history_window_never_opens_with_orphaned_results() -> None:
    user = {"role": "user", "content": "u"}
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "x"}]}
    result = {"role": "tool", "tool_call_id": "x", "content": "r"}
    answer = {"role": "assistant", "content": "a"}
    history = [user, call, result, answer, user]
    assert history_window(history, 2) == [user]
    assert history_window(history, 10) == history
    exchange = [user, call, result, call, result, call, result]
    # Inside one long exchange: skip the leading result, keep the rest.
    assert history_window(exchange, 4) == [call, result, call, result]
    assert history_window(exchange, 3) == [call, result]


async def test_trace_has_one_record_per_turn(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(tool_calls([("list_dir", "{}")]), text("listed"))

    await ask(engine, engine.new_chat().id, "list")

    [record] = [json.loads(line) for line in engine.paths.traces.read_text().splitlines()]
    assert record["status"] == "completed" and record["reply"] == "listed"
    assert len(record["model_calls"]) == 2
    assert record["tool_calls"][0]["name"] == "list_dir"
    assert record["tool_calls"][0]["duration_s"] >= 0
    await engine.close()


async def test_events_name_their_turn(server: ScriptedServer) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(text("hi"))

    outcome = await ask(engine, engine.new_chat().id, "hello")

    assert {d.turn for d in seen.of(TextDelta)} == {outcome.turn}
    assert seen.of(TurnFinished) == [outcome]
    await engine.close()
