"""Stored history drawn as lines: where blocks sit, how they look, long chats.

Three layers: the row map as plain data; a conversation in a minimal app, drawn cell by
cell against the live widgets; the real app over the scripted server with long chats.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from rich.segment import Segment
from scripted_server import ScriptedServer
from test_tui_approvals import exec_responder
from textual.app import App, ComposeResult
from textual.widget import Widget
from tui_helpers import SIZE, make_app, ready, until

from tuibot.approvals import Decision
from tuibot.tui.app import TuibotApp
from tuibot.tui.render.history_rows import Drawing, HistoryRows
from tuibot.tui.render.rowmap import RowMap
from tuibot.tui.widgets import history_drawing
from tuibot.tui.widgets.conversation import Conversation
from tuibot.tui.widgets.frozen import render_off_screen
from tuibot.tui.widgets.history_blocks import build, entries_of
from tuibot.tui.widgets.history_lines import HistoryLines
from tuibot.tui.widgets.tool_call import ToolCallRow

# -- the row map ------------------------------------------------------------------------


def test_the_row_map_finds_blocks_by_row_and_rows_by_block() -> None:
    rows = RowMap([2, 5, 1])
    assert rows.total == 8
    assert [rows.at(y) for y in range(8)] == [0, 0, 1, 1, 1, 1, 1, 2]
    assert rows.at(-3) == 0 and rows.at(99) == 2, "clamped to the first and last block"
    assert [rows.start(i) for i in range(4)] == [0, 2, 7, 8]
    assert list(rows.span(1, 3)) == [0, 1] and list(rows.span(3, 3)) == []
    assert rows.set(1, 9) == 4
    assert rows.total == 12 and rows.start(2) == 11 and rows.at(10) == 1
    assert RowMap().at(0) == -1 and RowMap().total == 0


# -- how history looks ------------------------------------------------------------------

ANSWER = (
    "# Plan\n\nSome **bold** text and `code`.\n\n"
    + "\n".join(f"{i}. step {i} of the plan" for i in range(1, 8))
    + "\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = compute(1)\n```\n"
)


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _turn(n: int, *, answer: str = "", result: bool = True) -> list[dict[str, Any]]:
    """A stored turn: a question, reasoning with a tool call, its result, an answer."""
    call = _call(f"call_{n}", "list_dir", f'{{"path": "dir{n}"}}')
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": f"Question {n}?"},
        {"role": "assistant", "content": None, "reasoning": f"Think {n}.", "tool_calls": [call]},
    ]
    if result:
        messages.append({"role": "tool", "tool_call_id": f"call_{n}", "content": f"f{n}.md"})
        messages.append({"role": "assistant", "content": answer or f"Answer **{n}**."})
    return messages


def _mixed() -> list[dict[str, Any]]:
    bad = _call("call_x", "read_file", '{"path": "x"}')
    return [
        *_turn(1, answer=ANSWER),
        {"role": "assistant", "content": None, "tool_calls": [bad]},
        {"role": "tool", "tool_call_id": "call_x", "content": "Error: no such file"},
        {"role": "user", "content": "[tuibot] A result arrived.", "notice": True},
        {"role": "assistant", "content": "Half an ans", "status": "interrupted"},
        {"role": "assistant", "content": "Stopped.", "status": "round_limit"},
    ]


class Frame(App[None]):
    """A conversation alone, as the app holds it."""

    def __init__(self) -> None:
        super().__init__()
        self.conversation = Conversation()

    def compose(self) -> ComposeResult:
        yield self.conversation


def _cells(widget: Widget) -> list[list[Any]]:
    return [list(strip) for strip in render_off_screen(widget) or []]


async def _settled(pilot: Any, widget: Widget) -> list[list[Any]]:
    """The widget's cells once two draws a tenth of a second apart agree (an answer
    swaps its Markdown for frozen lines a moment after it is laid out)."""
    drawn: list[list[Any]] = []
    for _ in range(60):
        await pilot.pause(0.1)
        again = _cells(widget)
        if again and again == drawn:
            break
        drawn = again
    return drawn


def _shown(history: HistoryLines) -> str:
    """The text of every drawn row of the history."""
    return "\n".join(history.text_of_rows(0, history.size.height))


@pytest.mark.parametrize("folds", [False, True])
async def test_history_is_drawn_cell_for_cell_like_the_live_blocks(folds: bool) -> None:
    app = Frame()
    async with app.run_test(size=(90, 160)) as pilot:
        conversation = app.conversation
        conversation.set_reasoning_visible(folds)
        conversation.set_tool_output_visible(folds)
        conversation.show_chat("c_1", _mixed())
        history = conversation.history
        await until(pilot, lambda: history.idle and not history.missing)
        drawn = _cells(conversation)
        assert "step 7 of the plan" in _shown(history)

        conversation.show_chat("c_1", [])
        entries = entries_of(_mixed())
        widgets = [build(e, reasoning=folds, tool_output=folds) for e in entries]
        await conversation._body.mount_all(widgets)
        # Markdown widgets finish their layout over several frames, later under load.
        with contextlib.suppress(TimeoutError):
            await until(pilot, lambda: _cells(conversation) == drawn, timeout=20)
        live = await _settled(pilot, conversation)
        differ = [y for y, (a, b) in enumerate(zip(drawn, live, strict=False)) if a != b]
        assert (len(drawn), differ) == (len(live), []), "the same cells as the blocks as widgets"


# -- long chats in the real app ---------------------------------------------------------


def _long_chat(app: TuibotApp, turns: int, **kwargs: Any) -> str:
    engine = app.engine
    assert engine is not None
    chat = engine.chats.create(title="long").id
    engine.chats.append(chat, [m for n in range(turns) for m in _turn(n, **kwargs)])
    return chat


async def _opened(pilot: Any, app: TuibotApp, chat: str) -> HistoryLines:
    app.open_chat(chat)
    history, conversation = app.conversation.history, app.conversation
    await until(
        pilot,
        lambda: conversation.whole and bool(history.entries) and not history.missing,
        timeout=20,
    )
    await until(pilot, lambda: history.idle, timeout=20)
    return history


async def test_a_long_chat_shows_its_end_before_its_file_is_read_whole(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = _long_chat(app, 1250)  # 5,000 messages
        assert app.engine is not None
        chats, loads = app.engine.chats, []
        load = chats.load
        monkeypatch.setattr(chats, "load", lambda *a, **k: loads.append(a) or load(*a, **k))
        app.open_chat(chat)
        conversation, history = app.conversation, app.conversation.history
        assert not loads and not conversation.whole, "only the end was read to open it"
        assert 40 <= len(history.entries) < 1000
        await until(pilot, lambda: not history.missing)
        assert "Answer 1249." in _shown(history)
        await until(pilot, lambda: conversation.whole, timeout=20)
        assert len(loads) == 1 and len(history.entries) == 5000 and len(conversation.stored) == 5000
        await until(pilot, lambda: not history.missing)
        assert conversation.following and "Answer 1249." in _shown(history), "still at the end"
        conversation.action_top()
        await until(pilot, lambda: not history.missing)
        assert conversation.scroll_y == 0 and "Question 0?" in _shown(history)


async def test_opening_a_chat_lays_out_no_screen_with_its_view_not_drawn(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = _long_chat(app, 1250)
        history, laid_out = app.conversation.history, []
        await pilot.pause(0.3)
        app.screen.screen_layout_refresh_signal.subscribe(
            app.screen, lambda _: laid_out.append(history.missing), immediate=True
        )
        app.open_chat(chat)
        await until(pilot, lambda: app.conversation.whole and not history.missing, timeout=20)
        await until(pilot, lambda: history.idle, timeout=20)
        assert laid_out and not any(laid_out), "no frame shows the history with blocks missing"


@pytest.mark.parametrize("answer", ["", ANSWER], ids=["short answers", "answers cut in pieces"])
async def test_a_chat_opened_is_drawn_to_its_end_before_its_first_frame(
    server: ScriptedServer, answer: str
) -> None:
    """Answers cut in pieces take other rows than estimated whole: the view drawn with
    the screen held must be the end after the cut, or the first frame lacks the last
    pieces (and the open waits two frames more for them)."""
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = _long_chat(app, 1250, answer=answer)
        history, after = app.conversation.history, []
        draw_held = history._draw_view_held

        async def recorded() -> bool:
            drawn = await draw_held()
            top, height = history._view
            after.append((history.rows.total - top - height, history.missing))
            return drawn

        history._draw_view_held = recorded  # type: ignore[method-assign]
        app.open_chat(chat)
        await until(pilot, lambda: bool(after))
        assert after == [(0, 0)], "(rows below the view, blocks missing in it)"


async def test_the_row_being_read_stays_put_when_the_start_of_the_chat_arrives(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        conversation, history = app.conversation, app.conversation.history
        started = asyncio.Event()
        read = history.settled

        async def held() -> None:  # the start is read only once the test scrolled
            await read()
            await started.wait()

        history.settled = held  # type: ignore[method-assign]
        app.open_chat(_long_chat(app, 1250))
        await until(pilot, lambda: bool(history.entries) and not history.missing)
        conversation.focus()
        await pilot.press("pageup")
        await until(pilot, lambda: not history.missing and history.idle, timeout=20)
        top = round(conversation.scroll_y)
        text = history.text_of_rows(top - history.virtual_region.y, top + 5)
        started.set()
        await until(pilot, lambda: conversation.whole, timeout=20)
        await pilot.pause(0.2)
        top = round(conversation.scroll_y)
        assert not conversation.following and top > 1000, "the start went above the view"
        assert history.text_of_rows(top - history.virtual_region.y, top + 5) == text


async def test_a_long_chat_opens_at_its_end_drawing_only_blocks_near_the_view(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        history = await _opened(pilot, app, _long_chat(app, 1250))  # 5,000 messages
        assert len(history.entries) == 5000
        conversation = app.conversation
        assert conversation.following and conversation.scroll_y == conversation.max_scroll_y
        assert "Answer 1249." in _shown(history)
        drawn = len(history.rows.drawings)
        reach = conversation.size.height * (1 + 2 * history_drawing.PREFETCH_SCREENS)
        assert 0 < drawn <= reach // 2, f"only blocks near the view are drawn, not {drawn}"
        assert not conversation.blocks, "no widget per stored block"


async def test_scrolling_up_keeps_the_block_being_read_in_place(server: ScriptedServer) -> None:
    long_answer = "\n".join(f"line {i}" for i in range(30))  # estimated short, drawn tall
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        history = await _opened(pilot, app, _long_chat(app, 300, answer=long_answer))
        conversation = app.conversation
        conversation.scroll_to(y=conversation.max_scroll_y // 2, animate=False, immediate=True)
        await until(pilot, lambda: not history.missing)
        top = round(conversation.scroll_y)
        text = history.text_of_rows(top, top + 5)
        heights = history.size.height
        await until(pilot, lambda: history.idle, timeout=20)
        assert history.size.height != heights, "blocks around the view were drawn meanwhile"
        assert round(conversation.scroll_y) != top, "so the view moved with what it shows"
        top = round(conversation.scroll_y)
        assert history.text_of_rows(top, top + 5) == text, "the same lines at the same rows"

        conversation.focus()
        await pilot.press("pageup")
        await until(pilot, lambda: not history.missing)
        assert round(conversation.scroll_y) < top and not conversation.following

        await pilot.press("home")
        await until(pilot, lambda: not history.missing)
        assert conversation.scroll_y == 0 and "Question 0?" in _shown(history)
        await pilot.press("end")
        await until(pilot, lambda: not history.missing)
        assert conversation.following and "line 29" in "\n".join(
            history.text_of_rows(history.size.height - 10, history.size.height)
        )


async def test_a_view_moved_while_drawing_ahead_rests_is_drawn_at_once(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drawing ahead rests between batches (frames are painted meanwhile); a held page
    key moves the view into blocks not drawn yet during that rest, and they must be
    drawn then, not when the rest is over."""
    monkeypatch.setattr(history_drawing, "PREFETCH_PAUSE_S", 30.0)
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.open_chat(_long_chat(app, 1250))
        history, conversation = app.conversation.history, app.conversation
        await until(pilot, lambda: bool(history.rows.drawings) and not history.missing)
        conversation.scroll_to(y=conversation.max_scroll_y // 2, animate=False, immediate=True)
        await until(pilot, lambda: not history.missing, timeout=5)


async def test_page_keys_in_the_composer_page_the_conversation(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _opened(pilot, app, _long_chat(app, 200))
        conversation = app.conversation
        bottom = conversation.scroll_y
        assert app.focused is app.composer
        page = conversation.scrollable_content_region.height
        await pilot.press("pageup")
        up = conversation.scroll_y
        assert up <= bottom - page // 2, "about a page up (blocks drawn above may shift it)"
        assert not conversation.following and app.focused is app.composer
        await pilot.press("pagedown")
        assert conversation.scroll_y >= up + page // 2


async def test_stored_tool_calls_and_reasoning_open_and_close(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        history = await _opened(pilot, app, _long_chat(app, 3))
        assert "f2.md" not in _shown(history)
        history.focus()
        await pilot.press("up")  # the cursor lands on the last tool call or reasoning
        assert history.cursor is not None and history.entries[history.cursor].foldable
        while history.entries[history.cursor].kind != "tool":
            await pilot.press("up")
        opened = history.entries[history.cursor]
        row = history.rows.block_rows(history.rows.unit_of(history.cursor)).start
        plain = history.rows.line_at(row) or []
        shown = list(history.render_line(row))
        cursor = history.get_component_rich_style("history--cursor").bgcolor

        def colours(segments: list[Segment]) -> list[Any]:
            return [(c, s.style and s.style.color) for s in segments for c in s.text if c != " "]

        assert colours(shown) == colours(plain), "the highlighted row keeps its text colours"
        assert {s.style.bgcolor for s in shown if s.style and s.text.strip()} == {cursor}
        await pilot.press("enter")
        await until(pilot, lambda: not history.missing)
        assert f'"path": "{opened.arguments["path"]}"' in _shown(history)
        await pilot.press("enter")
        await until(pilot, lambda: not history.missing)
        assert '"path"' not in _shown(history)

        await pilot.press("ctrl+o")
        await until(pilot, lambda: not history.missing)
        assert all(f"f{n}.md" in _shown(history) for n in range(3)), "every result shown"
        assert "Think 2." not in _shown(history)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: not history.missing)
        assert "Think 2." in _shown(history)


async def test_a_click_opens_a_stored_tool_call(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        history = await _opened(pilot, app, _long_chat(app, 1))
        [tool] = [i for i, e in enumerate(history.entries) if e.kind == "tool"]
        row = history.rows.block_rows(history.rows.unit_of(tool)).start
        await pilot.click(HistoryLines, offset=(4, row))
        await until(pilot, lambda: not history.missing)
        assert history.is_open(tool) and '"path": "dir0"' in _shown(history)


async def test_a_call_running_when_the_chat_opens_gets_its_result_in_place(
    server: ScriptedServer,
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        chat = engine.new_chat(title="mid-turn").id
        await engine.send(chat, "run: echo hi")
        await until(pilot, lambda: bool(engine.approvals.pending()))  # the turn waits
        app.open_chat(engine.new_chat().id)
        history = await _opened(pilot, app, chat)
        assert "⋯ running" in _shown(history), "not marked interrupted while it runs"
        [request] = engine.approvals.pending()
        engine.decide(request.id, Decision(True, "once"))
        await until(pilot, lambda: "✓ ok" in _shown(history))
        assert not any(isinstance(b, ToolCallRow) for b in app.conversation.blocks), (
            "updated in the history, not added below it"
        )


async def test_drawn_lines_are_bounded_however_far_one_scrolls(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history_drawing, "CACHED_LINES", 300)
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        history = await _opened(pilot, app, _long_chat(app, 400))
        conversation = app.conversation
        for _ in range(12):
            conversation.scroll_page_up(animate=False)
            await until(pilot, lambda: not history.missing)
        await until(pilot, lambda: history.idle, timeout=20)
        assert sum(len(d.lines) for d in history.rows.drawings.values()) <= 300
        assert not history.missing, "what is in view stays drawn"


async def test_a_resized_view_is_drawn_again_at_its_width(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        history = await _opened(pilot, app, _long_chat(app, 3, answer="word " * 60))
        wide = history.size.width
        await pilot.resize_terminal(100, 40)
        await until(pilot, lambda: history.size.width != wide and not history.missing)
        await until(pilot, lambda: history.idle)
        top = round(app.conversation.scroll_y)
        for y in range(top, top + history.size.height // 2):
            assert history.render_line(y).cell_length == history.size.width
        assert "word word" in _shown(history)


# -- the bookkeeping of units, pieces and the held row -----------------------------------


def _rows(heights: list[int]) -> HistoryRows:
    """Units with these estimated heights (a piece is estimated at 3 rows)."""
    return HistoryRows(
        len(heights), lambda unit: 3 if unit.piece is not None else heights[unit.entry]
    )


def _drawing(rows: int, *, top: int = 0, bottom: int = 0) -> Drawing:
    lines = [[Segment(f"row {n}")] for n in range(rows)]
    return Drawing(lines, 0, top, bottom)


def test_the_held_row_follows_its_content_when_units_above_are_drawn_or_cut() -> None:
    rows = _rows([4, 10, 4, 4])
    rows.hold(19)  # a row into unit 3 (which starts at 4 + 10 + 4 = 18)
    rows.store(0, _drawing(7))
    assert rows.held_row() == 22, "unit 0 grew by 3 rows, so the held content is 3 lower"
    rows.split(1, ["a", "b", "c", "d"])
    assert [u.entry for u in rows.units] == [0, 1, 1, 1, 1, 2, 3]
    assert rows.anchor == (6, 1) and rows.held_row() == 7 + 4 * 3 + 4 + 1
    assert rows.unit_of(2) == 5 and rows.unit_of(1) == 1


def test_holding_a_unit_that_is_cut_keeps_the_row_in_the_piece_it_falls_in() -> None:
    rows = _rows([10])
    rows.hold(7)
    rows.split(0, ["a", "b", "c"])
    assert rows.anchor == (2, 1) and rows.held_row() == 7


def test_a_piece_leaves_out_the_margin_the_piece_above_already_gives() -> None:
    rows = _rows([10, 2])
    rows.split(0, ["first", "second"])
    rows.store(1, _drawing(5, top=1, bottom=1))  # above not drawn yet: its margin assumed
    assert rows.rows.height(1) == 4 and rows.line_at(3) == [Segment("row 1")]
    rows.store(0, _drawing(6, top=1, bottom=0))  # its last block has no bottom margin
    assert rows.rows.height(1) == 5, "nothing to collapse: the piece keeps its margin"
    assert rows.line_at(6) == [Segment("row 0")]


def test_units_put_first_move_the_others_with_their_drawings_and_the_held_row() -> None:
    heights = [4, 10]
    rows = HistoryRows(2, lambda unit: heights[unit.entry])
    rows.store(1, _drawing(6))
    rows.hold(5)  # a row into unit 1
    heights[:0] = [3, 2, 7]  # the entries put first, as the history's estimate sees them
    rows.prepend(3)
    assert [u.entry for u in rows.units] == [0, 1, 2, 3, 4]
    assert [rows.rows.height(i) for i in range(5)] == [3, 2, 7, 4, 6]
    assert list(rows.drawings) == [4] and rows.line_at(12 + 4) == [Segment("row 0")]
    assert rows.anchor == (4, 1) and rows.held_row() == 12 + 5


def test_forgetting_far_units_keeps_their_rows_and_bounds_the_lines() -> None:
    rows = _rows([2] * 10)
    for index in range(10):
        rows.store(index, _drawing(5))
    total = rows.total
    rows.forget_far(near=9, limit=20)
    assert sum(len(d.lines) for d in rows.drawings.values()) <= 20
    assert 9 in rows.drawings and 0 not in rows.drawings, "the furthest go first"
    assert rows.total == total and rows.line_at(0) is None
