"""MCP in the real app (App.run_test): the servers screen and prompts in the composer.

Real servers: the reference ``mcp-server-time``, and the fault server of tests/ (one
that exits at start, one that offers prompts); the model is the scripted server.
"""

from __future__ import annotations

import sys

import pytest
from mcp_helpers import FAULT_SERVER, console_script, toml_server
from scripted_server import ScriptedServer
from textual.widgets import DataTable, Static
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.servers import ServersScreen

pytestmark = pytest.mark.timeout(240)  # real servers import the SDK on a loaded machine


def _config() -> str:
    fault = [str(FAULT_SERVER)]
    return "\n".join([
        toml_server("time", console_script("mcp-server-time"), [], startup_timeout=60.0),
        toml_server("down", sys.executable, [*fault, "--exit-at-start"], startup_timeout=60.0),
        toml_server("off", sys.executable, fault, enabled=False),
    ])  # fmt: skip


def _state(app: TuibotApp, name: str) -> str:
    assert app.engine is not None
    connection = app.engine.mcp.connections.get(name)
    return connection.state if connection is not None else "-"


async def test_servers_screen_shows_states_and_restarts_a_failed_one(
    server: ScriptedServer,
) -> None:
    app = make_app(server, _config())
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        down = app.engine.mcp.connections["down"]
        await until(pilot, lambda: _state(app, "time") == "ready", timeout=120)
        await until(pilot, lambda: down.failures >= 2, timeout=120)  # backing off now
        await pilot.press("f10")
        await until(pilot, lambda: isinstance(app.screen, ServersScreen))
        screen = app.screen
        assert isinstance(screen, ServersScreen)
        table = screen.query_one(DataTable)
        rows = {str(table.get_row_at(i)[0]): table.get_row_at(i) for i in range(table.row_count)}
        assert rows["time"][1:5] == ["stdio", "ready", "2", "0"]
        assert rows["down"][2] == "failed" and "closed" in str(rows["down"][5])
        assert rows["off"][2] == "disabled"
        table.move_cursor(row=list(rows).index("down"))
        await pilot.pause()
        detail = str(screen.query_one(".detail", Static).render())
        assert "fatal: cannot open the database" in detail  # its stderr tail
        await pilot.press("r")
        assert down.state == "starting" and down.failures == 0  # not waiting for the backoff
        await until(pilot, lambda: down.state == "failed", timeout=120)
        assert down.failures == 1
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ServersScreen))


async def test_a_prompt_completes_and_fills_the_composer(server: ScriptedServer) -> None:
    config = toml_server("faults", sys.executable, [str(FAULT_SERVER)], startup_timeout=60.0)
    app = make_app(server, config)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: _state(app, "faults") == "ready", timeout=120)
        completion = app.composer.completion
        await until(pilot, lambda: any(n == "/faults__greet" for n, _ in completion.commands))
        await pilot.press(*"/faults__gr")
        await until(pilot, lambda: completion.is_open)
        assert [o.id for o in completion.options] == ["/faults__greet"]
        await pilot.press("tab")
        await pilot.press(*"name=Ann")
        await pilot.press("enter")
        await until(pilot, lambda: app.composer.text == "Write a warm greeting for Ann.")
        assert not [r for r in server.requests if r.path.endswith("/chat/completions")]
