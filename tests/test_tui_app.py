"""The app's frame: it starts, builds the engine after painting, and quits cleanly."""

from __future__ import annotations

from scripted_server import ScriptedServer
from tui_helpers import SIZE, make_app, ready, until


async def test_the_app_starts_the_engine_after_the_first_paint(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.status.health == "ok")
        assert "127.0.0.1" in app.status.health_detail


async def test_no_server_still_opens_and_says_how_to_fix_it() -> None:
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.status.health == "down", timeout=15)
        assert "Cannot reach" in app.status.health_detail
