"""One tool call in the conversation: a compact line that opens to arguments and result.

The line names the tool, sums up its arguments, and shows whether it is running, worked
or failed, and how long it took. Enter (or a click) on a focused row opens it; the
app-wide key opens every row at once.
"""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content

from tuibot.tui.widgets.blocks import Foldable

RESULT_CHARS = 8000
"""Longest result shown in an open row (the rest is counted, not drawn)."""

STATUS_MARKS = {
    "running": ("⋯ running", "$warning"),
    "ok": ("✓ ok", "$success"),
    "error": ("✗ error", "$error bold"),
    "interrupted": ("✗ interrupted", "$warning"),
}


def format_duration(seconds: float | None) -> str:
    """``0.42s``, ``12s``, ``3m05s``; "" when unknown."""
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.2f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def _clip(text: str, limit: int = RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters"


class ToolCallRow(Foldable):
    """A tool call of the chat shown, live (from events) or from history."""

    DEFAULT_CSS = """
    ToolCallRow {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: wide $accent;
        &.-error { border-left: wide $error; }
        &.-running { border-left: wide $warning; }
        &:focus { background: $boost; }
        &.-expanded { background: $surface; }
    }
    """

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: dict[str, Any],
        *,
        status: str = "running",
        output: str | None = None,
        duration: float | None = None,
        expanded: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(expanded=expanded, **kwargs)
        self.call_id = call_id
        self.tool = name
        """The tool's name."""
        self.arguments = arguments
        self.status = status
        """running, ok, error or interrupted."""
        self.output = output
        """The result, once there is one."""
        self.duration = duration
        """Seconds the call took (unknown for calls loaded from history)."""

    def finish(self, ok: bool, output: str, duration: float | None) -> None:
        """The call ended."""
        self.status = "ok" if ok else "error"
        self.output = output
        self.duration = duration
        if self.is_mounted:
            self.redraw()

    def redraw(self) -> None:
        for status in STATUS_MARKS:
            self.set_class(status == self.status, f"-{status}")
        super().redraw()

    def summary(self) -> Content:
        """The one line: tool, arguments, status, duration."""
        from tuibot.agent.calls import summarize_arguments  # not needed for the first paint

        mark, style = STATUS_MARKS.get(self.status, STATUS_MARKS["error"])
        fold = "▼" if self.expanded else "▶"
        line: list[str | tuple[str, str]] = [(f"{fold} ", "dim"), (self.tool, "bold"), "  "]
        args = summarize_arguments(self.arguments, 80)
        if args:
            line += [(args, "dim"), "  "]
        line.append((mark, style))
        duration = format_duration(self.duration)
        if duration:
            line.append((f" {duration}", "dim"))
        return Content.assemble(*line)

    def render_content(self) -> Content:
        head = self.summary()
        if not self.expanded:
            return head
        arguments = json.dumps(self.arguments, indent=2, ensure_ascii=False, default=str)
        parts: list[Content | str | tuple[str, str]] = [
            head,
            "\n",
            ("arguments", "bold"),
            "\n",
            arguments,
        ]
        if self.output is not None:
            parts += ["\n", ("result", "bold"), "\n", _clip(self.output)]
        return Content.assemble(*parts)
