"""A hidden place where history blocks are mounted, drawn into lines once, and removed.

History is drawn by the very widgets a live block uses (so a reopened chat looks as it
did live), but a chat of thousands of blocks cannot keep thousands of widgets: each
costs layout time every frame and garbage-collector time. The stage sits inside the
conversation, so the same CSS applies, and is never displayed: the screen does not lay
its blocks out or paint them. A block mounted there is laid out on its own at the
history's width (:func:`~tuibot.tui.widgets.frozen.render_detached`), copied into
lines, and removed.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.containers import Vertical
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown

from tuibot.tui.widgets.frozen import render_detached


@dataclass(frozen=True)
class Drawn:
    """One block drawn into lines, with the margins it would have in the flow."""

    lines: list[Strip]
    top: int
    """Rows of margin above the block. (No conversation block has a bottom margin, so
    the gap between two blocks is the top margin of the second.)"""
    inner: tuple[int, int]
    """Margins of the first and last block inside (a Markdown's), top and bottom."""


class Stage(Vertical):
    """Mounts blocks out of sight so they can be drawn into lines."""

    DEFAULT_CSS = """
    Stage { display: none; }
    """

    async def draw(self, widgets: list[Widget], width: int) -> list[Drawn]:
        """Mount ``widgets``, draw each at ``width``, and take them away again."""
        await self.mount_all(widgets)  # Markdown builds its blocks before this returns
        try:
            return [
                Drawn(
                    render_detached(widget, width),
                    widget.styles.margin.top,
                    _inner_margins(widget),
                )
                for widget in widgets
            ]
        finally:
            await self.remove_children(widgets)


def _inner_margins(widget: Widget) -> tuple[int, int]:
    """The top margin of the first and the bottom margin of the last Markdown block inside
    (an answer holds one Markdown, which holds the blocks); (0, 0) for other blocks."""
    found = widget if isinstance(widget, Markdown) else next(iter(widget.query(Markdown)), None)
    blocks = found.children if found is not None else []
    if not blocks:
        return 0, 0
    return blocks[0].styles.margin.top, blocks[-1].styles.margin.bottom
