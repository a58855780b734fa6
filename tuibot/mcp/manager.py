"""All configured MCP servers of one engine: cached tools at once, live ones when ready.

Why: the registry must offer a server's tools from the first turn without waiting for
it, so the last tool list (from the cache) is registered before any process starts;
each server then connects in the background and its live list replaces the cached one.
A failed server's tools stay listed and refuse in one line until it is back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuibot.attachments.kept import keep
from tuibot.attachments.refs import AttachmentRef
from tuibot.events import McpServerNotice
from tuibot.mcp.audio import Transcriber, audio_text
from tuibot.mcp.cache import ToolCache
from tuibot.mcp.connection import SecretLookup, ServerConnection, Unavailable, describe
from tuibot.mcp.prompts import (
    PromptCommand,
    messages_text,
    prompt_arguments,
    prompt_commands,
    untrusted_prompt_line,
)
from tuibot.mcp.tools import build_specs, registry_name, result_text
from tuibot.settings.mcp import McpServerSettings
from tuibot.toolkit.decorator import ToolSpec
from tuibot.toolkit.registry import ToolOutput

log = logging.getLogger("tuibot.mcp")

Publish = Callable[[str, Sequence[ToolSpec]], None]
"""``publish(source, specs)``: replace one server's tools in the registry."""
Notify = Callable[[McpServerNotice], None]
"""``notify(notice)``: a server came up or failed (the tool log, the servers screen)."""


@dataclass(frozen=True)
class ServerView:
    """One server as a front end shows it (the servers screen, ``tuibot tools list``)."""

    name: str
    transport: str
    state: str
    """``stopped``, ``starting``, ``ready``, ``failed`` or ``disabled``."""
    tools: int
    prompts: int
    reason: str = ""
    stderr_tail: str = ""
    retry_in: float = 0.0


class McpManager:
    """Owns one :class:`ServerConnection` per enabled server."""

    def __init__(
        self,
        servers: dict[str, McpServerSettings],
        data: Path,
        *,
        cwd: Path,
        publish: Publish,
        notify: Notify = lambda notice: None,
        secret: SecretLookup = lambda _: None,
        restart: bool = True,
        transcriber: Transcriber = lambda: None,
    ) -> None:
        self.cache = ToolCache(data / "tools")
        self.kept = data / "kept"
        """Where images and audio from results are stored (the result names the file; an
        image's reference also goes on the tool message)."""
        self.publish = publish
        self.notify = notify
        self.cwd = cwd
        self.secret = secret
        self.restart = restart
        """Restart failed servers with backoff (the CLI's one-off checks do not)."""
        self.transcriber = transcriber
        """How a result's audio is transcribed (``[transcription]``; None: a note)."""
        self.servers: dict[str, McpServerSettings] = {}
        """Enabled servers by name (``configured`` also holds the disabled ones)."""
        self.configured: dict[str, McpServerSettings] = dict(servers)
        self.connections: dict[str, ServerConnection] = {}
        self._announced: dict[str, str] = {}
        self._prompts: dict[str, dict[str, PromptCommand]] = {}
        """Each server's prompts as slash commands (cached until the live list arrives)."""
        self.started = False
        """Whether :meth:`start` ran (a server added later then starts at once)."""
        for server in servers.values():
            if server.enabled:
                self._add(server)

    def _add(self, server: McpServerSettings) -> ServerConnection:
        connection = ServerConnection(
            server, cwd=self.cwd, on_change=self._changed, secret=self.secret,
            restart=self.restart,
        )  # fmt: skip
        self.servers[server.name] = server
        self.connections[server.name] = connection
        return connection

    def offer_cached(self) -> None:
        """Register every server's cached tool list (no process started, no waiting)."""
        for name in self.servers:
            self._offer_cached(name)

    def _offer_cached(self, name: str) -> None:
        server = self.servers[name]
        tools = self.cache.load(server)
        if tools:
            self._publish(self.connections[name], tools)
        self._prompts[name] = prompt_commands(name, self.cache.load(server, "prompts") or [])

    def start(self) -> None:
        """Start every server in the background (needs a running event loop)."""
        self.started = True
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

    def views(self) -> list[ServerView]:
        """Every configured server's state, tool and prompt counts, in config order."""
        views = []
        for name, server in self.configured.items():
            connection = self.connections.get(name)
            if connection is None:
                views.append(ServerView(name, server.transport, "disabled", 0, 0))
                continue
            tools = len(self.tool_names(name))
            views.append(ServerView(
                name, server.transport, connection.state, tools, len(self._prompts.get(name, {})),
                connection.reason, connection.stderr_tail, connection.retry_in,
            ))  # fmt: skip
        return views

    def tool_names(self, name: str) -> list[str]:
        """The registry names of server ``name``'s offered tools (live, else cached)."""
        server = self.servers.get(name)
        if server is None:
            return []
        tools = self.connections[name].tools or self.cache.load(server) or []
        return [spec.name for spec in build_specs(server, tools, _no_call, lambda: None)]

    # -- live changes: a restart from the servers screen, an edited config ------------

    async def restart_server(self, name: str) -> bool:
        """Stop server ``name`` and start it afresh, backoff reset; False if not running here."""
        connection = self.connections.get(name)
        if connection is None:
            return False
        await connection.close()
        connection.failures, connection.retry_in = 0, 0.0
        self._announced.pop(name, None)
        connection.start()
        return True

    async def apply(self, servers: dict[str, McpServerSettings]) -> list[str]:
        """Make the running servers match an edited config; what changed, one line each.

        Only servers whose settings changed are restarted; a removed (or now disabled)
        server is stopped and its tools and prompts leave the registry; a new one starts
        (at once when the others have started, else with them).
        """
        import asyncio

        wanted = {n: s for n, s in servers.items() if s.enabled}
        gone = [n for n in self.servers if wanted.get(n) != self.servers[n]]
        await asyncio.gather(*(self.connections[n].close() for n in gone))
        said = []
        for name in gone:
            self._drop(name)
            said.append(f"MCP server {name} {'changed' if name in wanted else 'removed'}")
        self.configured = dict(servers)
        for name, server in wanted.items():
            if name in self.connections:
                continue
            connection = self._add(server)
            self._offer_cached(name)
            if self.started:
                connection.start()
            if name not in gone:
                said.append(f"MCP server {name} added")
        return said

    def _drop(self, name: str) -> None:
        """Forget a stopped server: its tools and prompts go, its notices may repeat."""
        del self.connections[name], self.servers[name]
        self._prompts.pop(name, None)
        self._announced.pop(name, None)
        self.publish(f"mcp:{name}", [])

    def _changed(self, connection: ServerConnection) -> None:
        """A connection came up or failed: new tools into the registry, a notice out."""
        server = connection.server
        if self.connections.get(server.name) is not connection:
            return  # a connection replaced by a config edit, saying it stopped
        if connection.state == "ready" and connection.tools is not None:
            self.cache.save(server, connection.tools, connection.prompts)
            self._publish(connection, connection.tools)
            self._prompts[server.name] = prompt_commands(server.name, connection.prompts or [])
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
            text = f"MCP server {name} failed: {connection.reason}{extra}"
            self.notify(McpServerNotice("", "error", text, name, state))
        elif state == "ready":
            count = len(connection.tools or [])
            text = f"MCP server {name} is ready ({count} tools)"
            self.notify(McpServerNotice("", "info", text, name, state))

    # -- prompts as slash commands ----------------------------------------------------

    def prompt_usages(self) -> list[tuple[str, str]]:
        """``(usage, description)`` of every prompt, for ``/help`` and completion."""
        commands = [c for prompts in self._prompts.values() for c in prompts.values()]
        return [
            (c.usage(), c.description.splitlines()[0] if c.description else "") for c in commands
        ]

    def find_prompt(self, name: str) -> PromptCommand | None:
        """The prompt command called ``name`` (``server__prompt``), if any server has it."""
        server = name.split("__", 1)[0]
        return self._prompts.get(server, {}).get(name)

    async def run_prompt(self, name: str, tokens: list[str]) -> tuple[bool, str, str | None] | None:
        """``/server__prompt key=value``: (ok, what to show, composer text), or None when
        there is no such prompt. Every failure is one line, never a raise."""
        command = self.find_prompt(name)
        if command is None:
            return None
        try:
            arguments = prompt_arguments(command, tokens)
        except ValueError as error:
            return False, f"/{name}: {error}.", None
        connection = self.connections[command.server]
        try:
            result = await connection.get_prompt(command.prompt, arguments)
        except Unavailable as error:
            return False, f"/{name}: {error}", None
        except TimeoutError:
            return (
                False,
                f"/{name}: no answer within {connection.server.timeout:g} s (timeout)",
                None,
            )
        except Exception as error:  # the SDK's MCPError (the server refused), a closed stream
            log.debug("MCP prompt %s failed", name, exc_info=True)
            text = " ".join(describe(error).split())
            return False, f"/{name}: MCP server {command.server!r}: {text}", None
        body = messages_text(result, connection.server.max_output)
        return True, f"{untrusted_prompt_line(command)}\n{body}", body

    def _publish(self, connection: ServerConnection, tools: list[dict[str, Any]]) -> None:
        server = connection.server
        specs = build_specs(server, tools, self._caller(connection), connection.refusal)
        self.publish(f"mcp:{server.name}", specs)

    def _caller(self, connection: ServerConnection) -> Callable[[str, dict[str, Any]], Any]:
        async def call(tool: str, arguments: dict[str, Any]) -> ToolOutput:
            name = registry_name(connection.server.name, tool)
            images: list[AttachmentRef] = []
            clips: list[tuple[AttachmentRef, bytes]] = []
            text = await run_call(connection, tool, arguments, self._keeper(name, images, clips))
            if clips:
                limit = connection.server.max_output
                text += "\n" + await audio_text(name, clips, self.transcriber(), limit)
            return ToolOutput(text, tuple(dict(ref) for ref in images))

        return call

    def _keeper(
        self, tool: str, images: list[AttachmentRef], clips: list[tuple[AttachmentRef, bytes]]
    ) -> Callable[[bytes, str], str]:
        """Store a result's image or audio by content hash (the path goes in the text); an
        image's reference goes on the tool message, for vision models, and audio (bytes
        that are audio by their magic) is gathered to be transcribed (attachments/kept)."""

        def store(data: bytes, mime: str) -> str:
            try:
                path, ref = keep(self.kept, data, mime, f"{tool} image")
            except OSError as error:
                return f"(not stored: {error})"
            if ref is not None and ref["kind"] == "image":
                images.append(ref)
            elif ref is not None:
                clips.append(({**ref, "name": f"{tool} audio"}, data))
            elif mime.startswith("audio/"):
                return f"{path}; its bytes are not audio tuibot knows, so it is not transcribed"
            return str(path)

        return store


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


async def _no_call(tool: str, arguments: dict[str, Any]) -> str:
    return ""


def keyring_secret(credential: str) -> str | None:
    """A header credential from its environment variable or the keyring (then masked)."""
    from tuibot.system.secrets import KeyringUnavailable, remember_secret, resolve_api_key

    try:
        value = resolve_api_key(credential)
    except KeyringUnavailable as error:
        raise Unavailable(str(error)) from None
    if value:
        remember_secret(value)
    return value
