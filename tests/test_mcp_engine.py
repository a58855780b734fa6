"""The engine with MCP servers: cached tools offered before any server is up, and gone
servers' processes stopped on close.

Real engine, real fault-server process; the model is the scripted server.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import scripted_replies as reply
from engine_helpers import ask
from mcp_helpers import fault_server
from scripted_server import ScriptedServer

from tuibot.engine import Engine
from tuibot.events import Notice
from tuibot.mcp.cache import ToolCache
from tuibot.settings import load_settings
from tuibot.settings.mcp import McpSettings
from tuibot.system.paths import DataPaths

ECHO = {"name": "echo", "description": "Say it back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": True}}  # fmt: skip


def _engine(server: ScriptedServer, *flags: str) -> Engine:
    settings = load_settings(None, overrides={
        "providers.local.base_url": (server.url, "test"),
        "providers.local.max_retries": (0, "test"),
        "agent.model": ("test-model", "test"),
    })  # fmt: skip
    mcp = McpSettings(servers={"slow": fault_server("slow", *flags)})
    return Engine(dataclasses.replace(settings, mcp=mcp))


async def test_cached_tools_are_offered_before_the_server_is_up(server: ScriptedServer) -> None:
    engine = _engine(server, "--slow-start", "3")
    ToolCache(DataPaths.default().mcp / "tools").save(engine.settings.mcp.servers["slow"], [ECHO])
    notices: list[str] = []
    engine.events.listen(lambda e: notices.append(e.message) if isinstance(e, Notice) else None)
    try:
        engine.load_tools()
        assert engine.mcp.connections["slow"].state in ("stopped", "starting")
        assert "slow__echo" in engine.tools  # offered now; the process is still importing
        server.enqueue(
            reply.tool_calls([("slow__echo", json.dumps({"text": "hello"}))]), reply.text("ok")
        )
        finished = await ask(engine, engine.new_chat().id, "echo hello")
        assert finished.status == "completed", finished.error
        tool = [m for m in server.requests[-1].body["messages"] if m.get("role") == "tool"]
        assert tool[0]["content"].endswith("echo: hello")  # the call waited for the start
        assert "MCP server slow is ready (8 tools)" in notices
        assert "slow__wipe" in engine.tools  # the live list replaced the cached one
    finally:
        await engine.close()
    assert engine.mcp.connections["slow"].state == "stopped"


async def test_no_cache_means_no_tools_yet_and_no_waiting(server: ScriptedServer) -> None:
    engine = _engine(server, "--slow-start", "30")
    try:
        engine.load_tools()
        assert not [name for name in engine.tools.names() if name.startswith("slow__")]
        assert not Path(DataPaths.default().mcp / "tools").exists()
    finally:
        await engine.close()


async def test_a_live_list_never_loosens_what_the_cached_one_asked(server: ScriptedServer) -> None:
    engine = _engine(server)
    unmarked = {**ECHO, "annotations": {}}  # the list of an earlier session: echo asked first
    ToolCache(DataPaths.default().mcp / "tools").save(
        engine.settings.mcp.servers["slow"], [unmarked]
    )
    try:
        engine.load_tools()
        cached = engine.tools.get("slow__echo")
        assert cached is not None and cached.confirm
        engine.mcp.start()
        await engine.mcp.settle()
        assert "slow__wipe" in engine.tools  # the live list (echo now read-only) is in
        live = engine.tools.get("slow__echo")
        assert live is not None and live is not cached
        assert live.confirm and "slow__echo" in str(live.confirm)  # still asks, until restart
        unasked = engine.tools.get("slow__crash")  # read-only from the start: never asked
        assert unasked is not None and unasked.confirm is False
    finally:
        await engine.close()
