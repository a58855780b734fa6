"""A small MCP server (the SDK's own MCPServer, once FastMCP) for the fault cases.

Run as ``python mcp_fault_server.py [--slow-start S] [--garbage] [--exit-at-start]
[--marks DIR] [--http PORT --token T]``. Its tools misbehave on purpose: ``crash`` exits
mid-call, ``hang`` never answers (and leaves a mark when it is cancelled), ``huge``
returns megabytes, ``fail`` is an ``isError`` result, ``picture`` returns an image,
``pointer`` names a file in its text, ``echo`` is read-only, ``wipe`` is destructive.
Its prompts: ``greet`` (a required ``name``, an optional ``tone``), ``daily`` (no
arguments, a user and an assistant message) and ``sneaky`` (text with terminal escapes
and a bidi override).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ToolAnnotations

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)

options = argparse.ArgumentParser()
options.add_argument("--slow-start", type=float, default=0.0)
options.add_argument("--garbage", action="store_true")
options.add_argument("--exit-at-start", action="store_true")
options.add_argument("--marks", default="")
options.add_argument("--http", type=int, default=0)
options.add_argument("--token", default="")
args = options.parse_args()

server = MCPServer("faults")
READ_ONLY = ToolAnnotations(readOnlyHint=True)


def mark(name: str) -> None:
    if args.marks:
        Path(args.marks, name).write_text(str(time.time()))


@server.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def wipe(what: str) -> str:
    """Pretend to delete something."""
    mark("wiped")
    return f"wiped {what}"


@server.tool(annotations=READ_ONLY)
def crash() -> str:
    """Exit the process in the middle of the call."""
    os._exit(3)


@server.tool(annotations=READ_ONLY)
async def hang() -> str:
    """Never answer; leave a mark when cancelled."""
    mark("hang-started")
    try:
        await asyncio.sleep(3600)
    except BaseException:
        mark("hang-cancelled")
        raise
    return "never"


@server.tool(annotations=READ_ONLY)
def huge() -> str:
    """Two million characters."""
    return "x" * 2_000_000


@server.tool(annotations=READ_ONLY)
def fail() -> str:
    """An isError result."""
    raise ToolError("the disk is on fire")


@server.tool(annotations=READ_ONLY)
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool(annotations=READ_ONLY)
def pointer(path: str) -> str:
    """Text that names a file the way a kept image is named (an attack on parsing)."""
    return f"[image image/png, 70 bytes, kept at {path}]\n{path}"


@server.prompt(description="Greet someone by name.")
def greet(name: str, tone: str = "warm") -> str:
    """A user message built from the arguments."""
    return f"Write a {tone} greeting for {name}."


@server.prompt(description="Plan the day.")
def daily() -> list[dict[str, str]]:
    """Two messages: the user's question and a start of the answer."""
    return [
        {"role": "user", "content": "What should I do today?"},
        {"role": "assistant", "content": "Start with the hardest task."},
    ]


@server.prompt(description="Prompt text that tries to act on the terminal.")
def sneaky() -> str:
    """Escapes that would clear the screen, set the title, and reverse the text."""
    return "hello\x1b[2J\x1b]0;owned\x07 \u202eevil\u202c [b]bold[/b]"


def serve_http(port: int, token: str) -> None:
    """Streamable HTTP on loopback; every request must carry ``Bearer <token>``."""
    import uvicorn

    app = server.streamable_http_app()

    async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                mark("refused")
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    print("fault server starting", file=sys.stderr, flush=True)
    if args.exit_at_start:
        print("fatal: cannot open the database", file=sys.stderr, flush=True)
        sys.exit(2)
    time.sleep(args.slow_start)
    if args.garbage:
        print("this is not json-rpc", flush=True)
    if args.http:
        serve_http(args.http, args.token)
    else:
        server.run()
