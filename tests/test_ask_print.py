"""``ask``'s per-token path: one write per event-loop tick, nothing per token elsewhere.

A fast stream delivers many chunks within one tick of the loop; writing and flushing each
was a system call per token. These tests pin what the batching must keep: the same bytes,
in the same order as the status lines around them, written as soon as the tick ends, and
listeners that skip deltas are never called for them.
"""

from __future__ import annotations

import asyncio
import io

import pytest

from tuibot.events import (
    EventStream,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolStarted,
    TurnFinished,
)
from tuibot.frontends.ask import Printer


class CountingStream(io.StringIO):
    """A text stream that counts the writes that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)

    def isatty(self) -> bool:
        return False


class Shared:
    """stdout and stderr of one terminal: what a person sees, in the order it arrived."""

    def __init__(self) -> None:
        self.seen = io.StringIO()

    def stream(self) -> CountingStream:
        seen = self.seen

        class Into(CountingStream):
            def write(self, text: str) -> int:
                seen.write(text)
                return super().write(text)

        return Into()


async def test_a_tick_of_deltas_is_one_write_with_the_same_text() -> None:
    out, err = CountingStream(), CountingStream()
    printer = Printer("c1", out, err)
    pieces = [f"t{i} " for i in range(500)]

    for piece in pieces:
        printer(TextDelta("c1", "t1", piece))
    assert out.getvalue() == ""  # still this tick: nothing written yet
    await asyncio.sleep(0)  # the tick ends

    assert out.getvalue() == "".join(pieces)
    assert out.writes == 1


async def test_each_tick_is_written_when_it_ends_so_the_first_token_is_not_held() -> None:
    out = CountingStream()
    printer = Printer("c1", out, CountingStream())

    printer(TextDelta("c1", "t1", "first"))
    await asyncio.sleep(0)
    assert out.getvalue() == "first"
    printer(TextDelta("c1", "t1", " second"))
    await asyncio.sleep(0)

    assert out.getvalue() == "first second"
    assert out.writes == 2


async def test_a_status_line_comes_after_the_text_that_streamed_before_it() -> None:
    screen = Shared()
    printer = Printer("c1", screen.stream(), screen.stream())

    printer(TextDelta("c1", "t1", "Let me look."))
    printer(ToolStarted("c1", "t1", "call_1", "read_file", {"path": "a.txt"}))
    printer(TextDelta("c1", "t1", "Done."))
    printer(TurnFinished("c1", "t1", "completed", "Let me look.Done."))

    assert screen.seen.getvalue() == 'Let me look.→ read_file(path="a.txt")\nDone.\n'


def test_without_a_running_loop_each_delta_is_written_at_once() -> None:
    out = CountingStream()
    printer = Printer("c1", out, CountingStream())

    printer(TextDelta("c1", "t1", "a"))

    assert out.getvalue() == "a"


async def test_another_chats_text_is_not_printed() -> None:
    out = CountingStream()
    printer = Printer("c1", out, CountingStream())

    printer(TextDelta("c2", "t9", "not mine"))
    printer(TextDelta("c1", "t1", "mine"))
    printer.flush()

    assert out.getvalue() == "mine"


async def test_a_closed_pipe_in_a_tick_ends_the_output_quietly() -> None:
    class Closed(CountingStream):
        def write(self, text: str) -> int:
            raise BrokenPipeError

        def fileno(self) -> int:
            raise ValueError("no descriptor")  # silence() cannot redirect: still quiet

    printer = Printer("c1", Closed(), CountingStream())
    printer(TextDelta("c1", "t1", "lost"))
    await asyncio.sleep(0)  # the write fails inside the loop's callback

    printer(TextDelta("c1", "t1", "more"))  # later tokens are dropped, not raised
    printer(TurnFinished("c1", "t1", "completed", "lostmore"))
    await asyncio.sleep(0)


def test_a_listener_that_skips_deltas_gets_every_other_event_and_no_delta() -> None:
    stream = EventStream()
    every: list[object] = []
    quiet: list[object] = []
    stream.listen(every.append)
    stream.listen(quiet.append, deltas=False)
    events = [
        TextDelta("c1", "t1", "a"),
        ReasoningDelta("c1", "t1", "b"),
        Notice("c1", "info", "n"),
        TurnFinished("c1", "t1", "completed", "a"),
    ]

    for event in events:
        stream.publish(event)

    assert every == events
    assert quiet == events[2:]


def test_stopping_a_listener_that_skips_deltas_stops_it_for_everything() -> None:
    stream = EventStream()
    got: list[object] = []
    stop = stream.listen(got.append, deltas=False)

    stop()
    stream.publish(Notice("c1", "info", "n"))
    stream.publish(TextDelta("c1", "t1", "a"))

    assert got == []
    with pytest.raises(ValueError):
        stop()  # stopped twice is a bug in the caller, said loudly as before


@pytest.mark.parametrize("name", ["reasoning_content", "reasoning"])
def test_reasoning_is_read_from_a_real_sdk_chunk_without_attribute_misses(name: str) -> None:
    """The fast path reads the SDK's unknown fields from ``__pydantic_extra__``."""
    from openai.types.chat import ChatCompletionChunk

    from tuibot.llm.parts import ReasoningPart, TextPart, parts_from_chunk

    def chunk(delta: dict[str, object]) -> ChatCompletionChunk:
        choice = {"index": 0, "delta": delta, "finish_reason": None}
        body = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
        return ChatCompletionChunk.model_validate({**body, "choices": [choice]})

    assert parts_from_chunk(chunk({"content": "hi", name: "think"})) == [
        ReasoningPart("think"),
        TextPart("hi"),
    ]
    assert parts_from_chunk(chunk({"content": "hi"})) == [TextPart("hi")]
    with pytest.raises(ValueError, match="expected a string"):
        parts_from_chunk(chunk({"content": "hi", name: 5}))
