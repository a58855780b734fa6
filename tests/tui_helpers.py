"""Building the real app over the scripted server for Pilot and snapshot tests.

Every test gets the real :class:`~tuibot.tui.app.TuibotApp` with the real engine,
pointed at a :class:`scripted_server.ScriptedServer` on loopback; the config home and
data dirs are the hermetic ones from ``conftest.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripted_server import ScriptedServer
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from trust_helpers import trust_file

from tuibot.settings import load_settings
from tuibot.system.paths import DataPaths
from tuibot.tui.app import TuibotApp

SIZE = (160, 48)
"""The terminal size every TUI test uses (the tmux size the docs use too)."""


def make_app(server: ScriptedServer | str, config: str = "", **overrides: Any) -> TuibotApp:
    """The app over the scripted server (or a URL); ``config`` is written as tuibot.toml.

    ``a__b=v`` overrides set ``a.b`` like ``engine_helpers.make_engine``. The health
    check runs once at start (its interval is an hour).
    """
    url = server if isinstance(server, str) else server.url
    if config:
        Path("tuibot.toml").write_text(config, encoding="utf-8")
        trust_file()
    values: dict[str, tuple[Any, str]] = {
        "providers.local.base_url": (url, "test"),
        "providers.local.max_retries": (0, "test"),
        "agent.model": ("test-model", "test"),
        "providers.local.context_window": (131072, "test"),
        "tui.health_interval": (3600.0, "test"),
        "tui.bell": (False, "test"),
        "tui.notify": (False, "test"),
    }
    for key, value in overrides.items():
        values[key.replace("__", ".")] = (value, "test")
    settings = load_settings(None, overrides=values, env={})
    return TuibotApp(settings, DataPaths.default())


async def until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10) -> None:
    """Let the app run until ``condition()`` holds; fails the test after ``timeout`` s."""

    async def wait() -> None:
        while not condition():
            await pilot.pause(0.02)

    await asyncio.wait_for(wait(), timeout)


async def ready(pilot: Pilot[Any]) -> TuibotApp:
    """Wait until the app's engine is built and its panes loaded."""
    app = pilot.app
    assert isinstance(app, TuibotApp)
    await until(pilot, lambda: app.engine is not None)
    await pilot.pause()
    return app


class Notes:
    """A message hook keeping every notification the app raised (toasts expire)."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.texts.append((message.notification.severity, message.notification.message))

    def about(self, fragment: str) -> list[tuple[str, str]]:
        return [(sev, text) for sev, text in self.texts if fragment in text]
