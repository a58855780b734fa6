"""How each line of the delegation tree reads: a giving chat, a delegation, its usage, its pause.

Pure functions from frozen records to Rich text fitted to ``width`` cells; the tree
passes a ``Styles`` lookup (its component classes, so colours follow the theme) and
decides where each line goes.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from tuibot.delegation.records import Delegation
from tuibot.tui.text import bars

Styles = Callable[[str], Style]
"""Component-class name (``muted``, ``paused``, ``bar`` …) → its style."""

MARKS = {
    "authorizing": "?",
    "queued": "○",
    "running": "●",
    "paused": "‖",
    "completed": "✓",
    "failed": "✗",
    "cancelled": "⊘",
}
"""One cell per status, so a column of lines reads at a glance."""
PAUSES = {
    "time": "its time limit was reached",
    "steps": "its step limit was reached",
    "budget": "its budget was used up",
    "loop": "it repeated the same tool call",
    "restart": "tuibot restarted while it ran",
}
MAX_BAR = 24
MIN_BAR = 4
"""A bar narrower than this is left out; the numbers stay."""


def chat_line(toggle: str, title: str, live: int, width: int, style: Styles) -> Text:
    """A chat that gave work: its title and how much of it is still open."""
    count = f"{live} open" if live else "all ended"
    text = Text(toggle, style=style("muted"))
    room = width - text.cell_len - len(count) - 2
    text.append(bars.shorten(title, max(room, 8)), style=style("chat"))
    text.append(f"  {count}", style=style("muted"))
    return text


def status_style(record: Delegation, style: Styles) -> Style:
    """Paused stands out, failures read as errors, open work as active, the rest as done."""
    if record.status == "paused":
        return style("paused")
    if record.status in ("failed", "cancelled"):
        return style("failed")
    return style("open" if record.is_open else "ended")


def work_line(toggle: str, record: Delegation, width: int, style: Styles) -> Text:
    """A delegation: status, bot and as much of the task as fits."""
    text = Text(toggle, style=style("muted"))
    text.append(f"{MARKS[record.status]} {record.status} ", style=status_style(record, style))
    text.append(record.bot, style="bold")
    room = width - text.cell_len - 2
    if room > 4:
        text.append("  ")
        text.append(bars.shorten(record.task, room))
    return text


def usage_line(record: Delegation, time_ms: int, width: int, style: Styles) -> Text:
    """Time, steps and cost against the limits, as bars sharing the room there is."""
    used, limits = record.used(), record.limits
    gauges: list[tuple[str, int, int | None, Callable[[int], str]]] = [
        ("time", time_ms, limits.time_ms, bars.duration),
        ("steps", used.steps, limits.steps, str),
        ("cost", used.cost_micros, limits.budget_micros, bars.money),
    ]
    parts: list[tuple[str, float | None, str]] = []
    for name, value, limit, shown in gauges:
        if limit is None and not value:
            continue
        amount = shown(value) + ("" if limit is None else f"/{shown(limit)}")
        parts.append((name, bars.ratio(value, limit), amount))
    words = sum(len(name) + len(amount) + 4 for name, _, amount in parts)
    gauged = sum(1 for _, fraction, _ in parts if fraction is not None)
    bar_width = min((width - words) // gauged if gauged else 0, MAX_BAR)
    text = Text()
    for name, fraction, amount in parts:
        if text:
            text.append("  ")
        text.append(f"{name} ", style=style("muted"))
        if fraction is not None and bar_width >= MIN_BAR:
            text.append_text(_bar(fraction, bar_width, style))
            text.append(" ")
        text.append(amount)
    return text


def _bar(fraction: float, width: int, style: Styles) -> Text:
    name = "bar-over" if fraction >= 1 else "bar-high" if fraction >= 0.8 else "bar"
    return bars.bar(fraction, width, style(name), style("track"))


def pause_line(record: Delegation, above: Delegation | None, style: Styles) -> Text:
    """Why the work is paused (its own limit, or the work above it) and what answers it."""
    pause = record.pause
    text = Text("‖ paused: ", style=style("paused"))
    if pause is None:
        return text
    if pause.delegation and pause.delegation != record.id:
        who = above.bot if above is not None else pause.delegation
        text.append(f"waits for {who}'s work above it ({pause.limit})")
    else:
        text.append(PAUSES.get(pause.limit, pause.limit))
    if pause.request:
        text.append(f" · request {pause.request} · a answers", style=style("muted"))
    elif record.status == "paused":
        text.append(" · a answers", style=style("muted"))
    return text
