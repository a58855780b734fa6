"""Building MCP server configs for tests: the fault server in tests/, and the real ones.

Every server here is a real process speaking MCP on stdio; nothing is mocked.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from tuibot.settings.mcp import McpServerSettings

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
