"""One MCP server kept connected: start, handshake, tool list, calls, faults, restarts.

Why a class per server: every way a server can go wrong (it does not start, exits,
hangs in the handshake, writes garbage on stdout, drops the HTTP stream) must end the
same way — state ``failed`` with the reason and the tail of its stderr, in-flight calls
answered with an error (never a hang), and a restart after a growing pause. The session
reads the server through a relay, so the end of the stream, for whatever cause, is one
event: the relay closes the session's side, and the SDK fails every waiting request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from tuibot.settings.mcp import McpServerSettings

log = logging.getLogger("tuibot.mcp")

BACKOFF_FIRST = 1.0
"""Seconds before the first restart; each failure in a row doubles it."""
BACKOFF_MAX = 60.0
"""The longest pause between restarts."""
STDERR_TAIL = 2000
"""Characters of a failed server's stderr that are kept to show."""

SecretLookup = Callable[[str], "str | None"]


class Unavailable(Exception):
    """The server cannot take a call now (failed, or not up within ``startup_timeout``)."""


def backoff(failures: int) -> float:
    """The pause before restart number ``failures`` (1, 2, 4 … up to a minute)."""
    return float(min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** max(failures - 1, 0)))


def describe(exc: BaseException) -> str:
    """The innermost cause of ``exc`` in one line (task groups wrap what happened)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ServerConnection:
    """The live connection to one server; ``start()`` once, ``close()`` at the end.

    ``on_change(self)`` is called on every state change (and when the tool list
    arrives), so the owner can update the registry and tell the person.
    """

    def __init__(
        self,
        server: McpServerSettings,
        *,
        cwd: Path,
        on_change: Callable[[ServerConnection], None] = lambda _: None,
        secret: SecretLookup = lambda _: None,
        restart: bool = True,
    ) -> None:
        self.server = server
        self.cwd = cwd
        self.on_change = on_change
        self.secret = secret
        self.restart = restart
        self.state = "stopped"
        """``starting``, ``ready``, ``failed`` or ``stopped``."""
        self.reason = ""
        """Why it failed (one line)."""
        self.stderr_tail = ""
        """The end of what the server wrote on stderr before it failed."""
        self.tools: list[dict[str, Any]] | None = None
        """The tool list of the current connection (plain MCP ``Tool`` dicts)."""
        self.prompts: list[dict[str, Any]] | None = None
        """The prompt list of the current connection (plain MCP ``Prompt`` dicts)."""
        self.failures = 0
        """Failures in a row (reset when a connection comes up)."""
        self.retry_in = 0.0
        self._session: Any = None
        self._settled = asyncio.Event()
        self._end_reason = ""
        self._task: asyncio.Task[None] | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Connect in a background task (and reconnect after failures, unless told not)."""
        if self._task is None:
            name = f"mcp: {self.server.name}"
            self._task = asyncio.get_running_loop().create_task(self._run(), name=name)

    async def close(self) -> None:
        """Stop the server (its process ends with the transport) and wait for that."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._session = None
        self._set("stopped")

    async def wait_settled(self, timeout: float) -> None:
        """Wait until the connection is up or has failed, at most ``timeout`` seconds."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._settled.wait()

    def _set(self, state: str) -> None:
        self.state = state
        if state in ("ready", "failed"):
            self._settled.set()
        else:
            self._settled.clear()
        self.on_change(self)

    async def _run(self) -> None:
        while True:
            await self._once()
            if not self.restart:
                return
            self.retry_in = backoff(self.failures)
            await asyncio.sleep(self.retry_in)

    async def _once(self) -> None:
        """One connection from start to end; any end is a failure with its reason."""
        self._end_reason = ""
        self._set("starting")
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                await self._connected(errlog)
                reason = self._end_reason or "the server closed the connection"
            except Exception as exc:  # the SDK, the process, the network: all end here
                log.debug("MCP server %s failed", self.server.name, exc_info=True)
                reason = self._end_reason or describe(exc)
            finally:
                self._session = None
                self.stderr_tail = _tail(errlog)
        self.failures += 1
        self.reason = reason
        self._set("failed")

    async def _connected(self, errlog: IO[str]) -> None:
        """Open the transport and the session, list the tools, then wait for the end."""
        await asyncio.to_thread(_import_sdk)  # seconds of imports, off the event loop
        import anyio
        from mcp import ClientSession

        async with contextlib.AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(self._transport(errlog))
            into, session_read = anyio.create_memory_object_stream[Any](0)
            group = await stack.enter_async_context(anyio.create_task_group())
            ended = anyio.Event()
            group.start_soon(self._relay, read, into, ended)
            session = await stack.enter_async_context(ClientSession(session_read, write))
            try:
                async with asyncio.timeout(self.server.startup_timeout):
                    await session.initialize()
                    tools = await _list_all(session.list_tools, "tools")
                    prompts = await _prompts(session)
            except TimeoutError:
                self._end_reason = self._end_reason or (
                    f"no answer to the handshake within {self.server.startup_timeout:g} s"
                    " (startup_timeout)"
                )
                raise
            self._session, self.tools, self.prompts = session, tools, prompts
            self.failures = 0
            self._set("ready")
            await ended.wait()
            self._session = None
            group.cancel_scope.cancel()

    def _transport(self, errlog: IO[str]) -> Any:
        """The SDK's stdio or streamable-HTTP client for this server's config."""
        server = self.server
        if server.url:
            return _http_transport(server.url, self._headers())
        from mcp import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=server.command,
            args=list(server.args),
            env={k: str(v) for k, v in server.env.items()} or None,
            cwd=server.cwd or str(self.cwd),
        )
        return stdio_client(params, errlog=errlog)  # type: ignore[arg-type]

    def _headers(self) -> dict[str, str]:
        """The configured headers with ``{credential}`` filled from the keyring."""
        headers = {k: str(v) for k, v in self.server.headers.items()}
        if not any("{credential}" in v for v in headers.values()):
            return headers
        secret = self.secret(self.server.credential)
        if not secret:
            name = self.server.credential
            raise Unavailable(f"credential {name!r} is not set: `tuibot keys set {name}`")
        return {k: v.replace("{credential}", secret) for k, v in headers.items()}

    async def _relay(self, source: Any, sink: Any, ended: Any) -> None:
        """Pass messages to the session; garbage or the stream's end ends the connection."""
        try:
            async with sink:
                async for item in source:
                    if isinstance(item, Exception):
                        self._end_reason = f"sent something that is not MCP: {describe(item)}"
                        return
                    await sink.send(item)
            self._end_reason = self._end_reason or "the server closed the connection"
        except Exception as exc:
            self._end_reason = self._end_reason or describe(exc)
        finally:
            ended.set()

    # -- calls ---------------------------------------------------------------------

    def refusal(self) -> str | None:
        """Why a call cannot run now (the server has failed), or None."""
        if self.state != "failed":
            return None
        again = f"; retrying in {self.retry_in:g} s" if self.restart and self.retry_in else ""
        return f"MCP server {self.server.name!r} failed: {self.reason}{again}"

    async def session(self) -> Any:
        """The live session, waiting up to ``startup_timeout`` for one that is starting
        (a server left to start on first use is started now)."""
        self.start()
        if self.state != "ready":
            if self.state == "failed":
                raise Unavailable(self.refusal() or "failed")
            await asyncio.sleep(0)  # let a task started just now begin ("starting")
            await self.wait_settled(self.server.startup_timeout)
        if self.state != "ready" or self._session is None:
            why = self.refusal() or (
                f"MCP server {self.server.name!r} did not start within "
                f"{self.server.startup_timeout:g} s (startup_timeout)"
            )
            raise Unavailable(why)
        return self._session

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call ``tool``; the result as a plain dict. Raises Unavailable or TimeoutError.

        Cancelling the caller cancels the request, and the SDK tells the server with
        ``notifications/cancelled``; so does running past ``timeout``.
        """
        session = await self.session()
        async with asyncio.timeout(self.server.timeout):
            result = await session.call_tool(tool, arguments)
        dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        """``prompts/get`` as a plain dict, within ``timeout``. Raises like :meth:`call`."""
        session = await self.session()
        async with asyncio.timeout(self.server.timeout):
            result = await session.get_prompt(name, arguments or None)
        dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped


def _import_sdk() -> None:
    """Import the ``mcp`` client (and its HTTP transport): done in a worker thread, so a
    turn that streams while servers start is not held up by the import."""
    import mcp.client.stdio
    import mcp.client.streamable_http
    import mcp.types  # noqa: F401


async def _list_all(method: Any, field: str) -> list[dict[str, Any]]:
    """Every page of ``tools/list`` or ``prompts/list`` (``field``) as plain dicts."""
    from mcp.types import PaginatedRequestParams

    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(100):  # a server paging forever must not hang the start
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await method(params=params)
        dumped = (
            t.model_dump(by_alias=True, exclude_none=True, mode="json")
            for t in getattr(page, field)
        )
        items += dumped
        cursor = page.next_cursor
        if not cursor:
            break
    return items


async def _prompts(session: Any) -> list[dict[str, Any]]:
    """The server's prompts when it says it has any (most servers have none)."""
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.prompts is None:
        return []
    return await _list_all(session.list_prompts, "prompts")


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> Any:
    """The streamable-HTTP transport with our headers on every request."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
    async with client, streamable_http_client(url, http_client=client) as streams:
        yield streams[0], streams[1]


def _tail(errlog: IO[str]) -> str:
    """The last characters the server wrote on stderr."""
    try:
        errlog.flush()
        errlog.seek(0)
        return errlog.read()[-STDERR_TAIL:].strip()
    except (OSError, ValueError):
        return ""
