"""The text tool-call corpus, per dialect: whole answers, and the same answers streaming.

Each case of ``text_call_cases`` must give exactly its calls and leftover text. Streamed
(one character at a time, or split in two at every position), the text shown must only
ever grow towards that same leftover: nothing shown is later taken back, so call markup
never reaches the screen.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from text_call_cases import DIALECTS, TOOLS, Case

from tuibot.llm.text_tools import TextCallStream, TextToolCall, extract_text_tool_calls

CASES = [
    pytest.param(case, id=f"{dialect}-{number}")
    for dialect, cases in DIALECTS.items()
    for number, case in enumerate(cases)
]


def as_pairs(calls: list[TextToolCall]) -> list[tuple[str, dict[str, Any]]]:
    """Calls as (name, decoded arguments)."""
    return [(call.name, json.loads(call.arguments)) for call in calls]


def expected_leftover(case: Case) -> str:
    text, _, leftover = case
    return text if leftover is None else leftover


def streamed(pieces: list[str]) -> tuple[str, list[TextToolCall]]:
    """Feed ``pieces`` one by one, checking that what is shown only ever grows."""
    stream, shown = TextCallStream(TOOLS), ""
    for piece in pieces:
        shown += stream.feed(piece)
        assert stream.prose == shown
    shown += stream.finish()
    assert stream.prose == shown
    return shown, stream.calls


@pytest.mark.parametrize("case", CASES)
def test_whole_answer(case: Case) -> None:
    text, calls, _ = case
    prose, found = extract_text_tool_calls(text, TOOLS)
    assert as_pairs(found) == calls
    assert prose == expected_leftover(case)


@pytest.mark.parametrize("case", CASES)
def test_streamed_one_character_at_a_time(case: Case) -> None:
    text, calls, _ = case
    shown, found = streamed(list(text))
    assert as_pairs(found) == calls
    assert shown == expected_leftover(case)


SPLIT = ["hermes-1", "qwen3_xml-3", "mistral-6", "glm-7", "deepseek-2", "functionary-2"]


@pytest.mark.parametrize("case", [c.values[0] for c in CASES if c.id in SPLIT], ids=SPLIT)
def test_streamed_split_at_every_position(case: Case) -> None:
    text, calls, _ = case
    for cut in range(len(text) + 1):
        shown, found = streamed([text[:cut], text[cut:]])
        assert as_pairs(found) == calls, cut
        assert shown == expected_leftover(case), cut


def test_every_dialect_has_at_least_ten_cases() -> None:
    assert {name: len(cases) >= 10 for name, cases in DIALECTS.items()} == dict.fromkeys(
        DIALECTS, True
    )


def test_prose_before_a_call_shows_while_the_call_is_held_back() -> None:
    stream = TextCallStream(TOOLS)
    assert stream.feed("Let me check. <tool_") == "Let me check."
    assert stream.feed('call>{"name": "get_time", "arguments": {}}') == ""
    assert stream.feed("</tool_call> Done.") == " Done."
    assert stream.finish() == ""
    assert as_pairs(stream.calls) == [("get_time", {})]


def test_a_lone_angle_bracket_is_shown_once_it_cannot_open_a_marker() -> None:
    stream = TextCallStream(TOOLS)
    assert stream.feed("a <") == "a"
    assert stream.feed("b> c") == " <b> c"


def test_an_ordinary_answer_streams_without_delay() -> None:
    stream = TextCallStream(TOOLS)
    assert stream.feed("Hello") == "Hello"
    assert stream.feed(" there,") == " there,"
    assert stream.feed(" [Paris](https://x.org)") == " [Paris](https://x.org)"


def test_markdown_link_as_the_answer_is_not_held() -> None:
    stream = TextCallStream(TOOLS)
    assert stream.feed("[Paris") == ""  # could still be [Paris(city=...)]
    assert stream.feed("] is nice") == "[Paris] is nice"


def test_a_tool_the_turn_does_not_offer_is_text() -> None:
    answer = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    assert extract_text_tool_calls(answer, {"read_file": {}}) == (answer, [])


def test_names_without_schemas_still_work() -> None:
    prose, calls = extract_text_tool_calls("[get_time()]", ["get_time"])
    assert (prose, as_pairs(calls)) == ("", [("get_time", {})])


def test_xml_values_of_unknown_parameters_stay_strings() -> None:
    answer = "<tool_call>\n<function=get_time>\n<parameter=zone>\n5\n</parameter>\n</function>"
    _, calls = extract_text_tool_calls(answer, TOOLS)
    assert as_pairs(calls) == [("get_time", {"zone": "5"})]
