"""Each server's last tool and prompt lists on disk, keyed by its config, so start-up never
waits (and prompt commands complete before the server is up).

The key is a hash of everything that decides which server answers (command, args, env,
cwd, url, headers, credential name); editing any of it makes the old list stale, so it
is not offered for a different server. Secrets are never in the config, so never here.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from tuibot.settings.mcp import McpServerSettings
from tuibot.store.atomic import replace_file

log = logging.getLogger("tuibot.mcp")


def config_key(server: McpServerSettings) -> str:
    """A short hash of the fields that identify the server behind the config."""
    ident = {
        "command": server.command,
        "args": server.args,
        "env": server.env,
        "cwd": server.cwd,
        "url": server.url,
        "headers": server.headers,
        "credential": server.credential,
    }
    text = json.dumps(ident, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class ToolCache:
    """Tool lists in ``<folder>/<server>-<key>.json``; a broken file is just no cache."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, server: McpServerSettings) -> Path:
        """Where this server's list for this config lives."""
        return self.folder / f"{server.name}-{config_key(server)}.json"

    def load(self, server: McpServerSettings, what: str = "tools") -> list[dict[str, Any]] | None:
        """The cached ``tools`` (or ``prompts``), or None when there are none (or they
        cannot be read)."""
        try:
            data = json.loads(self.path(server).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        items = data.get(what) if isinstance(data, dict) else None
        if not isinstance(items, list):
            return None
        return [t for t in items if isinstance(t, dict)]

    def save(
        self,
        server: McpServerSettings,
        tools: list[dict[str, Any]],
        prompts: list[dict[str, Any]] | None = None,
    ) -> None:
        """Write the list atomically; failing to cache is logged, never an error."""
        target = self.path(server)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            for old in target.parent.glob(f"{server.name}-*.json"):
                if old != target:
                    old.unlink(missing_ok=True)
            body = {"server": server.name, "tools": tools, "prompts": prompts or []}
            replace_file(target, json.dumps(body, ensure_ascii=False).encode("utf-8"))
        except OSError as error:
            log.warning("MCP tool list of %s not cached: %s", server.name, error)
