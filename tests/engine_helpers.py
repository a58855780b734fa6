"""Building an engine against the scripted server, and collecting what it emits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted_server import ScriptedServer

from tuibot.engine import Engine
from tuibot.events import Event, TurnFinished
from tuibot.settings import load_settings
from tuibot.toolkit import ToolRegistry, load_tool_folder


def make_engine(server: ScriptedServer | str, **overrides: Any) -> Engine:
    """An engine whose only provider is the scripted server (or a URL); ``a__b=v`` sets ``a.b``."""
    url = server if isinstance(server, str) else server.url
    values: dict[str, tuple[Any, str]] = {
        "providers.local.base_url": (url, "test"),
        "providers.local.max_retries": (0, "test"),
        "agent.model": ("test-model", "test"),
    }
    for key, value in overrides.items():
        values[key.replace("__", ".")] = (value, "test")
    engine = Engine(load_settings(None, overrides=values))
    engine.load_tools()
    return engine


class Recorder:
    """Every event the engine published, in order."""

    def __init__(self, engine: Engine) -> None:
        self.events: list[Event] = []
        engine.events.listen(self.events.append)

    def of(self, kind: type) -> list[Any]:
        """The events of one type."""
        return [event for event in self.events if isinstance(event, kind)]


async def ask(engine: Engine, chat: str, text: str) -> TurnFinished:
    """Send one input and wait for its turn."""
    outcome = await (await engine.send(chat, text))
    assert isinstance(outcome, TurnFinished)
    return outcome


def sent_messages(server: ScriptedServer, index: int = -1) -> list[dict[str, Any]]:
    """The messages of a recorded chat request."""
    chat_requests = [r for r in server.requests if r.path.endswith("/chat/completions")]
    body = chat_requests[index].body
    assert body is not None
    return body["messages"]


def write_tool(home: Path, name: str, source: str) -> Path:
    """A user tool file in the config home's tools folder."""
    folder = home / "tools"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def bundled_registry() -> ToolRegistry:
    """A registry of the bundled tools, loaded as the engine loads them (none may fail)."""
    from tuibot.system.paths import bundled_dir

    specs, errors = load_tool_folder(bundled_dir("tools"), "bundled")
    assert errors == []
    registry = ToolRegistry()
    for spec in specs:
        registry.register(spec)
    return registry
