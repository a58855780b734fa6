"""``tuibot mcp add`` / ``remove``: edit ``[mcp.servers.NAME]`` with comments kept.

The edited document is checked as a whole (every setting, the MCP rules) before it is
written, atomically, so a bad server leaves the file as it was; a trusted project file
stays trusted after our own edit (``carry_trust``), as with ``tuibot config set``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tuibot.settings.mcp import SERVER_NAME
from tuibot.settings.schema import ConfigError


def add_server(path: Path, name: str, body: dict[str, Any]) -> None:
    """Add server ``name`` with ``body`` (``command``/``args`` or ``url``) to ``path``."""
    import tomlkit

    if not SERVER_NAME.match(name):
        raise ConfigError(f"server name {name!r}: use 1-31 letters, digits or '-' (no '_')")

    def change(doc: Any) -> None:
        servers = _servers(doc, create=True)
        if name in servers:
            raise ConfigError(f"MCP server {name!r} exists already in {path}; remove it first")
        table = tomlkit.table()
        for key, value in body.items():
            table[key] = value
        servers[name] = table

    _edit(path, change)


def remove_server(path: Path, name: str) -> None:
    """Remove server ``name`` from ``path`` (ConfigError when it is not there)."""

    def change(doc: Any) -> None:
        servers = _servers(doc, create=False)
        if servers is None or name not in servers:
            raise ConfigError(f"no MCP server {name!r} in {path}")
        del servers[name]

    _edit(path, change)


def _servers(doc: Any, *, create: bool) -> Any:
    """The ``[mcp.servers]`` table of ``doc`` (made, as a super-table, when asked)."""
    import tomlkit

    if "mcp" not in doc:
        if not create:
            return None
        doc["mcp"] = tomlkit.table(is_super_table=True)
    if "servers" not in doc["mcp"]:
        if not create:
            return None
        doc["mcp"]["servers"] = tomlkit.table(is_super_table=True)
    return doc["mcp"]["servers"]


def _edit(path: Path, change: Any) -> None:
    import tomlkit

    from tuibot.settings import config_io, settings_from
    from tuibot.settings.project import carry_trust

    doc = config_io.read_document(path) if path.exists() else tomlkit.document()
    before = doc.as_string().encode("utf-8") if path.exists() else None
    change(doc)
    text = doc.as_string()
    settings_from(path, text.encode("utf-8"), cwd=path.parent)  # check before writing
    path.parent.mkdir(parents=True, exist_ok=True)
    config_io.write_atomic(path, text)
    carry_trust(path, before, text.encode("utf-8"))
