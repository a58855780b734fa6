"""``tuibot mcp list | tools NAME | add NAME -- CMD ARGS… | add NAME --url URL | remove NAME``.

``list`` and ``tools`` start the servers the way the engine does (same settings, same
client), so a server that fails here fails in a chat too, and a success refreshes the
cached tool list that the next start offers at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot mcp …``."""
    parser = subparsers.add_parser(
        "mcp", help="MCP servers: list, their tools, add, remove",
        description="MCP servers whose tools the model may call (see docs/mcp.md).",
    )  # fmt: skip
    actions = parser.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)
    actions.add_parser("list", help="every server: state, tool count, error output")
    tools = actions.add_parser("tools", help="a server's tools and whether each asks first")
    tools.add_argument("name", help="server name")
    add = actions.add_parser(
        "add", help="add a server: NAME -- COMMAND ARGS… (stdio) or NAME --url URL (HTTP)"
    )
    add.add_argument("name", help="server name (letters, digits, '-')")
    add.add_argument("--url", help="a streamable-HTTP endpoint instead of a command")
    add.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS…")
    remove = actions.add_parser("remove", help="remove a server from the config file")
    remove.add_argument("name", help="server name")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run one action; 0 ok, 1 a server failed or is unknown, 2 bad config or usage."""
    from tuibot.settings import ConfigError, load_settings

    try:
        if args.mcp_action in ("add", "remove"):
            return _edit(args)
        settings = load_settings(getattr(args, "config", None))
    except ConfigError as error:
        print(f"tuibot: {error}", file=sys.stderr)
        return 2
    import asyncio

    if args.mcp_action == "list":
        return asyncio.run(_list(settings))
    return asyncio.run(_tools(settings, args.name))


def _edit(args: argparse.Namespace) -> int:
    from tuibot.mcp.config_edit import add_server, remove_server
    from tuibot.settings import find_config_file
    from tuibot.system import paths

    target = find_config_file(getattr(args, "config", None)) or (
        paths.config_home() / "config.toml"
    )
    if args.mcp_action == "remove":
        remove_server(target, args.name)
        print(f"removed MCP server {args.name} from {target}")
        return 0
    command = list(args.command)
    if command[:1] == ["--url"] and len(command) > 1:  # REMAINDER took the option too
        args.url, command = command[1], command[2:]
    command = command[1:] if command[:1] == ["--"] else command
    if bool(args.url) == bool(command):
        print("tuibot: give either -- COMMAND ARGS… or --url URL", file=sys.stderr)
        return 2
    body: dict[str, Any] = {"url": args.url} if args.url else {"command": command[0]}
    if len(command) > 1:
        body["args"] = command[1:]
    add_server(target, args.name, body)
    print(f"added MCP server {args.name} to {target}")
    return 0


def _manager(settings: Any, only: str | None = None) -> Any:
    from tuibot.mcp.manager import McpManager, keyring_secret
    from tuibot.system.paths import DataPaths

    servers = settings.mcp.servers
    if only is not None:
        servers = {only: servers[only]}
    return McpManager(
        servers, DataPaths.default().mcp, cwd=settings.cwd,
        publish=lambda source, specs: None, secret=keyring_secret, restart=False,
    )  # fmt: skip


async def _list(settings: Any) -> int:
    servers = settings.mcp.servers
    if not servers:
        print("no MCP servers configured (add one: tuibot mcp add NAME -- COMMAND ARGS…)")
        return 0
    manager = _manager(settings)
    manager.start()
    try:
        await manager.settle()
        failed = False
        for name, server in servers.items():
            connection = manager.connections.get(name)
            failed |= connection is not None and connection.state != "ready"
            print(status_line(server, connection))
            if connection is not None and connection.state == "failed":
                print(failure_details(connection))
    finally:
        await manager.close()
    return 1 if failed else 0


def status_line(server: Any, connection: Any) -> str:
    """``NAME  STATE  N tools  target`` for one server."""
    from tuibot.visible import visible

    target = server.url or " ".join([server.command, *server.args])
    if connection is None:
        return f"{server.name:<16} disabled  {visible(target)}"
    count = f"{len(connection.tools or [])} tools" if connection.state == "ready" else "-"
    return f"{server.name:<16} {connection.state:<9} {count:<9} {visible(target)}"


def failure_details(connection: Any) -> str:
    """The reason and the stderr tail, indented under the status line."""
    from tuibot.visible import visible

    lines = [f"  reason: {visible(connection.reason)}"]
    if connection.stderr_tail:
        lines.append("  stderr:")
        lines += [f"    {visible(line)}" for line in connection.stderr_tail.splitlines()[-10:]]
    return "\n".join(lines)


async def _tools(settings: Any, name: str) -> int:
    from tuibot.mcp.tools import build_specs

    server = settings.mcp.servers.get(name)
    if server is None:
        known = ", ".join(settings.mcp.servers) or "(none)"
        print(f"tuibot: no MCP server {name!r}; configured: {known}", file=sys.stderr)
        return 1
    manager = _manager(settings, name)
    if not manager.connections:
        print(f"MCP server {name} is disabled (enabled = false)")
        return 1
    manager.start()
    try:
        await manager.settle()
        connection = manager.connections[name]
        if connection.state != "ready":
            print(status_line(server, connection))
            print(failure_details(connection))
            return 1
        for spec in build_specs(server, connection.tools or [], _unused, lambda: None):
            asks = "asks" if spec.confirm else "no prompt"
            summary = spec.description.splitlines()[0] if spec.description else ""
            print(f"{spec.name:<40} {asks:<9} {summary}")
    finally:
        await manager.close()
    return 0


async def _unused(tool: str, arguments: dict[str, Any]) -> str:
    return ""
