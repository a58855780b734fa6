"""What one frame of a streamed answer costs the screen, while the view follows the end.

Each frame the answer grows and every line on screen moves, so the screen draws the
whole view again and lays out what grew. These tests pin two repetitions away (see
:mod:`tuibot.tui.widgets.lean`): the containers around the answer draw their background
lines once per kind, not once per line on every frame, and a container that takes its
content's height is laid out once per frame, not once to measure it and once more.
The drawing itself must not change: the snapshot and drawn-cell tests compare it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.layouts.vertical import VerticalLayout
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static
from tui_helpers import until

from tuibot.events import TurnStarted
from tuibot.tui.messages import StreamBatch
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.conversation import Conversation
from tuibot.tui.widgets.lean import LeanContainer

CHAT, TURN = "c_lean", "t_lean"
SIZE = (80, 20)


class FeedApp(App[None]):
    """The conversation pane alone."""

    def compose(self) -> ComposeResult:
        yield Conversation()


async def _streaming(pilot: Any, conversation: Conversation, lines: int) -> AnswerView:
    """An answer streamed far past the view's height; the view follows its end."""
    conversation.apply(TurnStarted(CHAT, TURN, "Assistant", "model", input="Go."))
    text = "".join(f"Line {n} of the answer.\n\n" for n in range(lines))
    conversation.apply_stream(StreamBatch(CHAT, TURN, text, ""))
    answer = conversation.query_one(AnswerView)
    await until(pilot, lambda: answer.source == text, 30)
    await pilot.pause()
    assert conversation.following and conversation.max_scroll_y > 0
    return answer


async def _grow(pilot: Any, conversation: Conversation, answer: AnswerView, frames: int) -> None:
    """Grow the answer by a paragraph a frame, waiting until each is on screen."""
    for n in range(frames):
        text = f"One more line, number {n}.\n\n"
        conversation.apply_stream(StreamBatch(CHAT, TURN, text, ""))
        await until(pilot, lambda text=text: answer.source.endswith(text), 10)
        await pilot.pause()


async def test_a_growing_answer_draws_the_background_of_its_containers_once_per_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = FeedApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.query_one(Conversation)
        answer = await _streaming(pilot, conversation, 40)
        watched = {conversation: "view", conversation._body: "blocks", answer: "answer"}
        drawn: Counter[str] = Counter()
        render_line = Widget.render_line

        def spy(widget: Widget, y: int) -> Strip:
            if widget in watched:
                drawn[watched[widget]] += 1
            return render_line(widget, y)

        monkeypatch.setattr(Widget, "render_line", spy)
        frames = 6
        await _grow(pilot, conversation, answer, frames)
    height = SIZE[1]
    assert drawn["answer"] or drawn["view"], "the frames were drawn"
    for name in ("view", "blocks", "answer"):
        assert drawn[name] <= 2 * frames, f"{name}: {drawn[name]} background lines drawn"
    assert sum(drawn.values()) < frames * height, drawn


async def test_a_frame_lays_out_the_answer_once(monkeypatch: pytest.MonkeyPatch) -> None:
    app = FeedApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.query_one(Conversation)
        answer = await _streaming(pilot, conversation, 40)
        laid_out: Counter[str] = Counter()
        arrange = VerticalLayout.arrange
        view_arrange = Conversation.arrange

        def spy(layout: VerticalLayout, parent: Widget, *args: Any, **kwargs: Any) -> Any:
            if parent is answer or parent is conversation._body:
                laid_out["answer" if parent is answer else "blocks"] += 1
            return arrange(layout, parent, *args, **kwargs)

        def view_spy(view: Conversation, size: Size, optimal: bool = False) -> DockArrangeResult:
            laid_out["view"] += 1
            return view_arrange(view, size, optimal)

        monkeypatch.setattr(VerticalLayout, "arrange", spy)
        monkeypatch.setattr(Conversation, "arrange", view_spy)
        await _grow(pilot, conversation, answer, 6)
    assert laid_out["view"] >= 6, laid_out
    assert laid_out["blocks"] <= laid_out["view"], laid_out
    assert laid_out["answer"] <= laid_out["view"], laid_out


class Plain(LeanContainer, Widget):
    """A lean container with padding and a background."""

    DEFAULT_CSS = "Plain { height: auto; padding: 1 2; background: red 30%; }"


class Boxed(Plain):
    DEFAULT_CSS = "Boxed { border: round green; }"


class Stack(App[None]):
    def compose(self) -> ComposeResult:
        yield Plain(Static("a\nb\nc"), Static("d"))
        yield Boxed(Static("e\nf"))


@pytest.mark.parametrize("kind", [Plain, Boxed])
async def test_a_lean_container_draws_the_lines_textual_draws(kind: type[Widget]) -> None:
    """Line by line, padding and all (a border goes Textual's way); laid out alike."""
    app = Stack()
    async with app.run_test(size=(30, 16)) as pilot:
        await pilot.pause()
        widget = app.query_one(kind)
        region = widget.outer_size.region
        lean = widget.render_lines(region)
        widget.refresh()  # drop the drawn lines: Textual draws them all again
        textual = Widget.render_lines(widget, region)
        assert widget.size.height >= 2
        inner = widget.content_size
        arranged = widget.arrange(inner)
        fresh = Widget.arrange(widget, Size(inner.width, inner.height + 1))
    assert [list(strip) for strip in lean] == [list(strip) for strip in textual]
    assert [p.region for p in fresh.placements] == [p.region for p in arranged.placements]
