"""The chats pane: rows follow turns, approvals and delegations; its keys change chats.

The real app over the scripted server: what each test checks is on disk (chat headers,
delegation records) or in the rows the pane shows.
"""

from __future__ import annotations

from typing import Any

from delegation_helpers import Script, delegate_call
from scripted_server import ScriptedServer, silent, text
from textual.pilot import Pilot
from textual.widgets import Input, Label
from tui_helpers import SIZE, make_app, ready, until

from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    DelegationChanged,
    TurnFinished,
    TurnStarted,
)
from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.confirm import ConfirmScreen
from tuibot.tui.text.chat_rows import ChatRows
from tuibot.tui.widgets.chat_list import ChatList

TEN_MIN = {"timeMs": 600_000}
ONE_BOT = '[agent]\nname = "Assistant"\nmodel = "test-model"\n'


def chat_list(app: TuibotApp) -> ChatList:
    return app.query_one(ChatList)


def header(app: TuibotApp, chat: str) -> dict[str, object]:
    assert app.engine is not None
    meta = next(m for m in app.engine.chats.list() if m.id == chat)
    return {"title": meta.title, "pinned": meta.pinned, "bot": meta.bot}


async def send(pilot: Pilot[Any], app: TuibotApp, message: str) -> str:
    """Type ``message`` into the composer and send it; the chat it went to."""
    app.composer.focus()
    await pilot.press(*message, "enter")
    await until(pilot, lambda: app.current_chat is not None)
    assert app.current_chat is not None
    return app.current_chat


async def test_a_chat_appears_works_then_idles_and_n_makes_another(
    server: ScriptedServer,
) -> None:
    server.enqueue(text("A slow answer.", pieces=8, delay=0.1))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        rows = chat_list(app)
        chat = await send(pilot, app, "Plan my week")
        await until(pilot, lambda: "working" in rows.row_text(chat))
        assert "Plan my week" in rows.row_text(chat)
        await until(pilot, lambda: "idle" in rows.row_text(chat))
        await pilot.press("f2", "n")
        await until(pilot, lambda: len(rows.shown()) == 2)
        newest = rows.shown()[0][0]
        assert newest != chat and app.current_chat == newest
        assert "New chat" in rows.row_text(newest) and app.focused is app.composer


async def test_unread_mark_set_elsewhere_and_cleared_on_open(server: ScriptedServer) -> None:
    server.enqueue(text("Done at last.", pieces=8, delay=0.1))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        rows = chat_list(app)
        first = await send(pilot, app, "Slow one")
        await until(pilot, lambda: rows.rows.status_of(first) == "working")
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.current_chat != first)
        await until(pilot, lambda: rows.row_text(first).startswith("● "))
        await pilot.press("f2")
        assert [chat for chat, _ in rows.shown()] == [app.current_chat, first]
        await pilot.press("j", "enter")
        await until(pilot, lambda: app.current_chat == first)
        assert not rows.row_text(first).startswith("●")


async def test_rename_and_pin_with_r_and_b_change_the_header(server: ScriptedServer) -> None:
    server.enqueue(text("ok"))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        rows = chat_list(app)
        chat = await send(pilot, app, "Old title")
        await pilot.press("f2", "r")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        await pilot.press("end", "ctrl+u", *"Groceries", "enter")
        await until(pilot, lambda: header(app, chat)["title"] == "Groceries")
        assert "Groceries" in rows.row_text(chat)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        await pilot.press(*"Assistant", "enter")
        await until(pilot, lambda: header(app, chat)["pinned"] is True)
        assert "(pinned)" in rows.row_text(chat)


async def test_a_task_chat_appears_under_its_giver_and_delete_cancels_it(
    server: ScriptedServer,
) -> None:
    Script(
        server,
        [
            ("Plan a trip", delegate_call("Find three hotels.", TEN_MIN)),
            ('"status": "queued"', text("I asked a helper.")),
            ("gives you this task", silent(30)),
        ],
    )
    app = make_app(server, config=ONE_BOT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine, rows = app.engine, chat_list(app)
        assert engine is not None
        giver = await send(pilot, app, "Plan a trip")
        await until(pilot, lambda: len(rows.shown()) == 2)
        (top, top_depth), (task_chat, depth) = rows.shown()
        assert (top, top_depth, depth) == (giver, 0, 1)
        assert "↳ Find three hotels." in rows.row_text(task_chat)
        [record] = engine.delegations.given_by(giver)
        await until(pilot, lambda: rows.rows.status_of(task_chat) == "working")

        await pilot.press("f2", "home", "d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one(Label).render())
        assert "1 running delegation(s) are cancelled" in question
        await pilot.press("y")
        await until(pilot, lambda: not engine.chats.exists(giver))
        await until(
            pilot,
            lambda: str(getattr(engine.delegations.get(record.id), "status", "")) == "cancelled",
        )
        assert [chat for chat, _ in rows.shown()] == [task_chat]


def test_status_follows_approvals_and_pauses() -> None:
    rows = ChatRows()
    rows._started(TurnStarted("c_root", "t1", "Assistant", "m", "Hello"))
    record = {"id": "dlg_1", "chat": "c_task", "parent": {"chat": "c_root"}, "bot": "Coder"}
    rows.apply(DelegationChanged("c_root", {**record, "status": "running", "task": "Fix it"}))
    assert rows.flat() == [("c_root", 0), ("c_task", 1)]
    assert rows.status_of("c_root") == "working"
    rows.apply(ApprovalRequested("c_root", "req_1", "tool", "run?", {"task_chat": "c_task"}))
    assert rows.status_of("c_task") == rows.status_of("c_root") == "waiting for approval"
    rows.apply(ApprovalDecided("c_root", "req_1", True, "ok"))
    rows.apply(DelegationChanged("c_root", {**record, "status": "paused", "task": "Fix it"}))
    assert rows.status_of("c_task") == "paused" and rows.status_of("c_root") == "working"
    rows.apply(TurnFinished("c_root", "t1", "completed", "done"))
    assert rows.status_of("c_root") == "idle" and "c_root" in rows.unread
