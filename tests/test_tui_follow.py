"""The conversation follows like a chat app: sending re-anchors, scrolling up pauses.

The real app over the scripted server, with a stored chat long enough to scroll. "On
screen" means the last line of the newest answer lies inside the conversation's view.
"""

from __future__ import annotations

from typing import Any

import pytest
from scripted_server import ScriptedServer, text
from textual.pilot import Pilot
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.follow_hint import NewMessagesHint

pytestmark = pytest.mark.timeout(300)  # streamed answers on a busy box
WAIT_S = 60
"""How long a step may take on a loaded machine (no assertion is about speed)."""


def _long_chat(app: TuibotApp, turns: int = 40) -> str:
    engine = app.engine
    assert engine is not None
    chat = engine.chats.create(title="long").id
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"Question {n}?"})
        messages.append({"role": "assistant", "content": f"Answer {n}.\n\n- one\n- two\n"})
    engine.chats.append(chat, messages)
    return chat


async def _opened(pilot: Pilot[Any], app: TuibotApp) -> None:
    app.open_chat(_long_chat(app))
    history = app.conversation.history
    await until(
        pilot, lambda: bool(history.entries) and not history.missing and history.idle, WAIT_S
    )


def _answers(app: TuibotApp) -> list[AnswerView]:
    return [b for b in app.conversation.blocks if isinstance(b, AnswerView)]


def _on_screen(app: TuibotApp, fragment: str) -> bool:
    """Whether the newest answer holds ``fragment`` and its last line is in view."""
    answers = _answers(app)
    if not answers or fragment not in answers[-1].text:
        return False
    view, region = app.conversation.region, answers[-1].region
    return bool(region) and view.y <= region.bottom - 1 < view.bottom


def _hint(app: TuibotApp) -> NewMessagesHint:
    return app.conversation.query_one(NewMessagesHint)


async def _send(pilot: Pilot[Any], app: TuibotApp, words: str) -> None:
    app.composer.focus()
    app.composer.text = words
    await pilot.press("enter")


async def test_paging_up_and_back_down_still_shows_the_next_answer(
    server: ScriptedServer,
) -> None:
    server.enqueue(text("A fresh answer.\n\n" + "\n\n".join(f"Para {i}." for i in range(12))))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _opened(pilot, app)
        await pilot.press("pageup")
        assert not app.conversation.following
        await pilot.press("pagedown", "pagedown", "pagedown")
        await _send(pilot, app, "And now?")
        await until(pilot, lambda: any(a.finished for a in _answers(app)), WAIT_S)
        await until(pilot, lambda: _on_screen(app, "Para 11."))
        assert app.conversation.following


async def test_sending_while_scrolled_up_brings_the_answer_into_view(
    server: ScriptedServer,
) -> None:
    server.enqueue(text("Here it is.\n\n" + "\n\n".join(f"Line {i}." for i in range(12))))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _opened(pilot, app)
        await pilot.press("pageup", "pageup")
        assert not app.conversation.following
        await _send(pilot, app, "Next question")
        await until(pilot, lambda: any(a.finished for a in _answers(app)), WAIT_S)
        await until(pilot, lambda: _on_screen(app, "Line 11."))


async def test_scrolled_up_while_an_answer_streams_the_view_stays_and_a_hint_shows(
    server: ScriptedServer,
) -> None:
    long_answer = "\n\n".join(f"Paragraph {i} of a long answer." for i in range(80))
    server.enqueue(text(long_answer, pieces=160, delay=0.03))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _opened(pilot, app)
        assert not _hint(app).display, "no hint while following"
        await _send(pilot, app, "Talk for a while")
        await until(pilot, lambda: any(len(a.text) > 100 for a in _answers(app)))
        conversation = app.conversation
        conversation.focus()
        await pilot.press("pageup")
        top = conversation.scroll_y
        shown = len(_answers(app)[-1].text)
        await until(pilot, lambda: len(_answers(app)[-1].text) > shown + 200)
        await pilot.pause()
        assert conversation.scroll_y == top, "the view stays where the person put it"
        assert _hint(app).display and "new messages" in str(_hint(app).render())
        await pilot.press("end")
        await pilot.pause()
        assert conversation.following and not _hint(app).display
        await until(pilot, lambda: any(a.finished for a in _answers(app)), timeout=WAIT_S)
        await until(pilot, lambda: _on_screen(app, "Paragraph 79"))


async def test_scrolling_back_to_the_bottom_resumes_following(server: ScriptedServer) -> None:
    server.enqueue(text("\n\n".join(f"Bit {i}." for i in range(60)), pieces=120, delay=0.03))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _opened(pilot, app)
        await _send(pilot, app, "Go on")
        await until(pilot, lambda: any(len(a.text) > 60 for a in _answers(app)))
        conversation = app.conversation
        conversation.focus()
        await pilot.press("pageup")
        await until(pilot, lambda: _hint(app).display)
        while conversation.scroll_y < conversation.max_scroll_y:
            await pilot.press("pagedown")
        await pilot.pause()
        assert conversation.following and not _hint(app).display
        await until(pilot, lambda: any(a.finished for a in _answers(app)), timeout=WAIT_S)
        await until(pilot, lambda: _on_screen(app, "Bit 59."))


async def test_page_keys_within_one_frame_each_move_a_page(server: ScriptedServer) -> None:
    """A held PageUp (or keys from tmux) arrive faster than frames: none may be lost."""
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _opened(pilot, app)
        conversation = app.conversation
        await pilot.pause()
        start, page = conversation.scroll_y, conversation.scrollable_content_region.height
        for _ in range(3):
            conversation.action_page_up()  # no refresh in between
        await pilot.pause()
        top = conversation.scroll_y
        assert start - top > 2 * page, "three pages up (history drawn meanwhile may shift it)"
        for _ in range(3):
            conversation.action_page_down()
        await pilot.pause()
        assert conversation.scroll_y - top > 2 * page
