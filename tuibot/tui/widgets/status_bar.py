"""The top line: the focused chat's bot and model, server health, context, tokens, cost.

The approvals badge sits here too, so a waiting request is visible from every pane.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from tuibot.events import Usage

HEALTH_MARKS = {"unknown": ("○", "dim"), "ok": ("●", "green"), "down": ("●", "red")}


def _usage_text(usage: Usage) -> str:
    tokens = usage.prompt_tokens + usage.completion_tokens
    cost = f" ${usage.cost_micros / 1_000_000:.4f}" if usage.cost_micros else ""
    return f"{_tokens(tokens)} tok{cost}"


def _tokens(count: int) -> str:
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def _window(count: int) -> str:
    """A window as people name it: 8192 is "8k", 131072 "128k"."""
    return f"{count // 1024}k" if count >= 1024 and count % 1024 == 0 else _tokens(count)


class StatusBar(Widget):
    """One line of status; every field is a reactive the app sets."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    bot: reactive[str] = reactive("")
    """The bot of the chat shown."""
    model: reactive[str] = reactive("")
    """The model that bot uses."""
    health: reactive[str] = reactive("unknown")
    """``unknown``, ``ok`` or ``down``: whether the model server answered the last check."""
    health_detail: reactive[str] = reactive("")
    """Where the server is, or what went wrong reaching it."""
    chat_usage: reactive[Usage] = reactive(Usage)
    """Tokens and cost of the chat shown, this session."""
    session_usage: reactive[Usage] = reactive(Usage)
    """Tokens and cost of every chat, this session."""
    context: reactive[tuple[int, int]] = reactive((0, 0))
    """(tokens the chat's last request took, the model's window); (0, 0) = not measured."""
    pending: reactive[int] = reactive(0)
    """Approval requests waiting for an answer."""
    working: reactive[str] = reactive("")
    """The shown chat's running turn (spinner, what it waits for, elapsed), or ""."""

    def render(self) -> Text:
        mark, style = HEALTH_MARKS.get(self.health, HEALTH_MARKS["unknown"])
        line = Text.assemble(("tuibot", "bold"), "  ")
        if self.bot:
            line.append(f"{self.bot}", "bold")
            line.append(f" · {self.model}  " if self.model else "  ")
        if self.working:
            line.append(self.working, "bold")
            line.append("  ")
        line.append(mark + " ", style)
        line.append(self.health_detail or self.health, "dim")
        used, window = self.context
        if window:  # the meter turns to the warning colour from 80 % of the window
            style = "bold yellow" if used >= 0.8 * window else ""
            line.append(f"   ctx {_tokens(used)}/{_window(window)}", style)
        line.append(f"   chat {_usage_text(self.chat_usage)}")
        line.append(f" · session {_usage_text(self.session_usage)}", "dim")
        return self._with_badge(line)

    # -- the approvals badge: kept whole on a narrow terminal ------------------------

    def _with_badge(self, line: Text) -> Text:
        """``line`` with the badge at its end, cutting the line (not the badge) to fit."""
        if not self.pending:
            return line
        badge = f" ⚑ {self.pending} approval{'s' if self.pending != 1 else ''} (ctrl+g) "
        room = self.content_region.width - len(badge) - 3
        if self.content_region.width and line.cell_len > room:
            line.truncate(max(0, room), overflow="ellipsis")
        line.append("   ")
        line.append(badge, "bold reverse")
        return line
