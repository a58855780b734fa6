"""The delegation tree: work shows under its giver with live bars; keys open, cancel, answer."""

from __future__ import annotations

from typing import Any

from delegation_helpers import CONFIG, Script, delegate_call
from scripted_server import ScriptedServer, silent, text, tool_calls
from textual.message import Message
from textual.widgets import TabbedContent
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.messages import ShowRequest
from tuibot.tui.widgets.delegation_tree import DelegationTree


def app_for(server: ScriptedServer) -> TuibotApp:
    config = CONFIG.format(url=server.url, price=0, approval_timeout=30, delegation="")
    return make_app(server, config=config)


async def test_running_work_shows_under_its_giver_and_x_cancels_it(
    server: ScriptedServer,
) -> None:
    Script(
        server,
        [
            ("Plan a trip", delegate_call("Find three hotels in Lisbon.", {"timeMs": 600_000})),
            ("task: Find three", delegate_call("Check the prices.", {"timeMs": 60_000}, "c2")),
            ('"status": "queued"', text("A helper is on it.")),
            ("task: Check the prices", silent(30)),  # its model call hangs: the work runs on
            ("was stopped", text("Understood, I stopped it.")),
        ],
    )
    app = app_for(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        tree = app.query_one(DelegationTree)
        chat = engine.new_chat(bot="Assistant").id
        await engine.send(chat, "Plan a trip to Lisbon")
        await until(
            pilot, lambda: [r.status for r in engine.delegations.tree(chat)] == ["running"] * 2
        )
        record, below = engine.delegations.tree(chat)
        await until(pilot, lambda: "running" in tree.label_text(tree.node_for(record.id)))  # type: ignore[arg-type]

        node = tree.node_for(record.id)
        root = tree.root_for(chat)
        assert node is not None and root is not None and node.parent is root
        assert "Plan a trip to Lisbon" in tree.label_text(root)
        assert "Assistant" in tree.label_text(node) and "Find three hotels" in tree.label_text(node)
        usage = tree.label_text(node.children[0])
        assert usage.startswith("time ") and "/10m" in usage and "░" in usage  # a bar
        nested = tree.node_for(below.id)
        assert nested is not None and nested.parent is node  # under the work that gave it
        assert "Check the prices" in tree.label_text(nested) and "2 open" in tree.label_text(root)

        await pilot.press("f5")  # the app's key for the tree
        assert app.focused is tree
        tree.move_cursor(node)
        await pilot.press("enter")
        await until(pilot, lambda: app.current_chat == record.chat)

        await pilot.press("x")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")
        await until(pilot, lambda: engine.delegations.get(record.id).status == "cancelled")  # type: ignore[union-attr]
        await until(pilot, lambda: "cancelled" in tree.label_text(node))
        assert engine.delegations.get(below.id).status == "cancelled"  # type: ignore[union-attr]
        assert "cancelled" in tree.label_text(nested) and "all ended" in tree.label_text(root)
        # A person cancelled it, so the giver's chat was told.
        await until(pilot, lambda: any("was stopped" in t for t in user_texts(engine, chat)))


def user_texts(engine: Any, chat: str) -> list[str]:
    messages = engine.chats.load(chat, readonly=True).messages
    return [m.get("content") or "" for m in messages if m["role"] == "user"]


async def test_paused_work_says_why_and_a_jumps_to_its_request(server: ScriptedServer) -> None:
    Script(
        server,
        [
            ("Count files", delegate_call("List the folder", {"timeMs": 600_000, "steps": 1})),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task", tool_calls([("list_dir", '{"path": "."}', "call_l")])),
        ],
    )
    shown: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, ShowRequest):
            shown.append(message.request_id)

    app = app_for(server)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        tree = app.query_one(DelegationTree)
        chat = engine.new_chat(bot="Assistant").id
        await engine.send(chat, "Count files")
        await until(pilot, lambda: bool(engine.approvals.pending()))
        [request] = engine.approvals.pending()
        [record] = engine.delegations.given_by(chat)
        await until(pilot, lambda: len(tree.node_for(record.id).children) == 2)  # type: ignore[union-attr]

        node = tree.node_for(record.id)
        assert node is not None
        pause = tree.label_text(node.children[1])
        assert "paused" in pause and "step limit" in pause
        await until(pilot, lambda: request.id in tree.label_text(node.children[1]))
        assert "steps" in tree.label_text(node.children[0]) and "1/1" in tree.label_text(
            node.children[0]
        )

        await pilot.press("f5")
        tree.move_cursor(node.children[1])  # the pause line answers for its work too
        await pilot.press("a")
        side = app.query_one("#side", TabbedContent)
        await until(pilot, lambda: side.active == "tab-approvals")
        await until(pilot, lambda: shown == [request.id])
