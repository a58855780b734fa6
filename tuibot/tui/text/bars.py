"""Small text pieces the side panes share: usage bars, durations, ages, sizes, money.

Panes render frozen engine records into one-line summaries; these helpers keep the
units the same everywhere (``2m05s``, ``3m ago``, ``1.2k``, ``$0.0012``) and draw a bar
that fits whatever width the pane has, from ~60 columns to a maximized pane.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

EIGHTHS = " ▏▎▍▌▋▊▉"
"""Partial block characters, by eighths of a cell, for smooth bars."""
FULL = "█"
TRACK = "░"
_GIVEN = re.compile(r"^\[tuibot\] .+? gives you this task: ")
"""A task chat's first input, which also becomes its title and its first task's title."""
GIVEN_MARK = "↳ "


def duration(ms: float) -> str:
    """A short duration: ``850ms``, ``12s``, ``3m05s``, ``2h10m``, ``3d4h``."""
    if ms < 1000:
        return f"{max(ms, 0):.0f}ms"
    seconds = int(ms // 1000)
    if seconds < 60:
        return f"{ms / 1000:.1f}s" if seconds < 10 else f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s" if seconds else f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h{minutes:02d}m" if minutes else f"{hours}h"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h" if hours else f"{days}d"


def age(seconds: float) -> str:
    """How long ago, coarsely, for cards: ``now``, ``12s``, ``3m``, ``2h``, ``4d``."""
    if seconds < 5:
        return "now"
    if seconds < 60:
        return f"{int(seconds)}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


def size(count: int) -> str:
    """A character count: ``312``, ``1.2k``, ``34k``, ``1.1M``."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"


def money(micros: int) -> str:
    """Micro-USD as dollars with enough digits to show small model costs."""
    dollars = micros / 1_000_000
    return f"${dollars:.2f}" if dollars >= 10 else f"${dollars:.4f}"


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` cells with an ellipsis."""
    flat = " ".join(text.split())
    if width <= 0:
        return ""
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def ratio(used: float, limit: float | None) -> float | None:
    """How much of ``limit`` is used (may pass 1.0), or None without a limit."""
    if not limit:
        return None
    return max(used, 0) / limit


def bar(fraction: float, width: int, fill: Style, track: Style) -> Text:
    """A bar ``width`` cells wide, filled to ``fraction`` (clamped to 0–1) in eighths."""
    width = max(width, 0)
    eighths = round(min(max(fraction, 0.0), 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    text = Text(FULL * full, style=fill)
    if part and full < width:
        text.append(EIGHTHS[part], style=fill)
    text.append(TRACK * (width - text.cell_len), style=track)
    return text


def given_task(title: str) -> str | None:
    """For the notice that hands a bot its task: the task text after it; else None."""
    found = _GIVEN.match(title)
    return title[found.end() :] if found else None


def chat_title(title: str) -> str:
    """A title for the panes: a task chat's notice becomes ``↳ <task>``."""
    task = given_task(title)
    return title if task is None else GIVEN_MARK + task
