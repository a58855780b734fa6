"""Bundled tool: the processes running on this machine, busiest first.

CPU percentages need two readings: every process is sampled, then again after a short
pause. Processes come and go while that happens; one that exits or hides its details
is skipped or shown with what could be read, never an error for the whole list.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from tuibot import Param, tool
from tuibot.toolkit.sizes import clip_output, human_bytes

SAMPLE_SECONDS = 0.3
"""Time between the two CPU readings."""
OUTPUT_LIMIT = 20 * 1024
"""Upper bound on the table."""
COMMAND_WIDTH = 80
"""Characters of each command line shown."""


@tool(timeout=30)
def processes(
    sort_by: Literal["cpu", "memory", "pid", "name"] = "cpu",
    limit: Annotated[int, Param(ge=1, le=200)] = 20,
    name: str = "",
) -> str:
    """List running processes with CPU, memory, user and command line.

    Args:
        sort_by: Order: "cpu" and "memory" busiest first, "pid" and "name" ascending.
        limit: Maximum number of processes shown.
        name: Only processes whose name or command line contains this text.
    """
    import psutil

    gone = (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied)
    procs = []
    for proc in psutil.process_iter():
        try:
            proc.cpu_percent(None)  # first reading
            procs.append(proc)
        except gone:
            continue
    time.sleep(SAMPLE_SECONDS)
    rows = [row for proc in procs if (row := _row(proc, gone)) is not None]
    needle = name.lower()
    if needle:
        rows = [r for r in rows if needle in r["name"].lower() or needle in r["cmd"].lower()]
    if not rows:
        return f"No processes match {name!r}." if name else "No processes could be read."
    key = {
        "cpu": lambda r: (-r["cpu"], r["pid"]),
        "memory": lambda r: (-r["rss"], r["pid"]),
        "pid": lambda r: r["pid"],
        "name": lambda r: (r["name"].lower(), r["pid"]),
    }[sort_by]
    rows.sort(key=key)
    shown = rows[:limit]
    lines = [f"{'PID':>7} {'CPU%':>6} {'MEM%':>5} {'RSS':>10} {'STATUS':<9} {'USER':<10} COMMAND"]
    for r in shown:
        lines.append(
            f"{r['pid']:>7} {r['cpu']:>6.1f} {r['mem']:>5.1f} {human_bytes(r['rss']):>10} "
            f"{r['status'][:9]:<9} {_one_line(r['user'][:10]):<10} {r['cmd']}"
        )
    if len(rows) > len(shown):
        lines.append(f"[{len(shown)} of {len(rows)} processes shown; raise limit or filter]")
    return clip_output("\n".join(lines), OUTPUT_LIMIT)


def _one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped.

    A process's arguments may hold anything (``python -c`` with a script, say); one
    process must stay one row of the table.
    """
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _row(proc: Any, gone: tuple[type[BaseException], ...]) -> dict[str, Any] | None:
    """One process's figures, or None if it vanished before they could be read."""
    try:
        with proc.oneshot():
            cpu = proc.cpu_percent(None)
            info = proc.as_dict(
                ["pid", "name", "username", "memory_percent", "memory_info", "status", "cmdline"],
                ad_value=None,
            )
    except gone:
        return None
    command = _one_line(" ".join(info["cmdline"] or []) or f"[{info['name'] or '?'}]")
    if len(command) > COMMAND_WIDTH:
        command = command[: COMMAND_WIDTH - 1] + "…"
    return {
        "pid": info["pid"],
        "name": info["name"] or "?",
        "user": info["username"] or "?",
        "cpu": cpu or 0.0,
        "mem": info["memory_percent"] or 0.0,
        "rss": info["memory_info"].rss if info["memory_info"] else 0,
        "status": info["status"] or "?",
        "cmd": command,
    }
