"""Bundled tool: list a folder of the workspace.

One entry per line, sorted by name: folders end in ``/`` so they read at a glance, files
carry their size so the model can judge whether to read them whole, symlinks show where
they point. A huge folder is capped with a note rather than flooding the context.
"""

from __future__ import annotations

import os
from pathlib import Path

from tuibot import resolve_in_workspace, tool
from tuibot.toolkit.workspace import current_workspace

MAX_ENTRIES = 500
"""Entries shown at most; the rest are counted in a note."""


@tool
def list_dir(path: str = ".") -> str:
    """List the files and folders in a workspace directory (folders end with "/").

    Args:
        path: Directory to list, relative to the workspace; "." is the workspace itself.
    """
    try:
        target = resolve_in_workspace(path)
    except (PermissionError, ValueError) as exc:
        return f"Error: {exc}"
    try:
        with os.scandir(target) as entries:
            found = sorted(entries, key=lambda e: (e.name.casefold(), e.name))
    except FileNotFoundError:
        return f"Error: directory not found: {path}"
    except NotADirectoryError:
        return f"Error: '{path}' is a file, not a directory; use read_file to read it"
    except PermissionError:
        return f"Error: permission denied: {path}"
    except OSError as exc:
        return f"Error: cannot list {path}: {exc.strerror or exc}"
    if not found:
        return "(empty directory)"
    lines = [_describe(entry) for entry in found[:MAX_ENTRIES]]
    if len(found) > MAX_ENTRIES:
        lines.append(
            f"[showing the first {MAX_ENTRIES} of {len(found)} entries; "
            "list a subdirectory to narrow down]"
        )
    return "\n".join(lines)


def _describe(entry: os.DirEntry[str]) -> str:
    """``name/`` for a folder, ``name (size)`` for a file, plus ``-> target`` for a link.

    A link leading outside the workspace shows only where it points: its target's kind
    and size are facts about a place the model may not look.
    """
    try:
        if entry.is_symlink():
            return _describe_link(entry)
        if entry.is_dir():
            return f"{entry.name}/"
        if entry.is_file():
            return f"{entry.name} ({_size(entry.stat().st_size)})"
        return entry.name
    except OSError:
        return f"{entry.name} (unreadable)"


def _describe_link(entry: os.DirEntry[str]) -> str:
    target = os.readlink(entry.path)
    real = Path(os.path.realpath(entry.path))
    if not real.is_relative_to(current_workspace()):
        return f"{entry.name} -> {target} (outside the workspace)"
    if not real.exists():
        return f"{entry.name} -> {target} (broken)"
    if real.is_dir():
        return f"{entry.name}/ -> {target}"
    return f"{entry.name} ({_size(real.stat().st_size)}) -> {target}"


def _size(n: int) -> str:
    """A size a reader takes in at once: bytes below 1 KB, else one decimal."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    return f"{n} B"
