"""The user's tool switches: ``<data_home>/tool_state.json`` = ``{"disabled": [...]}``.

A file rather than config because ``tuibot tools disable x`` must reach a tuibot that is
already running (it watches this file), and the write is atomic (temp file + replace)
so a watcher never reads half a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from tuibot.store.atomic import replace_file
from tuibot.system.paths import data_home

STATE_FILE = "tool_state.json"


class ToolStateError(Exception):
    """The state file exists but cannot be read as ``{"disabled": [names]}``."""


def state_path() -> Path:
    """Where the switches live."""
    return data_home() / STATE_FILE


def read_disabled(path: Path) -> set[str]:
    """The disabled tool names; a missing file means none. Raises ``ToolStateError``."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise ToolStateError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolStateError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc
    names = data.get("disabled", []) if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ToolStateError(f'{path}: expected {{"disabled": [tool names]}}')
    return set(names)


def write_disabled(path: Path, names: set[str]) -> None:
    """Replace the file atomically with ``names`` (sorted, for readable diffs)."""
    text = json.dumps({"disabled": sorted(names)}, indent=2) + "\n"
    replace_file(path, text.encode("utf-8"), new_mode=0o600)
