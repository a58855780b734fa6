"""Building MCP server configs for tests: the fault server in tests/, and the real ones.

Every server here is a real process speaking MCP on stdio; nothing is mocked.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.settings.mcp import McpServerSettings, McpSettings

if TYPE_CHECKING:
    from scripted_server import ScriptedServer

    from tuibot.engine import Engine

FAULT_SERVER = Path(__file__).with_name("mcp_fault_server.py")


def fault_server(name: str = "faults", *flags: str, **settings: Any) -> McpServerSettings:
    """The fault server started with ``flags`` (``--slow-start 3``, ``--garbage``…).

    Its start-up allows a minute: importing the SDK takes seconds on a loaded machine.
    """
    settings.setdefault("startup_timeout", 60.0)
    return McpServerSettings(
        name=name, command=sys.executable, args=[str(FAULT_SERVER), *flags], **settings
    )


def console_script(name: str) -> str:
    """A console script installed next to this interpreter (mcp-server-time, -git)."""
    found = Path(sys.executable).with_name(name)
    return str(found) if found.exists() else shutil.which(name) or name


def toml_server(name: str, command: str, args: list[str], **extra: Any) -> str:
    """A ``[mcp.servers.NAME]`` block for a config file."""
    import json

    lines = [f"[mcp.servers.{name}]", f"command = {json.dumps(command)}",
             f"args = {json.dumps(args)}"]  # fmt: skip
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def fault_engine(server: ScriptedServer, *, vision: bool) -> Engine:
    """An engine on ``server`` with the fault server's tools loaded (images: ``vision``)."""
    from tuibot.engine import Engine
    from tuibot.settings import load_settings

    settings = load_settings(None, overrides={
        "providers.local.base_url": (server.url, "test"),
        "providers.local.max_retries": (0, "test"),
        "providers.local.vision": (vision, "test"),
        "agent.model": ("test-model", "test"),
    })  # fmt: skip
    mcp = McpSettings(servers={"faults": fault_server("faults")})
    engine = Engine(dataclasses.replace(settings, mcp=mcp))
    engine.load_tools()
    return engine
