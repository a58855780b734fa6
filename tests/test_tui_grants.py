"""The grants screen (F7): it lists kept decisions and revokes them, on disk and in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted_server import ScriptedServer
from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from tui_helpers import SIZE, make_app, ready, until

from tuibot.approvals.grants import Grant
from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.grants import GrantsScreen


def grants_file(hermetic: Path) -> Path:
    return hermetic / "data" / "grants.json"


def stored_keys(hermetic: Path) -> list[str]:
    document = json.loads(grants_file(hermetic).read_text(encoding="utf-8"))
    return [grant["key"] for grant in document["grants"]]


def table_rows(app: TuibotApp) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]


async def open_grants(app: TuibotApp, pilot: Pilot[Any]) -> GrantsScreen:
    # From the queue: the composer (a TextArea) binds F7 to select-all for itself.
    await pilot.press("ctrl+g", "f7")
    await until(pilot, lambda: isinstance(app.screen, GrantsScreen))
    assert isinstance(app.screen, GrantsScreen)
    return app.screen


async def test_grants_are_listed_and_d_revokes_one_on_disk(
    server: ScriptedServer, hermetic: Path
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        approvals = app.engine.approvals
        store = approvals.grants
        assert store is not None
        chat = app.engine.new_chat().id
        store.add(Grant("tool:exec", "chat", chat, created=1000.0, reason="allowed for this chat"))
        store.add(Grant("delegate:Assistant->Coder", "lifetime", None, created=2000.0))
        assert grants_file(hermetic).exists()

        await open_grants(app, pilot)
        rows = table_rows(app)
        assert [row[:3] for row in rows] == [
            ["chat", chat, "tool:exec"],
            ["lifetime", "every chat", "delegate:Assistant->Coder"],
        ]
        assert rows[0][4] == "allowed for this chat" and rows[0][5].startswith("g_")

        await pilot.press("d")  # the cursor starts on the first row
        await until(pilot, lambda: len(table_rows(app)) == 1)
        assert stored_keys(hermetic) == ["delegate:Assistant->Coder"]
        assert not approvals.granted(chat, "tool:exec")  # the running engine asks again
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, GrantsScreen))


async def test_this_runs_grants_are_listed_and_revoked_too(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        approvals = app.engine.approvals
        approvals.lifetime_grants.add("tool:http_request")
        approvals.chat_grants.add(("c_1", "tool:exec"))

        await open_grants(app, pilot)
        rows = table_rows(app)
        assert [(row[0], row[2], row[3]) for row in rows] == [
            ("chat", "tool:exec", "this run only"),
            ("lifetime", "tool:http_request", "this run only"),
        ]
        await pilot.press("down", "delete")
        await until(pilot, lambda: len(table_rows(app)) == 1)
        assert approvals.lifetime_grants == set()
        assert approvals.chat_grants == {("c_1", "tool:exec")}


async def test_no_grants_says_what_would_show_and_a_broken_file_is_shown_not_fatal(
    server: ScriptedServer, hermetic: Path
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_grants(app, pilot)
        assert screen.query_one(".empty", Static).display
        assert "No grants" in str(screen.query_one(".empty", Static).render())
        assert not screen.query_one(".problem", Static).display

        grants_file(hermetic).write_text("{not json", encoding="utf-8")
        assert app.engine is not None
        app.engine.approvals.lifetime_grants.add("tool:exec")
        await pilot.press("r")
        problem = screen.query_one(".problem", Static)
        await until(pilot, lambda: problem.display)
        assert "invalid JSON" in str(problem.render())
        assert [row[2] for row in table_rows(app)] == ["tool:exec"]  # the rest still shows
        await pilot.press("d")
        await until(pilot, lambda: table_rows(app) == [])
        assert grants_file(hermetic).read_text(encoding="utf-8") == "{not json"  # never rewritten
        assert app.is_running
