"""Bundled tool: how full a filesystem is.

This reads filesystem facts (``statvfs``), never file contents, so any path on the
machine may be asked about, inside the workspace or not: "is / full?" is the question.
"""

from __future__ import annotations

import os

from tuibot import tool
from tuibot.toolkit.sizes import clip_output, human_bytes

OUTPUT_LIMIT = 20 * 1024
"""Upper bound on the report (many mounts)."""


@tool(timeout=30)
def disk_usage(path: str = "/", all: bool = False) -> str:
    """Show total, used and free space of the filesystem holding a path, or of every disk.

    Args:
        path: Any path on this machine; its filesystem is reported.
        all: List every mounted disk filesystem instead of just the one holding path.
    """
    import psutil

    if "\0" in path:
        return "Error: path contains a NUL byte"
    if all:
        return clip_output(_all_mounts(psutil), OUTPUT_LIMIT)
    target = os.path.expanduser(path)
    if not os.path.exists(target):
        return f"Error: path not found: {path}"
    try:
        usage = psutil.disk_usage(target)
    except OSError as exc:
        return f"Error: cannot read the filesystem of {path}: {exc.strerror or exc}"
    return f"{path} (filesystem mounted at {_mount_point(target)})\n{_line(usage)}"


def _line(usage: object) -> str:
    total, used, free, percent = (getattr(usage, k) for k in ("total", "used", "free", "percent"))
    return (
        f"total {human_bytes(total)}, used {human_bytes(used)} ({percent:.1f}%), "
        f"free {human_bytes(free)}"
    )


def _mount_point(path: str) -> str:
    """The mount point of the filesystem ``path`` is on."""
    current = os.path.realpath(path)
    while not os.path.ismount(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def _all_mounts(psutil: object) -> str:
    lines: list[str] = []
    seen: set[str] = set()
    for part in psutil.disk_partitions(all=False):  # type: ignore[attr-defined]
        if part.mountpoint in seen:
            continue
        seen.add(part.mountpoint)
        try:
            usage = psutil.disk_usage(part.mountpoint)  # type: ignore[attr-defined]
        except OSError:
            continue
        lines.append(f"{part.mountpoint} ({part.device}, {part.fstype}): {_line(usage)}")
    return "\n".join(lines) or "No disk filesystems found."
