"""The conversation pane: streamed Markdown, reasoning, tool calls, marks, long chats.

Three layers: the block splitter as a pure function; the streamed answer against plain
Textual Markdown in a minimal app (cell by cell); the real app over the scripted server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypeVar

import pytest
from delegation_helpers import CONFIG, Script, delegate_call
from scripted_server import ScriptedServer, error, text, tool_calls
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.render.mdsplit import BlockSplitter, cuts_are_safe, split_settled
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.blocks import MarkLine, NoticeBlock, ReasoningBlock, UserMessage
from tuibot.tui.widgets.conversation import Conversation
from tuibot.tui.widgets.frozen import FrozenChunk, render_off_screen
from tuibot.tui.widgets.tail import LiveTail
from tuibot.tui.widgets.tool_call import ToolCallRow

W = TypeVar("W", bound=Widget)

# -- the block splitter -------------------------------------------------------------

FENCE_WITH_BLANKS = "Intro.\n\n```python\nx = 1\n\n\ny = 2\n```\n\nAfter.\n"
TILDE_FENCE = "Intro.\n\n~~~\n```\n\nnot a close\n~~~\n\nAfter.\n"
LOOSE_LIST = "- one\n\n- two\n\n  more of two\n\n- three\n\nEnd.\n"
OPEN_FENCE = "Text.\n\n```js\nlet a = 1;\n\nlet b = 2;\n\nlet c = 3;\n"
HTML_COMMENT = "Text.\n\n<!--\n\nhidden\n\n-->\n\nShown.\n"
TRICKY = [FENCE_WITH_BLANKS, TILDE_FENCE, LOOSE_LIST, OPEN_FENCE, HTML_COMMENT]


def _pieces(text: str, step: int) -> list[str]:
    """What a splitter hands back when ``text`` arrives ``step`` characters at a time
    (the last piece is what ``finish`` returns)."""
    splitter = BlockSplitter()
    pieces = [splitter.feed(text[i : i + step]) for i in range(0, len(text), step)]
    return [piece for piece in pieces if piece] + [splitter.finish()]


@pytest.mark.parametrize("source", TRICKY)
def test_cuts_never_split_a_block_and_lose_nothing(source: str) -> None:
    for step in (1, 3, len(source)):
        pieces = _pieces(source, step)
        assert "".join(pieces) == source
        cuts = [len("".join(pieces[:i])) for i in range(1, len(pieces))]
        assert cuts_are_safe(source, cuts), (step, pieces)
    slow, fast = _pieces(source, 1), _pieces(source, len(source))
    assert slow[-1] == fast[-1], "what is settled does not depend on how the text arrives"


def test_blank_lines_inside_fences_and_lists_are_not_boundaries() -> None:
    settled, tail = split_settled(FENCE_WITH_BLANKS)
    assert settled == "Intro.\n\n```python\nx = 1\n\n\ny = 2\n```\n"  # cut after the close
    assert tail == "\nAfter.\n"
    settled, tail = split_settled(TILDE_FENCE)
    assert "not a close" in settled and settled.endswith("~~~\n")
    settled, _ = split_settled(LOOSE_LIST)
    assert settled == "- one\n\n- two\n\n  more of two\n\n- three\n\n"  # one loose list


def test_a_fence_never_closed_settles_only_what_comes_before_it() -> None:
    splitter = BlockSplitter()
    assert splitter.feed(OPEN_FENCE) == "Text.\n\n"
    fence = splitter.live_fence
    assert fence is not None and fence.language == "js" and fence.start == 0
    assert splitter.finish() == OPEN_FENCE[len("Text.\n\n") :]


def test_a_cut_that_would_change_the_rendering_is_caught() -> None:
    assert not cuts_are_safe(LOOSE_LIST, [LOOSE_LIST.index("- two")])
    assert not cuts_are_safe("[a][x]\n\n[x]: http://example.com\n", [8])  # a late reference


# -- the streamed answer against plain Markdown ---------------------------------------

ANSWER = (
    "# Plan\n\nSome **bold** text and `code`.\n\n"
    + "\n".join(f"{i}. step {i} of the plan" for i in range(1, 12))
    + "\n\n> quoted\n> lines\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## Code\n"
    + "```python\n"
    + "\n".join(f"value_{i} = compute({i})" + ("\n" if i % 9 == 0 else "") for i in range(40))
    + "\n```\nAfter the fence.\n\n- a\n- b\n  - nested\n\n~~~\nraw\n~~~\n\nThe end.\n"
)


class Frame(App[None]):
    """The widget under test in a scroll view, as the conversation holds it."""

    CSS = "VerticalScroll { scrollbar-gutter: stable; } VerticalScroll > Markdown { padding: 0 1; }"

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.widget


def _cells(widget: Widget) -> list[list[tuple[Any, ...]]]:
    """Every cell the widget draws: character, colours (foreground on text), styles."""
    rows = []
    for strip in render_off_screen(widget) or []:
        row = []
        for segment in strip:
            style = segment.style
            assert style is not None
            for char in segment.text:
                color = None if char == " " else str(style.color)
                row.append((char, color, str(style.bgcolor), style.bold, style.italic))
        rows.append(row)
    return rows


async def _drawn(
    widget: Widget, feed: list[str] | None = None, size: tuple[int, int] = (80, 60)
) -> tuple[list[list[tuple[Any, ...]]], list[type[Widget]]]:
    """The cells ``widget`` draws once settled, and the types of its children."""
    app = Frame(widget)
    async with app.run_test(size=size) as pilot:
        if feed is not None:
            assert isinstance(widget, AnswerView)
            for piece in feed:
                widget.feed(piece)
                await asyncio.sleep(1 / 60)
            widget.finish()
            await until(pilot, lambda: widget.finished)
            assert widget.source == ANSWER, "the view holds exactly the streamed text"
        # Markdown mounts its blocks over a few frames: wait for two equal draws.
        drawn: list[list[tuple[Any, ...]]] = []
        for _ in range(50):
            await pilot.pause(0.1)
            again = _cells(widget)
            if again == drawn:
                break
            drawn = again
        return drawn, [type(child) for child in widget.children]


async def test_a_streamed_answer_looks_like_the_whole_text_rendered_at_once() -> None:
    pieces = [ANSWER[i : i + 9] for i in range(0, len(ANSWER), 9)]
    streamed = AnswerView(live=True)
    drawn, children = await _drawn(streamed, pieces)
    assert children == [FrozenChunk], "settled lines are one widget, the tail is gone"
    whole, _ = await _drawn(Markdown(ANSWER))
    assert drawn == whole


async def test_the_tail_updates_in_place_and_matches_markdown() -> None:
    text = "- one\n- two\n\n  more\n- three\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    tail = LiveTail()
    app = Frame(tail)
    async with app.run_test(size=(60, 30)) as pilot:
        first_row = None
        for end in range(4, len(text) + 1, 5):
            await tail.show(text[:end])
            await pilot.pause()
            rows = tail.query("Horizontal")
            first_row = first_row or (rows.first() if rows else None)
        await tail.show(text)
        await pilot.pause()
        assert first_row is not None and first_row.is_attached, "items are updated, not rebuilt"
        shown = _cells(tail)
    whole, _ = await _drawn(Markdown(text), size=(60, 30))
    assert shown == whole


# -- the real app ---------------------------------------------------------------------


def _blocks(app: TuibotApp) -> list[Widget]:
    return app.conversation.blocks


def _of(app: TuibotApp, kind: type[W]) -> list[W]:
    return [block for block in _blocks(app) if isinstance(block, kind)]


REPLY = "# Files\n\nThere are **two** folders:\n\n- `data`\n- `home`\n"


async def test_a_turn_streams_reasoning_tool_calls_and_the_answer(server: ScriptedServer) -> None:
    server.enqueue(
        tool_calls([("list_dir", json.dumps({"path": "."}))]),
        text(REPLY, reasoning="Let me look at the folder first."),
    )
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(app.current_chat, "What is here?")
        await until(pilot, lambda: any(a.finished and a.text for a in _of(app, AnswerView)))
        assert [m.source for m in _of(app, UserMessage)] == ["What is here?"], "shown once"
        [row] = _of(app, ToolCallRow)
        assert (row.tool, row.status) == ("list_dir", "ok")
        assert row.duration is not None and "✓ ok" in row.render_content().plain
        [answer] = _of(app, AnswerView)
        assert answer.source == REPLY
        [reasoning] = _of(app, ReasoningBlock)
        assert not reasoning.expanded and "Let me look" not in reasoning.render_content().plain

        await pilot.press("ctrl+r")
        assert reasoning.expanded and "Let me look" in reasoning.render_content().plain
        await pilot.press("ctrl+o")
        shown = row.render_content().plain
        assert '"path": "."' in shown and "result" in shown, "arguments and result"

        chat = app.current_chat
        assert chat is not None
        app.action_new_chat()
        await until(pilot, lambda: not _blocks(app))
        app.open_chat(chat)
        history = app.conversation.history
        await until(pilot, lambda: bool(history.entries) and not history.missing)
        assert not _blocks(app), "a reopened chat is all history: no widget per block"
        kinds = [entry.kind for entry in history.entries]
        assert kinds == ["user", "tool", "reasoning", "answer"]
        shown = "\n".join(history.text_of_rows(0, history.size.height))
        assert "What is here?" in shown and "There are two folders:" in shown
        assert "✓ ok" in shown and '"path": "."' in shown, "history rows follow the toggle"
        assert "Let me look at the folder first." in shown


async def test_an_interrupted_answer_is_marked(server: ScriptedServer) -> None:
    server.enqueue(text("word " * 400, pieces=400, delay=0.02))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(app.current_chat, "Talk a lot.")
        await until(pilot, lambda: any(len(a.text) > 20 for a in _of(app, AnswerView)))
        app.action_interrupt()
        await until(pilot, lambda: bool(_of(app, MarkLine)))
        [mark] = _of(app, MarkLine)
        assert mark.has_class("-interrupted") and "interrupted" in str(mark.render())
        [answer] = _of(app, AnswerView)
        await until(pilot, lambda: answer.finished)
        assert answer.source.startswith("word word") and len(answer.source) < 2000


async def test_a_failed_turn_shows_one_error(server: ScriptedServer) -> None:
    server.enqueue(error(400, message="the model said no"))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(app.current_chat, "Hello?")
        await until(pilot, lambda: bool(_of(app, MarkLine)))
        await pilot.pause(0.2)
        errors = [mark for mark in _of(app, MarkLine) if mark.has_class("-error")]
        assert len(errors) == 1 and "the model said no" in str(errors[0].render())


async def test_a_delegation_result_is_shown_as_a_notice(server: ScriptedServer) -> None:
    Script(
        server,
        [
            ("gives you this task", text("Researched: it is fine.")),
            ("is done", text("Good news: it is fine.")),
            ('"delegation"', text("Handed off.")),
            ("Start", delegate_call("Research the thing", {"timeMs": 600_000, "steps": 5})),
        ],
    )
    config = CONFIG.format(url=server.url, price=0, approval_timeout=30, delegation="")
    app = make_app(server, config)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(None, "Start")
        await until(pilot, lambda: bool(_of(app, NoticeBlock)), timeout=20)
        [notice] = _of(app, NoticeBlock)
        assert "is done" in notice.source and "Researched: it is fine." in notice.source
        await until(pilot, lambda: any("Good news" in a.text for a in _of(app, AnswerView)))


class _Probe(Conversation):
    """Counts nothing; only here so the Conversation type is used in a minimal app."""


async def test_conversation_clears_for_no_chat() -> None:
    conversation = _Probe()
    app = Frame(conversation)
    async with app.run_test(size=(60, 20)) as pilot:
        conversation.show_chat("c_x", [{"role": "user", "content": "hi"}])
        await until(pilot, lambda: not conversation.history.missing)
        assert "hi" in "".join(conversation.history.text_of_rows(0, 5))
        conversation.show_chat("", [])
        await pilot.pause()
        assert not conversation.history.entries and conversation.chat is None
        assert conversation.history.virtual_size.height == 0
