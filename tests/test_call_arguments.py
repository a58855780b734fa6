"""Reading a tool call's argument text: what may be repaired, and what was cut off.

A model's call can be cut short (the stream hit a limit, the server dropped it); a repair
that closes what was left open would run the call on half its arguments — a file written
with half its content. These tables pin down which texts count as cut (refused) and which
only need cosmetic repair (run), including the tricky scanning cases.
"""

from __future__ import annotations

import json

import pytest

from tuibot.agent.calls import CallAccumulator, parse_arguments
from tuibot.agent.json_cut import unterminated
from tuibot.agent.messages import for_model
from tuibot.llm.parts import ToolCallPart

# (argument text as the model sent it, what is left open where it ends)
CUT = [
    ('{"path": "x.txt", "content": "half', "string"),
    ('{"a": "x\\"', "string"),  # the escaped quote does not close the string
    ('{"a": "x\\', "string"),  # cut right after a backslash
    ('{"a": "x\\\\\\', "string"),  # an escaped backslash, then a lone one
    ('{"a": "\\u00', "string"),  # inside a unicode escape
    ('{"a": "\\ud83d', "string"),  # after the first half of a surrogate pair
    ('{"a": [1, 2', "array"),
    ('{"a": [1, 2,', "array"),
    ('{"a": {"b": 1', "object"),
    ('{"a": {"b": [1, {"c": 2}', "array"),  # nested: the array is innermost
    ('{"a": [1, {"b": "]', "string"),  # a bracket inside the open string
    ('{"a": [1, {"b": "]"}', "array"),
    ('{"a": "b}', "string"),  # the brace is part of the string
    ('{"a": 1, "b":', "object"),
    ('{"a": 1, "b', "string"),
    ('{"a": tru', "object"),
    ('{"a": "x"', "object"),  # the value is whole, the object is not
    ('{"a": "\\\\"', "object"),  # escaped backslash, then the closing quote
    ("{'path': 'x.txt', 'content': 'half", "string"),
    ("{'a': 'it\\'s", "string"),
    ('{"a": [1}', "array"),  # an array the wrong bracket pretends to close
    ('{"text": "line one\nline two', "string"),
    ("{", "object"),
    ("[", "array"),
    ('"', "string"),
]

# Texts whose every string, array and object is closed (cosmetic faults allowed).
CLOSED = [
    '{"a": 1}',
    '{"a": "}"}',
    '{"a": "[{"}',
    '{"a": "say \\"hi\\""}',
    '{"a": "back\\\\"}',
    '{"a": "\\u00e9\\ud83d\\ude00"}',
    "{'a': 'it\"s'}",
    "{'a': \"it's\"}",
    "{a: 1,}",
    '{"a": [1, 2,],}',
    "{'path': 'a.txt',}",
    '{"a": True, "b": None}',
    '{"a": {"b": [1, {"c": "]"}]}}',
    '{"a": 1}}',  # a stray closer after the end is not an open bracket
    "",
    "   ",
]

# Cosmetic repairs: (text, the object that runs)
COSMETIC = [
    ("{'path': 'a.txt',}", {"path": "a.txt"}),
    ('{"path": "a.txt",}', {"path": "a.txt"}),
    ("{path: 'a.txt'}", {"path": "a.txt"}),
    ('{"recursive": True, "limit": None}', {"recursive": True, "limit": None}),
    ('{"items": [1, 2,],}', {"items": [1, 2]}),
    ('{"text": "a \\"quoted\\" }word{",}', {"text": 'a "quoted" }word{'}),
]


@pytest.mark.parametrize(("text", "kind"), CUT)
def test_cut_texts_are_found_with_what_is_left_open(text: str, kind: str) -> None:
    assert unterminated(text) == kind


@pytest.mark.parametrize("text", CLOSED)
def test_closed_texts_are_not_cut(text: str) -> None:
    assert unterminated(text) is None


@pytest.mark.parametrize(("text", "kind"), CUT)
def test_a_cut_call_is_refused_and_the_model_is_told(text: str, kind: str) -> None:
    parsed = parse_arguments(text)
    assert parsed.value is None and parsed.cut
    assert parsed.error is not None
    assert "cut off" in parsed.error and f"unterminated {kind}" in parsed.error
    assert "again" in parsed.error  # it asks the model to resend
    assert parsed.replay == "{}"


@pytest.mark.parametrize(("text", "value"), COSMETIC)
def test_cosmetic_repairs_still_run_and_replay_canonical_json(text: str, value: dict) -> None:
    parsed = parse_arguments(text)
    assert parsed.value == value and parsed.repaired and not parsed.cut
    assert parsed.replay == json.dumps(value, ensure_ascii=False)


def test_valid_arguments_replay_as_the_object_they_parse_to() -> None:
    parsed = parse_arguments('{"path":  "é.txt"}')
    assert parsed.value == {"path": "é.txt"} and not parsed.repaired
    assert json.loads(parsed.replay) == {"path": "é.txt"}


@pytest.mark.parametrize("text", ['["not", "an", "object"]', "hello there", "42", "null"])
def test_unparseable_arguments_replay_as_an_empty_object(text: str) -> None:
    parsed = parse_arguments(text)
    assert parsed.value is None and not parsed.cut
    assert parsed.error is not None and "not a JSON object" in parsed.error
    assert parsed.replay == "{}"


def _assistant(arguments: str) -> dict:
    """A stored assistant message with one read_file call."""
    function = {"name": "read_file", "arguments": arguments}
    call = {"id": "c1", "type": "function", "function": function}
    return {"role": "assistant", "content": "", "tool_calls": [call]}


@pytest.mark.parametrize(
    ("stored", "sent"),
    [
        ("{'path': 'a.txt',}", {"path": "a.txt"}),  # stored raw by an older tuibot
        ('{"path": "x.txt", "content": "half', {}),
        ("not json", {}),
        ('{"path": "a.txt"}', {"path": "a.txt"}),
    ],
)
def test_every_replayed_call_carries_a_json_object(stored: str, sent: dict) -> None:
    history = [{"role": "user", "content": "go"}, _assistant(stored)]
    [_, _, assistant] = for_model("sys", history, 10)
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == sent
    assert history[1]["tool_calls"][0]["function"]["arguments"] == stored  # not mutated


def _part(index: int, call_id: str | None, name: str | None, arguments: str) -> ToolCallPart:
    return ToolCallPart(index=index, id=call_id, name=name, arguments=arguments)


def test_the_same_id_twice_in_one_answer_gets_two_unique_ids() -> None:
    calls = CallAccumulator()
    calls.add(_part(0, "dup", "read_file", '{"path": "a.txt"}'))
    calls.add(_part(1, "dup", "read_file", '{"path": "b.txt"}'))
    first, second = calls.finish()
    assert first.id != second.id
    assert (first.arguments, second.arguments) == ('{"path": "a.txt"}', '{"path": "b.txt"}')


def test_a_whole_call_repeated_at_one_index_with_one_id_is_a_second_call() -> None:
    calls = CallAccumulator()
    calls.add(_part(0, "call_0", "read_file", '{"path": "a.txt"}'))
    calls.add(_part(0, "call_0", "read_file", '{"path": "b.txt"}'))
    first, second = calls.finish()
    assert first.id != second.id and second.arguments == '{"path": "b.txt"}'


def test_fragments_of_one_call_still_join() -> None:
    calls = CallAccumulator()
    calls.add(_part(0, "call_0", "read_file", ""))
    calls.add(_part(0, None, None, '{"path": '))
    calls.add(_part(0, "call_0", None, '"a.txt"}'))
    [call] = calls.finish()
    assert call.id == "call_0" and call.arguments == '{"path": "a.txt"}'


def test_an_id_used_in_an_earlier_round_is_replaced() -> None:
    calls = CallAccumulator()
    calls.add(_part(0, "call_1", "list_dir", "{}"))
    calls.add(_part(1, "call_2", "list_dir", "{}"))
    first, second = calls.finish(taken={"call_1"})
    assert first.id not in ("call_1", "call_2") and second.id == "call_2"
