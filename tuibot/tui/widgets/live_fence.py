"""A code fence while it streams: finished lines highlighted once, in chunks.

Re-rendering a growing fence as Markdown re-highlights all of it every frame, which is
quadratic in its length. While a long top-level fence is open, the answer view shows it
here instead: every :data:`CHUNK_LINES` finished lines become a highlighted Static that is
never touched again, and only the last few lines are redrawn. When the fence closes the
answer view renders it once as real Markdown, so the final look is Textual's own.
"""

from __future__ import annotations

from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.highlight import HighlightTheme, highlight
from textual.widgets import Static

from tuibot.tui.widgets.lean import LeanContainer

CHUNK_LINES = 40
"""Finished lines per highlighted chunk."""


def highlighted(code: str, language: str) -> Content:
    """``code`` highlighted as Textual's Markdown fences do (plain text if no language)."""
    return highlight(code, language=language or "text", theme=HighlightTheme)


class LiveFence(LeanContainer, Vertical):
    """The streaming body of one code fence."""

    DEFAULT_CSS = """
    LiveFence {
        height: auto;
        margin: 1 0;
        padding: 1 2;
        background: $foreground 4%;
        & > Static { width: auto; min-width: 100%; text-wrap: nowrap; text-overflow: clip; }
    }
    """

    def __init__(self, language: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.language = language
        """The fence's language, from its info string."""
        self._lines: list[str] = []
        """Finished lines not yet in a chunk."""
        self._shown = 0
        """Finished lines of the fence already handed to this widget."""
        self._live = Static("", classes="live-lines", markup=False)

    def compose(self) -> Any:
        yield self._live

    @property
    def lines_shown(self) -> int:
        """How many finished lines of the fence this widget has taken."""
        return self._shown

    async def show(self, finished: list[str], partial: str) -> None:
        """Take newly finished lines and the partial last line; redraw the live part."""
        self._shown += len(finished)
        self._lines.extend(finished)
        chunks = []
        while len(self._lines) >= CHUNK_LINES:
            block, self._lines = self._lines[:CHUNK_LINES], self._lines[CHUNK_LINES:]
            chunks.append(Static(highlighted("\n".join(block), self.language), markup=False))
        if chunks:
            await self.mount_all(chunks, before=self._live)
        live = "\n".join([*self._lines, partial]) if partial else "\n".join(self._lines)
        self._live.update(highlighted(live, self.language) if live else "")
