"""Bundled tool: list a folder of the workspace.

One entry per line, sorted by name: folders end in ``/`` so they read at a glance, files
carry their size so the model can judge whether to read them whole, symlinks show where
they point, pipes, sockets and devices say what they are (and are never opened). The
folder is opened from the workspace's descriptor without following a symlink, so one
swapped in mid-call cannot list a folder outside. A huge folder is capped with a note
rather than flooding the context.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tuibot import resolve_in_workspace, tool
from tuibot.toolkit.beneath import SymlinkInPath, kind_of, open_dir, stat_below
from tuibot.toolkit.workspace import current_workspace

MAX_ENTRIES = 500
"""Entries shown at most; the rest are counted in a note."""


@tool(timeout=30)
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
        lines, count = _listing(target)
    except FileNotFoundError:
        return f"Error: directory not found: {path}"
    except NotADirectoryError:
        return f"Error: '{path}' is a file, not a directory; use read_file to read it"
    except SymlinkInPath as exc:
        return f"Error: cannot list {path}: {exc}"
    except PermissionError:
        return f"Error: permission denied: {path}"
    except OSError as exc:
        return f"Error: cannot list {path}: {exc.strerror or exc}"
    if not count:
        return "(empty directory)"
    if count > MAX_ENTRIES:
        lines.append(
            f"[showing the first {MAX_ENTRIES} of {count} entries; "
            "list a subdirectory to narrow down]"
        )
    return "\n".join(lines)


def _listing(target: Path) -> tuple[list[str], int]:
    """The described entries of ``target`` (the first ``MAX_ENTRIES``) and how many it has.

    The folder is read through its descriptor: entries' facts come from ``fstatat`` in
    that folder, so they describe what is really there, not what a swap put at the name.
    """
    fd = open_dir(current_workspace(), target)
    try:
        with os.scandir(fd) as entries:
            found = sorted(entries, key=lambda e: (e.name.casefold(), e.name))
        return [_describe(entry, fd, target) for entry in found[:MAX_ENTRIES]], len(found)
    finally:
        os.close(fd)


def _describe(entry: os.DirEntry[str], fd: int, folder: Path) -> str:
    """``name/`` for a folder, ``name (size)`` for a file, plus ``-> target`` for a link.

    A link leading outside the workspace shows only where it points: its target's kind
    and size are facts about a place the model may not look.
    """
    try:
        if entry.is_symlink():
            return _describe_link(entry.name, fd, folder)
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return f"{entry.name} (unreadable)"
    if stat.S_ISDIR(info.st_mode):
        return f"{entry.name}/"
    if stat.S_ISREG(info.st_mode):
        return f"{entry.name} ({_size(info.st_size)})"
    return f"{entry.name} ({kind_of(info.st_mode)})"


def _describe_link(name: str, fd: int, folder: Path) -> str:
    """A link's target, and for one inside the workspace what it leads to (no-follow)."""
    target = os.readlink(name, dir_fd=fd)
    root = current_workspace()
    real = Path(os.path.realpath(folder / name))
    if not real.is_relative_to(root):
        return f"{name} -> {target} (outside the workspace)"
    try:
        info = stat_below(root, real)
    except (FileNotFoundError, NotADirectoryError):
        return f"{name} -> {target} (broken)"
    if stat.S_ISDIR(info.st_mode):
        return f"{name}/ -> {target}"
    if stat.S_ISREG(info.st_mode):
        return f"{name} ({_size(info.st_size)}) -> {target}"
    return f"{name} ({kind_of(info.st_mode)}) -> {target}"


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
