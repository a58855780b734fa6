"""``tuibot tools list | enable NAME | disable NAME``: see and switch the tools.

The switches go to the state file that a running tuibot watches, so they apply without a
restart. ``list`` loads the tools the way the engine does, so what it shows (sources,
gates, load errors with file:line) is what a chat would get; MCP servers' tools come from
their cached lists (source ``mcp:NAME``), so listing never starts a server.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuibot.toolkit.catalog import ToolCatalog


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot tools list|enable|disable``."""
    parser = subparsers.add_parser(
        "tools",
        help="list tools, enable or disable them",
        description="List tools (source, state, gates, load errors); enable or disable one.",
    )
    actions = parser.add_subparsers(dest="tools_action", metavar="ACTION", required=True)
    actions.add_parser("list", help="show every tool and every tool file that failed to load")
    for verb in ("enable", "disable"):
        sub = actions.add_parser(verb, help=f"{verb} a tool (applies to running tuibots too)")
        sub.add_argument("name", help="tool name")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run one ``tools`` action; 0 ok, 1 unknown tool, 2 bad config or state file."""
    from tuibot.settings import ConfigError, load_settings
    from tuibot.toolkit.catalog import ToolCatalog, default_folders
    from tuibot.toolkit.registry import ToolRegistry
    from tuibot.toolkit.state import ToolStateError, read_disabled, state_path, write_disabled

    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(f"tuibot: {exc}", file=sys.stderr)
        return 2
    catalog = ToolCatalog(
        ToolRegistry(), default_folders(), import_timeout=settings.tools.import_timeout
    )
    catalog.load_all()
    path = state_path()
    try:
        disabled = read_disabled(path)
    except ToolStateError as exc:
        print(f"tuibot: {exc}", file=sys.stderr)
        return 2
    if args.tools_action == "list":
        missing = _cached_mcp_tools(settings, catalog)
        print(render_list(catalog, disabled))
        for name in missing:
            print(f"MCP server {name}: no tool list yet (`tuibot mcp tools {name}` fetches it)")
        return 0
    name = args.name
    if name not in catalog.registry and name not in disabled:
        print(f"tuibot: no tool named {name!r} (see `tuibot tools list`)", file=sys.stderr)
        return 1
    wanted = disabled - {name} if args.tools_action == "enable" else disabled | {name}
    if wanted != disabled:
        write_disabled(path, wanted)
    print(f"{name}: {'enabled' if args.tools_action == 'enable' else 'disabled'}")
    return 0


def _cached_mcp_tools(settings: Any, catalog: ToolCatalog) -> list[str]:
    """Add each MCP server's cached tools (no server is started); the servers with none."""
    if not settings.mcp.servers:
        return []
    from tuibot.mcp.manager import McpManager
    from tuibot.system.paths import DataPaths

    manager = McpManager(
        settings.mcp.servers, DataPaths.default().mcp, cwd=settings.cwd, publish=catalog.set_extra
    )
    manager.offer_cached()
    return [name for name in manager.servers if not manager.tool_names(name)]


def render_list(catalog: ToolCatalog, disabled: set[str]) -> str:
    """One line per tool, then the load errors with file:line."""
    rows = [("NAME", "SOURCE", "STATE", "CONFIRM", "GATED")]
    for spec in catalog.registry.specs():
        reason = spec.unavailable_reason()
        rows.append(
            (
                spec.name,
                spec.source or "-",
                "disabled" if spec.name in disabled else "enabled",
                "yes" if spec.needs_confirmation else "no",
                reason or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
        + "  "
        + row[4]
        for row in rows
    ]
    if catalog.errors:
        lines.append("")
        lines.append("Not loaded:")
        lines.extend(f"  {error}" for error in catalog.errors.values())
    return "\n".join(lines)
