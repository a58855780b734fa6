"""The status bar's context meter: the chat's last request against the model's window."""

from __future__ import annotations

from scripted_server import ScriptedServer, text
from tui_helpers import make_app, ready, until

from tuibot.tui.widgets.status_bar import StatusBar


def meter_styles(status: StatusBar) -> str:
    """The styles on the meter's text."""
    line = status.render()
    at = line.plain.index("ctx ")
    return " ".join(str(s.style) for s in line.spans if s.start <= at < s.end)


async def test_the_meter_shows_the_context_in_use_and_warns_from_80_percent(
    server: ScriptedServer,
) -> None:
    server.enqueue(text("Hello."))
    app = make_app(server, providers__local__context_window=8192)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.submit(None, "hi")
        status = app.query_one(StatusBar)
        await until(pilot, lambda: status.context[1] == 8192)
        used = status.context[0]
        assert 1000 < used < 8192
        line = status.render()
        assert f"ctx {used / 1000:.1f}k/8k" in line.plain
        assert "yellow" not in meter_styles(status)
        status.context = (7000, 8192)
        assert "yellow" in meter_styles(status)
