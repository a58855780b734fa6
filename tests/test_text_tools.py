"""Tool calls written as text, in the formats local models really emit.

With ``text_tool_calls`` on, a Qwen or Llama model that writes its call into the answer
still gets the tool run; prose that merely contains JSON must never run anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_helpers import Recorder, sent_messages
from scripted_server import ScriptedServer, text

from tuibot.engine import Engine
from tuibot.events import TextDelta, ToolFinished, TurnFinished
from tuibot.llm.text_tools import TextToolCall, extract_text_tool_calls
from tuibot.settings import load_settings

KNOWN = {"list_dir", "read_file"}


def found(answer: str) -> tuple[str, list[tuple[str, dict]]]:
    """The prose left over and the calls as (name, parsed arguments)."""
    prose, calls = extract_text_tool_calls(answer, KNOWN)
    return prose, [(call.name, json.loads(call.arguments)) for call in calls]


def test_qwen_hermes_tagged_call() -> None:
    answer = '<tool_call>\n{"name": "list_dir", "arguments": {"path": "src"}}\n</tool_call>'
    assert found(answer) == ("", [("list_dir", {"path": "src"})])


def test_two_tagged_calls_keep_their_order() -> None:
    answer = (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>\n'
        '<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>'
    )
    assert found(answer) == ("", [("read_file", {"path": "a.txt"}), ("list_dir", {})])


def test_tagged_call_missing_its_closing_tag() -> None:
    answer = '<tool_call>\n{"name": "list_dir", "arguments": {"path": "."}}'
    assert found(answer) == ("", [("list_dir", {"path": "."})])


def test_prose_around_a_tagged_call_is_kept() -> None:
    answer = (
        "Let me look at the folder first.\n"
        '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>\n'
        "Then I will summarise."
    )
    prose, calls = found(answer)
    assert calls == [("list_dir", {"path": "."})]
    assert "Let me look at the folder first." in prose and "Then I will summarise." in prose
    assert "tool_call" not in prose and "list_dir" not in prose


def test_arguments_become_the_json_string_a_native_call_carries() -> None:
    _, calls = extract_text_tool_calls(
        '<tool_call>{"name": "read_file", "arguments": {"path": "é.txt"}}</tool_call>', KNOWN
    )
    assert calls == [TextToolCall("read_file", '{"path": "é.txt"}')]


@pytest.mark.parametrize("end", ["<|eom_id|>", "<|eot_id|>", ""])
def test_llama_python_tag_with_parameters(end: str) -> None:
    answer = f'<|python_tag|>{{"name": "list_dir", "parameters": {{"path": "docs"}}}}{end}'
    assert found(answer) == ("", [("list_dir", {"path": "docs"})])


def test_function_equals_tag() -> None:
    answer = 'Reading it.\n<function=read_file>{"path": "x.py"}</function>'
    assert found(answer) == ("Reading it.", [("read_file", {"path": "x.py"})])


def test_function_tag_naming_an_unknown_tool_is_left_alone() -> None:
    answer = '<function=rm_rf>{"path": "/"}</function>'
    assert found(answer) == (answer, [])


def test_mistral_tool_calls_list() -> None:
    answer = (
        'Sure. [TOOL_CALLS] [{"name": "list_dir", "arguments": {"path": "."}}, '
        '{"name": "read_file", "arguments": {"path": "b.md"}}]'
    )
    assert found(answer) == (
        "Sure.",
        [("list_dir", {"path": "."}), ("read_file", {"path": "b.md"})],
    )


def test_fenced_json_block_as_the_whole_answer() -> None:
    answer = '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'
    assert found(answer) == ("", [("read_file", {"path": "a.txt"})])


def test_bare_json_object_as_the_whole_answer() -> None:
    answer = '  {"name": "list_dir", "arguments": {"path": "."}}\n'
    assert found(answer) == ("", [("list_dir", {"path": "."})])


@pytest.mark.parametrize(
    "arguments", ['"{\\"path\\": \\".\\"}"', '{"path": "."}'], ids=["string", "object"]
)
def test_openai_style_function_object(arguments: str) -> None:
    answer = f'{{"type": "function", "function": {{"name": "list_dir", "arguments": {arguments}}}}}'
    assert found(answer) == ("", [("list_dir", {"path": "."})])


@pytest.mark.parametrize(
    "answer",
    [
        'To delete, a tool would get {"name": "delete_all", "arguments": {}}.',
        '{"name": "delete_all", "arguments": {}}',
        '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>',
        '[TOOL_CALLS] [{"name": "delete_all", "arguments": {}}]',
        '```json\n{"name": "delete_all", "arguments": {}}\n```',
    ],
)
def test_json_naming_an_unknown_tool_is_left_alone(answer: str) -> None:
    assert extract_text_tool_calls(answer, KNOWN) == (answer, [])


@pytest.mark.parametrize(
    "answer",
    [
        'The config looks like {"name": "list_dir", "arguments": {}} in the docs.',
        '[{"name": "list_dir"}, 3]',
        '{"path": "."}',
        "Plain prose, no calls at all.",
        "",
    ],
)
def test_prose_and_other_json_run_nothing(answer: str) -> None:
    assert extract_text_tool_calls(answer, KNOWN) == (answer, [])


# --- through the engine --------------------------------------------------------------

TAGGED = '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>'


def engine_for(server: ScriptedServer, *, text_tool_calls: bool) -> Engine:
    """An engine whose local provider is the scripted server."""
    settings = load_settings(
        overrides={
            "providers.local.base_url": (server.url, "test"),
            "providers.local.text_tool_calls": (text_tool_calls, "test"),
            "providers.local.max_retries": (0, "test"),
            "agent.model": ("test-model", "test"),
        }
    )
    engine = Engine(settings)
    engine.load_tools()
    return engine


async def test_engine_runs_a_call_written_as_text(server: ScriptedServer, hermetic: Path) -> None:
    (hermetic / "work" / "marker-file.txt").write_text("x")
    engine = engine_for(server, text_tool_calls=True)
    seen = Recorder(engine)
    server.enqueue(text("Looking.\n" + TAGGED), text("There is one file."))
    chat = engine.new_chat().id

    outcome = await (await engine.send(chat, "hi"))

    assert isinstance(outcome, TurnFinished) and outcome.status == "completed"
    # The turn's text is the whole answer across rounds, with the call itself taken out.
    assert outcome.text == "Looking.There is one file."
    [finished] = seen.of(ToolFinished)
    assert finished.name == "list_dir" and finished.ok
    assert "marker-file.txt" in finished.output
    second = sent_messages(server, 1)
    call_message, result = second[-2], second[-1]
    assert call_message["content"] == "Looking."
    [call] = call_message["tool_calls"]
    assert call["function"]["name"] == "list_dir"
    assert json.loads(call["function"]["arguments"]) == {"path": "."}
    assert result["role"] == "tool" and result["tool_call_id"] == call["id"]
    assert "marker-file.txt" in result["content"]
    stored = engine.chats.load(chat).messages
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "assistant"]
    await engine.close()


async def test_engine_leaves_text_alone_when_the_option_is_off(server: ScriptedServer) -> None:
    engine = engine_for(server, text_tool_calls=False)
    seen = Recorder(engine)
    server.enqueue(text(TAGGED))
    chat = engine.new_chat().id

    outcome = await (await engine.send(chat, "hi"))

    assert isinstance(outcome, TurnFinished) and outcome.status == "completed"
    assert outcome.text == TAGGED
    assert seen.of(ToolFinished) == []
    assert len(server.requests) == 1
    await engine.close()


@pytest.mark.parametrize("pieces", [1, 3, 7], ids=["chars", "threes", "sevens"])
async def test_call_markup_never_reaches_the_text_events(
    server: ScriptedServer, pieces: int
) -> None:
    engine = engine_for(server, text_tool_calls=True)
    seen = Recorder(engine)
    answer = "Looking.\n" + TAGGED + "\nBack soon."
    server.enqueue(text(answer, pieces=len(answer) // pieces), text("[TOOL_CALLS", pieces=3))
    chat = engine.new_chat().id

    outcome = await (await engine.send(chat, "hi"))

    assert isinstance(outcome, TurnFinished) and outcome.status == "completed"
    shown = [delta.delta for delta in seen.of(TextDelta)]
    # A marker that never completed is held to the end, then shown as plain text.
    assert shown[-1] == "[TOOL_CALLS"
    assert not [d for d in shown[:-1] if "<" in d or "list_dir" in d or "TOOL" in d]
    assert "".join(shown) == "Looking.\nBack soon.[TOOL_CALLS" == outcome.text
    [finished] = seen.of(ToolFinished)
    assert finished.name == "list_dir"
    await engine.close()
