"""Small things a newcomer hits in the app (issue 17, item 8), each through the real app.

F1 help shows each key once per pane (a key tuibot binds hides Textual's generic binding
of the same key); the empty delegation tree says what will appear there; answering the
last approval moves focus out of the emptied pane.
"""

from __future__ import annotations

import json
import time
from typing import Any

from scripted_server import Reply, ScriptedServer, text, tool_calls
from tui_helpers import SIZE, make_app, ready, until

from tuibot.delegation.records import Delegation, Limits, Parent
from tuibot.tui.app import LEAVE_EMPTY_QUEUE_S
from tuibot.tui.screens.help import HelpScreen
from tuibot.tui.widgets import approvals
from tuibot.tui.widgets.approvals import ApprovalsPane
from tuibot.tui.widgets.delegation_tree import DelegationTree


async def test_help_lists_each_key_once_per_pane(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        for group in screen.groups:
            owned = {key for row in group.rows if row.binding_id for key in row.keys.split(" / ")}
            for row in group.rows:
                if row.binding_id is None:
                    shadowed = set(row.keys.split(" / ")) & owned
                    assert not shadowed, f"{group.title}: {row.keys} {row.description}"
        app_wide = screen.groups[0]
        assert [r.description for r in app_wide.rows if "^c" in r.keys.split(" / ")] == [
            "Interrupt"
        ]
        conversation = next(g for g in screen.groups if g.title == "Conversation")
        assert "Previous block" in [r.description for r in conversation.rows]


async def test_the_empty_delegation_tree_says_what_shows_there(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.action_focus_pane("delegations")
        await pilot.pause()
        tree = app.query_one(DelegationTree)
        [hint] = tree.root.children
        assert "No delegated work yet" in tree.label_text(hint)
        record = Delegation.new(
            parent=Parent("c_giver", "t_1", "call_1"),
            giver_bot="Assistant",
            bot="Assistant",
            task="Look it up",
            reason="",
            limits=Limits(60_000),
            now=time.time(),
        )
        tree.upsert(record)
        await pilot.pause()
        assert all("No delegated" not in tree.label_text(n) for n in tree.root.children)
        assert tree.node_for(record.id) is not None


def exec_responder(body: dict[str, Any]) -> Reply:
    """``run: CMD`` from the person asks for exec(CMD); after the tool result: "ok"."""
    last = body["messages"][-1]
    if last["role"] == "user" and str(last.get("content", "")).startswith("run: "):
        return tool_calls([("exec", json.dumps({"command": last["content"][5:]}))])
    return text("ok")


async def test_answering_the_last_request_leaves_the_emptied_pane(server: ScriptedServer) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        pane = app.query_one(ApprovalsPane)
        for _ in range(2):  # two chats, so two requests wait at once
            await app.engine.send(app.engine.new_chat().id, "run: echo hi")
        await until(pilot, lambda: len(pane.request_ids) == 2)
        await pilot.press("ctrl+g")
        assert app.focused is pane
        await pilot.press("n")
        await until(pilot, lambda: len(pane.request_ids) == 1)
        await until(pilot, lambda: pane.selected in pane.request_ids)
        await pilot.pause(approvals.SETTLE_S + 0.1)  # a request moved into place waits a moment
        assert app.focused is pane  # one more to answer: stay
        await pilot.press("n")
        await until(pilot, lambda: not pane.request_ids)
        await until(pilot, lambda: app.focused is app.composer)


async def test_a_dialog_open_when_the_emptied_queue_hands_focus_back_is_no_crash(
    server: ScriptedServer,
) -> None:
    """The hand-back runs a second after the last answer; a dialog opened meanwhile (help,
    the palette, a confirm) is the active screen then, and the queue is not on it."""
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        pane = app.query_one(ApprovalsPane)
        await app.engine.send(app.engine.new_chat().id, "run: echo hi")
        await until(pilot, lambda: len(pane.request_ids) == 1)
        await pilot.press("ctrl+g")
        await pilot.press("n")
        await until(pilot, lambda: not pane.request_ids)
        await pilot.press("f1")  # help opens before the hand-back timer fires
        await until(pilot, lambda: len(app.screen_stack) > 1)
        await pilot.pause(LEAVE_EMPTY_QUEUE_S + 0.3)
        await pilot.press("escape")
        await until(pilot, lambda: len(app.screen_stack) == 1)
        await until(pilot, lambda: app.focused is app.composer)
