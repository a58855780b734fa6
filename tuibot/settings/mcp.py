"""The ``[mcp.servers.NAME]`` tables: MCP servers whose tools tuibot offers the model.

Kept apart from ``tuibot.settings`` (which only declares the section) so the MCP keys and
the rules that span them (a server is either ``command`` or ``url``) live in one place.
The shape follows Codex CLI's, so a server block can be copied between the two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tuibot.settings.schema import DERIVED, ConfigError, rules

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,30}$")
"""Letters, digits and ``-``: no ``_``, so ``NAME__tool`` always splits at the first ``__``."""


@dataclass(frozen=True)
class McpServerSettings:
    """One MCP server: ``[mcp.servers.<name>]``, stdio (``command``) or HTTP (``url``)."""

    name: str = field(metadata=DERIVED)
    """The table's name; its tools are offered as ``<name>__<tool>``."""
    enabled: bool = True
    """Start this server and offer its tools; false keeps the table but leaves it off."""
    command: str = ""
    """stdio servers: the program to start (looked up on ``PATH``)."""
    args: list[str] = field(default_factory=list)
    """stdio servers: the program's arguments."""
    env: dict[str, Any] = field(default_factory=dict)
    """stdio servers: environment variables added to tuibot's own for the program."""
    cwd: str = field(default="", metadata=rules(path=True))
    """stdio servers: the folder the program starts in; "" = tuibot's start directory."""
    url: str = ""
    """Streamable-HTTP servers: the endpoint URL (``http://127.0.0.1:8000/mcp``)."""
    headers: dict[str, Any] = field(default_factory=dict)
    """HTTP servers: request headers; ``{credential}`` in a value is replaced by the
    ``credential``'s secret (``Authorization = "Bearer {credential}"``)."""
    credential: str = ""
    """Name of the keyring entry whose secret fills ``{credential}`` in ``headers``
    (``tuibot keys set NAME``); its environment variable may stand in."""
    tools: list[str] = field(default_factory=list)
    """The server's tools to offer, by their own names; [] = all of them."""
    disabled_tools: list[str] = field(default_factory=list)
    """The server's tools never to offer, by their own names."""
    confirm: dict[str, Any] = field(default_factory=dict)
    """Per tool (its own name): true = always ask before a call, false = never ask;
    tools not named here ask unless the server marks them read-only."""
    timeout: float = field(default=60.0, metadata=rules(gt=0, le=3600))
    """Seconds one tool call may take before it is cancelled with an error result."""
    startup_timeout: float = field(default=10.0, metadata=rules(gt=0, le=600))
    """Seconds a start may take (the handshake and the tool list); a call waits at most
    this long for a server that is still starting."""
    max_output: int = field(default=65536, metadata=rules(ge=1024, le=10_000_000))
    """Characters of one tool result the model receives; the rest is cut with a note."""

    @property
    def transport(self) -> str:
        """``stdio`` or ``http``."""
        return "http" if self.url else "stdio"


@dataclass(frozen=True)
class McpSettings:
    """MCP servers as tool sources: ``[mcp]``."""

    servers: dict[str, McpServerSettings] = field(default_factory=dict)
    """Servers by name (``[mcp.servers.time]``)."""


def check_servers(servers: dict[str, McpServerSettings], where: str) -> None:
    """Rules that span a server's keys; any break is a ConfigError naming the key."""
    for server in servers.values():
        key = f"mcp.servers.{server.name}"
        if not SERVER_NAME.match(server.name):
            raise ConfigError(
                f"{where}{key}: a server name is 1-31 letters, digits or '-' (no '_')"
            )
        if bool(server.command) == bool(server.url):
            raise ConfigError(
                f"{where}{key}: set either command (a stdio server) or url (an HTTP server)"
            )
        if server.url and not re.match(r"^https?://", server.url):
            raise ConfigError(f"{where}{key}.url = {server.url!r}: expected an http(s):// URL")
        bad = {k: v for k, v in server.confirm.items() if not isinstance(v, bool)}
        if bad:
            tool, value = next(iter(bad.items()))
            raise ConfigError(f"{where}{key}.confirm.{tool} = {value!r}: expected true or false")
        for table in ("env", "headers"):
            for entry, value in getattr(server, table).items():
                if not isinstance(value, str):
                    raise ConfigError(
                        f"{where}{key}.{table}.{entry} = {value!r}: expected a string"
                    )
        uses = any("{credential}" in v for v in server.headers.values())
        if uses and not server.credential:
            raise ConfigError(f"{where}{key}: headers use {{credential}} but credential is unset")
