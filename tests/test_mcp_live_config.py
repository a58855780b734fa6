"""Editing ``[mcp.servers.*]`` in the config applies live: only changed servers restart.

Real engine with its real watcher (watchfiles) on the real config file in the hermetic
config home, real fault-server processes. The attacks: a broken edit must leave the
running servers alone, and an edit to a trusted project file (which makes it untrusted)
must never start the server it adds.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp_helpers import FAULT_SERVER, toml_server
from scripted_server import ScriptedServer
from trust_helpers import trust_file

from tuibot.engine import Engine
from tuibot.events import Notice
from tuibot.settings import load_settings
from tuibot.system.paths import config_home

pytestmark = pytest.mark.timeout(300)  # several servers start, each importing the SDK

PROVIDER = """[providers.local]
base_url = "{url}"
max_retries = 0

[agent]
model = "test-model"

"""


def _server(name: str, *flags: str) -> str:
    args = [str(FAULT_SERVER), *flags]
    return toml_server(name, sys.executable, args, startup_timeout=60.0) + "\n"


async def _until(condition: Callable[[], bool], timeout: float = 90.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


def _engine(config: Path, text: str) -> tuple[Engine, list[str]]:
    config.write_text(text, encoding="utf-8")
    engine = Engine(load_settings(None))
    notices: list[str] = []
    engine.events.listen(lambda e: notices.append(e.message) if isinstance(e, Notice) else None)
    engine.load_tools()
    engine.start_reloader()
    return engine, notices


async def _watching(engine: Engine) -> None:
    await asyncio.wait_for(engine.mcp_watcher.ready.wait(), 30)
    await asyncio.sleep(0.3)  # the watcher's first scan


def _ready(engine: Engine, *names: str) -> Callable[[], bool]:
    connections = engine.mcp.connections
    return lambda: all(n in connections and connections[n].state == "ready" for n in names)


async def test_only_changed_servers_restart(server: ScriptedServer) -> None:
    config = config_home() / "config.toml"
    head = PROVIDER.format(url=server.url)
    engine, notices = _engine(config, head + _server("a") + _server("b") + _server("c"))
    try:
        await _until(_ready(engine, "a", "b", "c"))
        a, b = engine.mcp.connections["a"], engine.mcp.connections["b"]
        await _watching(engine)
        config.write_text(head + _server("a") + _server("b", "--slow-start", "0") + _server("d"))
        await _until(lambda: "c" not in engine.mcp.connections)
        await _until(_ready(engine, "b", "d"))
        assert engine.mcp.connections["a"] is a and a.state == "ready"  # untouched
        assert engine.mcp.connections["b"] is not b and b.state == "stopped"
        assert "c__echo" not in engine.tools and "d__echo" in engine.tools
        assert "a__echo" in engine.tools and "b__echo" in engine.tools
        assert {"MCP server b changed", "MCP server c removed", "MCP server d added"} <= set(
            notices
        )
    finally:
        await engine.close()


async def test_a_broken_edit_leaves_the_servers_running(server: ScriptedServer) -> None:
    config = config_home() / "config.toml"
    engine, notices = _engine(config, PROVIDER.format(url=server.url) + _server("a"))
    try:
        await _until(_ready(engine, "a"))
        a = engine.mcp.connections["a"]
        await _watching(engine)
        config.write_text(config.read_text() + "\n[mcp.servers.b]\ncommand = \n")
        await _until(lambda: any("MCP servers not changed" in n for n in notices))
        assert engine.mcp.connections == {"a": a} and a.state == "ready"
        assert "a__echo" in engine.tools
    finally:
        await engine.close()


async def test_an_edited_project_file_does_not_start_what_it_adds(server: ScriptedServer) -> None:
    project = Path("tuibot.toml")
    project.write_text(PROVIDER.format(url=server.url) + _server("a"), encoding="utf-8")
    trust_file(project)
    engine, notices = _engine(project, project.read_text())
    try:
        await _until(_ready(engine, "a"))
        await _watching(engine)
        mark = "import pathlib, time; pathlib.Path('STARTED').touch(); time.sleep(30)"
        evil = toml_server("evil", sys.executable, ["-c", mark])
        project.write_text(project.read_text() + "\n" + evil)  # no longer the trusted content
        await _until(lambda: "MCP server a removed" in notices)
        await asyncio.sleep(2)  # time in which a started "server" would leave its mark
        assert not Path("STARTED").exists()
        assert "evil" not in engine.mcp.connections and "a" not in engine.mcp.connections
    finally:
        await engine.close()
