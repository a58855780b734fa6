"""MCP prompts as slash commands: ``/NAME__prompt arg=value`` fills the composer.

Real engine, real fault-server process (its prompts: ``greet`` with a required ``name``
and an optional ``tone``, ``daily`` with none, ``sneaky`` with terminal escapes); the
model is the scripted server, which must never be called by a prompt command.
"""

from __future__ import annotations

import dataclasses

from mcp_helpers import fault_server
from scripted_server import ScriptedServer

from tuibot.engine import Engine
from tuibot.events import CommandOutput
from tuibot.mcp.cache import ToolCache
from tuibot.settings import load_settings
from tuibot.settings.mcp import McpServerSettings, McpSettings
from tuibot.system.paths import DataPaths

GREET = {"name": "greet", "description": "Greet someone by name.",
         "arguments": [{"name": "name", "required": True}, {"name": "tone"}]}  # fmt: skip


def _engine(server: ScriptedServer, *servers: McpServerSettings) -> Engine:
    settings = load_settings(None, overrides={
        "providers.local.base_url": (server.url, "test"),
        "providers.local.max_retries": (0, "test"),
        "agent.model": ("test-model", "test"),
    })  # fmt: skip
    mcp = McpSettings(servers={s.name: s for s in servers})
    return Engine(dataclasses.replace(settings, mcp=mcp))


async def _command(engine: Engine, text: str) -> CommandOutput:
    outcome = await (await engine.send(engine.new_chat().id, text))
    assert isinstance(outcome, CommandOutput)
    return outcome


async def _ready(engine: Engine) -> None:
    engine.load_tools()
    await engine.mcp.settle()
    assert engine.mcp.connections["faults"].state == "ready"


async def test_a_prompt_with_arguments_fills_the_composer(server: ScriptedServer) -> None:
    engine = _engine(server, fault_server())
    try:
        await _ready(engine)
        out = await _command(engine, "/faults__greet name=Ann tone=cold")
        assert out.ok, out.text
        assert out.compose == "Write a cold greeting for Ann."
        default = await _command(engine, "/faults__greet name='Bo Li'")
        assert default.compose == "Write a warm greeting for Bo Li."
        assert server.requests == []  # a prompt command never calls the model
    finally:
        await engine.close()


async def test_a_prompt_without_arguments_keeps_each_role(server: ScriptedServer) -> None:
    engine = _engine(server, fault_server())
    try:
        await _ready(engine)
        out = await _command(engine, "/faults__daily")
        assert out.ok, out.text
        assert out.compose == (
            "[user]\nWhat should I do today?\n\n[assistant]\nStart with the hardest task."
        )
    finally:
        await engine.close()


async def test_arguments_are_checked_against_the_prompts_list(server: ScriptedServer) -> None:
    engine = _engine(server, fault_server())
    try:
        await _ready(engine)
        missing = await _command(engine, "/faults__greet tone=cold")
        assert not missing.ok and missing.compose is None
        assert "missing required argument name" in missing.text
        unknown = await _command(engine, "/faults__greet name=Ann mood=odd")
        assert not unknown.ok
        assert "unknown argument mood" in unknown.text and "name, tone" in unknown.text
        extra = await _command(engine, "/faults__daily today=yes")
        assert not extra.ok and "takes no arguments" in extra.text
        bad = await _command(engine, "/faults__greet Ann")
        assert not bad.ok and "expected key=value" in bad.text
    finally:
        await engine.close()


async def test_prompt_text_is_shown_escaped(server: ScriptedServer) -> None:
    engine = _engine(server, fault_server())
    try:
        await _ready(engine)
        out = await _command(engine, "/faults__sneaky")
        assert out.ok and out.compose is not None
        for raw in ("\x1b", "\x07", "\u202e", "\u202c"):
            assert raw not in out.compose and raw not in out.text
        assert "hello\\x1b[2J\\x1b]0;owned\\x07 \\u202eevil\\u202c [b]bold[/b]" in out.compose
        assert "untrusted" in out.text  # the command output says whose words these are
    finally:
        await engine.close()


async def test_a_prompt_of_a_server_that_is_down_refuses_in_one_line(
    server: ScriptedServer,
) -> None:
    down = fault_server("down", "--exit-at-start")
    ToolCache(DataPaths.default().mcp / "tools").save(down, [], prompts=[GREET])
    engine = _engine(server, down)
    try:
        engine.load_tools()
        assert "/down__greet" in [usage.split()[0] for usage, _ in engine.mcp.prompt_usages()]
        await engine.mcp.settle()
        out = await _command(engine, "/down__greet name=Ann")
        assert not out.ok and out.compose is None
        assert "MCP server 'down' failed" in out.text and "\n" not in out.text
    finally:
        await engine.close()


async def test_help_lists_prompts_with_their_arguments(server: ScriptedServer) -> None:
    engine = _engine(server, fault_server())
    try:
        await _ready(engine)
        out = await _command(engine, "/help")
        assert "/faults__greet name=… [tone=…]" in out.text
        assert "/faults__daily" in out.text
    finally:
        await engine.close()
