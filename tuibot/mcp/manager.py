"""All configured MCP servers of one engine: cached tools at once, live ones when ready.

Why: the registry must offer a server's tools from the first turn without waiting for
it, so the last tool list (from the cache) is registered before any process starts;
each server then connects in the background and its live list replaces the cached one.
A failed server's tools stay listed and refuse in one line until it is back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tuibot.events import NoticeLevel

import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tuibot.mcp.cache import ToolCache
from tuibot.mcp.connection import SecretLookup, ServerConnection, Unavailable, describe
from tuibot.mcp.tools import build_specs, result_text
from tuibot.settings_mcp import McpServerSettings
from tuibot.toolkit.decorator import ToolSpec

log = logging.getLogger("tuibot.mcp")

Publish = Callable[[str, Sequence[ToolSpec]], None]
"""``publish(source, specs)``: replace one server's tools in the registry."""
Notify = Callable[["NoticeLevel", str], None]
"""``notify(level, text)``: a notice for the tool log."""

_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif",
               "image/webp": ".webp", "audio/wav": ".wav", "audio/mpeg": ".mp3"}  # fmt: skip


class McpManager:
    """Owns one :class:`ServerConnection` per enabled server."""

    def __init__(
        self,
        servers: dict[str, McpServerSettings],
        data: Path,
        *,
        cwd: Path,
        publish: Publish,
        notify: Notify = lambda level, text: None,
        secret: SecretLookup = lambda _: None,
        restart: bool = True,
    ) -> None:
        self.servers = {n: s for n, s in servers.items() if s.enabled}
        self.cache = ToolCache(data / "tools")
        self.kept = data / "kept"
        """Where images and audio from results are stored (the result names the file)."""
        self.publish = publish
        self.notify = notify
        self.connections = {
            name: ServerConnection(server, cwd=cwd, on_change=self._changed, secret=secret)
            for name, server in self.servers.items()
        }
        self._announced: dict[str, str] = {}

    def offer_cached(self) -> None:
        """Register every server's cached tool list (no process started, no waiting)."""
        for name, server in self.servers.items():
            tools = self.cache.load(server)
            if tools:
                self._publish(self.connections[name], tools)

    def start(self) -> None:
        """Start every server in the background (needs a running event loop)."""
        for connection in self.connections.values():
            connection.start()

    async def settle(self, slack: float = 30.0) -> None:
        """Wait until every server is up or has failed (``startup_timeout`` + ``slack``)."""
        import asyncio

        await asyncio.gather(
            *(c.wait_settled(c.server.startup_timeout + slack) for c in self.connections.values())
        )

    async def close(self) -> None:
        """Stop every server, all at once (each may take seconds to exit)."""
        import asyncio

        await asyncio.gather(*(c.close() for c in self.connections.values()))

    def _changed(self, connection: ServerConnection) -> None:
        """A connection came up or failed: new tools into the registry, a notice out."""
        server = connection.server
        if connection.state == "ready" and connection.tools is not None:
            self.cache.save(server, connection.tools)
            self._publish(connection, connection.tools)
        self._announce(connection)

    def _announce(self, connection: ServerConnection) -> None:
        """One notice per change of state (a restart loop does not repeat itself)."""
        name, state = connection.server.name, connection.state
        said = f"{state}:{connection.reason}" if state == "failed" else state
        if self._announced.get(name) == said or state in ("starting", "stopped"):
            return
        self._announced[name] = said
        if state == "failed":
            tail = connection.stderr_tail.splitlines()[-1:] if connection.stderr_tail else []
            extra = f" (stderr: {tail[0][:200]})" if tail else ""
            self.notify("error", f"MCP server {name} failed: {connection.reason}{extra}")
        elif state == "ready":
            count = len(connection.tools or [])
            self.notify("info", f"MCP server {name} is ready ({count} tools)")

    def _publish(self, connection: ServerConnection, tools: list[dict[str, Any]]) -> None:
        server = connection.server
        specs = build_specs(server, tools, self._caller(connection), connection.refusal)
        self.publish(f"mcp:{server.name}", specs)

    def _caller(self, connection: ServerConnection) -> Callable[[str, dict[str, Any]], Any]:
        async def call(tool: str, arguments: dict[str, Any]) -> str:
            return await run_call(connection, tool, arguments, self._keep)

        return call

    def _keep(self, data: bytes, mime: str) -> str:
        """Store a result's image or audio by content hash; the path for the text."""
        digest = hashlib.sha256(data).hexdigest()[:16]
        path = self.kept / f"{digest}{_EXTENSIONS.get(mime, '.bin')}"
        try:
            self.kept.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                path.write_bytes(data)
        except OSError as error:
            return f"(not stored: {error})"
        return str(path)


async def run_call(
    connection: ServerConnection,
    tool: str,
    arguments: dict[str, Any],
    keep: Callable[[bytes, str], str],
) -> str:
    """One call as the model's text; every failure is an ``Error: ...`` text, never a raise."""
    server = connection.server
    try:
        result = await connection.call(tool, arguments)
    except Unavailable as error:
        return f"Error: {error}"
    except TimeoutError:
        return (
            f"Error: the MCP tool {server.name}__{tool} did not answer within "
            f"{server.timeout:g} s (timeout); the call was cancelled"
        )
    except Exception as error:  # the SDK's MCPError, a closed connection, a bad result
        log.debug("MCP call %s/%s failed", server.name, tool, exc_info=True)
        return f"Error: MCP server {server.name!r}: {describe(error)}"
    return result_text(server.name, tool, result, server.max_output, keep)


def keyring_secret(credential: str) -> str | None:
    """A header credential from its environment variable or the keyring (then masked)."""
    from tuibot.secrets import KeyringUnavailable, remember_secret, resolve_api_key

    try:
        value = resolve_api_key(credential)
    except KeyringUnavailable as error:
        raise Unavailable(str(error)) from None
    if value:
        remember_secret(value)
    return value
