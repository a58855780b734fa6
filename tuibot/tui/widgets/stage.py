"""A hidden place where history blocks are mounted, drawn into lines once, and removed.

History is drawn by the very widgets a live block uses (so a reopened chat looks as it
did live), but a chat of thousands of blocks cannot keep thousands of widgets: each
costs layout time every frame and garbage-collector time. The stage sits at the end of
the conversation, so the same CSS and width apply, with no height: blocks mounted there
are laid out like any other but clipped away, so nothing shows. Once laid out, a
block's lines are copied and it is removed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from textual.containers import Vertical
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tuibot.tui.widgets.frozen import render_off_screen

ROOM = 10_000
"""Rows a block may take when its height is measured (far more than any needs)."""
LAYOUT_TRIES = 20
"""Screen refreshes to wait for mounted blocks to be laid out (Markdown takes a few)."""


@dataclass(frozen=True)
class Drawn:
    """One block drawn into lines, with the margins it would have in the flow."""

    lines: list[Strip]
    top: int
    """Rows of margin above the block."""
    bottom: int
    """Rows of margin under the block."""


class Stage(Vertical):
    """Mounts blocks out of sight so they can be drawn into lines."""

    DEFAULT_CSS = """
    Stage { height: 0; overflow: hidden; }
    """

    async def draw(self, widgets: list[Widget]) -> list[Drawn]:
        """Mount ``widgets``, draw each once laid out, and take them away again."""
        await self.mount_all(widgets)
        try:
            for _ in range(LAYOUT_TRIES):
                await self._refreshed()
                if all(_laid_out(widget) for widget in widgets):
                    break
            return [
                Drawn(
                    render_off_screen(widget) or [],
                    widget.styles.margin.top,
                    widget.styles.margin.bottom,
                )
                for widget in widgets
            ]
        finally:
            await self.remove_children(widgets)

    async def _refreshed(self) -> None:
        """Wait until the screen has been laid out again."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def refreshed() -> None:
            if not done.done():
                done.set_result(None)

        self.call_after_refresh(refreshed)
        self.refresh(layout=True)
        await done


def _laid_out(widget: Widget) -> bool:
    """Whether ``widget`` and everything in it have their size, for what they show now.

    A layout that ran before a block set its content (a fold opened in ``on_mount``)
    gave it the old height: its content height at its width must match its height.
    """
    width, height = widget.outer_size
    if not width or not all(child.size.width for child in widget.walk_children(Widget)):
        return False
    gutter = widget.styles.gutter
    room = Size(width, ROOM)
    return widget.get_content_height(room, room, width - gutter.width) + gutter.height == height
