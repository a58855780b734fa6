"""How much work a streamed answer costs per frame: guards for the streaming benchmark.

``tests/bench/bench_stream.py`` measures the speed; these tests pin the reasons it is
fast, each of which a change could undo without any drawing test noticing: a layout of
the conversation arranges it once (not once more to look a child's place up); counting
the blocks of settled text does not build their widgets; text that comes in a burst is
drawn off screen, never laid out by the screen; text the live tail has drawn already is
copied, not drawn again. They also stream long answers of the benchmark's own corpus,
in bursts and in a trickle, and require what is drawn to equal a fresh render.
"""

from __future__ import annotations

from typing import Any

import pytest
from bench.markdown_corpus import answer_tokens
from test_tui_drawn import _differ, settled_cells
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.layout import DockArrangeResult
from tui_helpers import until

from tuibot.events import EventStream, TextDelta, TurnFinished, TurnStarted
from tuibot.tui import compat
from tuibot.tui.bridge import EngineBridge
from tuibot.tui.messages import EngineEvent, StreamBatch
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.conversation import Conversation
from tuibot.tui.widgets.tail import LiveTail, _parser

CHAT, TURN = "c_work", "t_work"


class CountingConversation(Conversation):
    """Records how deep ``arrange`` calls nest (2: a layout started another one)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.deepest = 0
        self.calls = 0

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        self.depth += 1
        self.calls += 1
        self.deepest = max(self.deepest, self.depth)
        try:
            return super().arrange(size, optimal)
        finally:
            self.depth -= 1


class StreamApp(App[None]):
    """The conversation pane fed through the real bridge, as the benchmark feeds it."""

    def __init__(self, conversation: Conversation) -> None:
        super().__init__()
        self.conversation = conversation

    def compose(self) -> ComposeResult:
        yield self.conversation

    def on_stream_batch(self, message: StreamBatch) -> None:
        self.conversation.apply_stream(message)

    def on_engine_event(self, message: EngineEvent) -> None:
        self.conversation.apply(message.event)


async def _stream(app: StreamApp, pilot: Any, tokens: list[str], per_tick: int) -> AnswerView:
    """Publish ``tokens`` as engine events, ``per_tick`` between two yields; the answer."""
    events = EventStream()
    bridge = EngineBridge(events, app.post_message)
    events.publish(TurnStarted(CHAT, TURN, "Assistant", "model", input="Explain."))
    await pilot.pause()
    for start in range(0, len(tokens), per_tick):
        for token in tokens[start : start + per_tick]:
            events.publish(TextDelta(CHAT, TURN, token))
        await pilot.pause()
    text = "".join(tokens)
    events.publish(TurnFinished(CHAT, TURN, "completed", text))
    await until(pilot, lambda: bool(app.query(AnswerView)), 60)
    answer = app.query_one(AnswerView)
    await until(pilot, lambda: answer.finished, 120)
    bridge.close()
    assert answer.source == text
    return answer


async def test_a_layout_arranges_the_conversation_once() -> None:
    conversation = CountingConversation()
    app = StreamApp(conversation)
    async with app.run_test(size=(100, 30)) as pilot:
        await _stream(app, pilot, answer_tokens(1500), per_tick=20)
    assert conversation.calls > 10, "the stream was laid out many times"
    assert conversation.deepest == 1, "a layout of the conversation started another one"


@pytest.mark.parametrize("tokens", [300, 1500, 4000])
async def test_counting_blocks_agrees_with_the_blocks_markdown_builds(tokens: int) -> None:
    tail = LiveTail()
    text = "".join(answer_tokens(tokens))
    extra = "Text.\n\n---\n\n    indented code\n\n<div>\nraw\n</div>\n\n> quote\n>\n> more\n"
    async with App[None]().run_test():  # blocks are widgets: they need an app
        for sample in (text, text + extra, extra, "", "\n\n"):
            built = compat.parse_blocks(tail, _parser().parse(sample))
            assert tail.count_blocks(sample) == len(built)


def test_counting_blocks_builds_no_widget(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("count_blocks built the widgets to count them")

    monkeypatch.setattr(compat, "parse_blocks", refuse)
    assert LiveTail().count_blocks("# A\n\nB.\n\n- c\n- d\n") == 3


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("tokens", "per_tick", "width"), [(6000, 400, 100), (1500, 4, 72)])
async def test_the_benchmark_answer_streamed_draws_as_a_fresh_render(
    tokens: int, per_tick: int, width: int
) -> None:
    """Bursts (most pieces never reach the live tail) and a trickle (every block does)."""
    app = StreamApp(Conversation())
    async with app.run_test(size=(width, 40)) as pilot:
        streamed = await _stream(app, pilot, answer_tokens(tokens), per_tick)
        assert not streamed.query(".staging, .tail"), "only the drawn lines are left"
        fresh = AnswerView(streamed.text)
        await app.conversation._body.mount(fresh)
        want = await settled_cells(pilot, fresh)
        got = await settled_cells(pilot, streamed)
    assert want, "the fresh render draws something"
    assert _differ(got, want) == [], "streamed cells differ from a fresh render"


async def test_a_burst_reaches_the_screen_as_lines_not_as_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Settled text is drawn off screen: the visible tail only ever holds the live end."""
    shown: list[int] = []
    show = LiveTail.show

    async def counting(self: LiveTail, text: str) -> None:
        await show(self, text)
        if self.has_class("tail"):
            shown.append(len(self.blocks))

    monkeypatch.setattr(LiveTail, "show", counting)
    app = StreamApp(Conversation())
    async with app.run_test(size=(100, 40)) as pilot:
        await _stream(app, pilot, answer_tokens(6000), per_tick=400)
    assert len(shown) > 5, "the tail was drawn many times"
    later = max(shown[1:])  # the first frame comes before the answer has a width
    assert later <= 3, f"the screen laid out settled blocks too: {later} at once"


async def test_text_the_tail_has_drawn_is_copied_not_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Slow text: every block grows in the tail, whose drawn lines are copied as they are."""
    staged: list[str] = []
    show = LiveTail.show

    async def counting(self: LiveTail, text: str) -> None:
        if self.has_class("staging"):
            staged.append(text)
        await show(self, text)

    monkeypatch.setattr(LiveTail, "show", counting)
    app = StreamApp(Conversation())
    async with app.run_test(size=(100, 40)) as pilot:
        answer = await _stream(app, pilot, answer_tokens(1500), per_tick=5)
    assert answer.text.count("\n\n") > 10, "the answer has many blocks"
    assert len(staged) <= 2, f"{len(staged)} pieces the tail had drawn were drawn again"
