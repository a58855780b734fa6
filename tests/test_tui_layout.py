"""The conversation gets the room: its width at 80, 120 and 200 columns, the side pane at
80 columns (it takes the conversation's place and gives it back), and the footer.

The real app over the scripted server; widths are read from the laid-out widgets.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_server import Reply, ScriptedServer, text, tool_calls
from test_tui_approvals import finish
from textual.pilot import Pilot
from textual.widgets import Footer
from textual.widgets._footer import FooterKey
from tui_helpers import make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.widgets.approvals import ApprovalsPane

pytestmark = pytest.mark.timeout(300)
WAIT_S = 60


def width_of(app: TuibotApp, selector: str) -> int:
    """The laid-out width of ``selector`` (0 when it is not shown)."""
    widget = app.query_one(selector)
    return widget.region.width if widget.display and widget.region else 0


@pytest.mark.parametrize("columns", [120, 160, 200])
async def test_the_conversation_has_most_of_a_wide_terminal(
    server: ScriptedServer, columns: int
) -> None:
    app = make_app(server)
    async with app.run_test(size=(columns, 40)) as pilot:
        await ready(pilot)
        assert width_of(app, "#side") > 0, "the side pane shows on a wide terminal"
        assert width_of(app, "#main") > columns // 2


def exec_once(body: dict[str, Any]) -> Reply:
    if body["messages"][-1]["role"] == "user":
        return tool_calls([("exec", json.dumps({"command": "echo hi"}))])
    return text("done")


async def test_at_80_columns_the_queue_takes_the_conversations_place_and_gives_it_back(
    server: ScriptedServer,
) -> None:
    server.responder = exec_once
    app = make_app(server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        room = width_of(app, "#main")
        assert width_of(app, "#side") == 0 and room >= 50
        app.composer.text = "Run something"
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.query_one(ApprovalsPane).request_ids), WAIT_S)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert width_of(app, "#side") >= 50, "the queue is not squeezed"
        assert width_of(app, "#main") == 0, "the conversation is not squeezed either"
        await pilot.press("y")  # allow once: the queue empties
        await until(pilot, lambda: width_of(app, "#side") == 0, WAIT_S)
        assert width_of(app, "#main") == room, "opened only to answer: closed again"
        assert app.focused is app.composer
        await finish(pilot, app)


async def test_at_80_columns_a_side_pane_opened_by_hand_stays_until_closed(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("f4")  # the task kanban
        await pilot.pause()
        assert width_of(app, "#side") >= 50 and width_of(app, "#main") == 0
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert width_of(app, "#side") == 0 and width_of(app, "#main") >= 50
        await pilot.press("ctrl+b", "f3")  # open again; focusing the composer shows it
        await pilot.pause()
        assert width_of(app, "#main") >= 50 and app.focused is app.composer
        assert width_of(app, "#side") == 0


async def test_a_wide_side_pane_hidden_by_hand_stays_hidden_after_a_resize(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert width_of(app, "#side") == 0
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert width_of(app, "#side") == 0


async def help_key_whole(pilot: Pilot[Any], app: TuibotApp) -> bool:
    await pilot.pause()
    footer = app.query_one(Footer)
    keys = [key for key in footer.query(FooterKey) if key.action == "help"]
    return bool(keys) and footer.region.contains_region(keys[0].region)


@pytest.mark.parametrize("columns", [80, 100, 160])
async def test_the_footer_keeps_f1_help_whole(server: ScriptedServer, columns: int) -> None:
    app = make_app(server)
    async with app.run_test(size=(columns, 24)) as pilot:
        await ready(pilot)
        assert await help_key_whole(pilot, app)
        await pilot.press("f2")  # another pane's keys come first in the footer
        assert await help_key_whole(pilot, app)
