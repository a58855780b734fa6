"""A chat's stored history as one widget of lines, drawn only near where the person looks.

A chat of 5,000 messages is thousands of blocks. As widgets they would cost seconds to
build and lay out; here the history is a single widget as tall as all of them, and
each block is drawn (by the same widget a live block uses, on the hidden
:class:`~tuibot.tui.widgets.stage.Stage`) only when the view comes near it. Painting
a frame copies cached lines, so scrolling stays cheap however long the chat is.

Blocks not drawn yet have estimated heights
(:func:`~tuibot.tui.widgets.history_blocks.estimate_rows`);
an answer taller than a few rows is cut into pieces, so only the part in view is drawn.
When a drawn block turns out taller or shorter, the conversation keeps the row the
person reads at the same screen row (see :mod:`~tuibot.tui.render.history_rows` and
``Conversation.arrange``).

Reasoning and tool calls open and close like live ones: a click on one, or the block
cursor (up/down while the history has focus) and Enter.

This module keeps what the history shows and marks drawings stale; what to draw next,
and drawing it, is :mod:`~tuibot.tui.widgets.history_drawing`'s job.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from tuibot.tui.render.history_rows import HistoryRows, Line, Unit
from tuibot.tui.widgets.blocks import EXPAND_BINDING
from tuibot.tui.widgets.history_blocks import Entry, estimate_rows
from tuibot.tui.widgets.history_drawing import HistoryDrawing
from tuibot.tui.widgets.stage import Stage


class HistoryLines(HistoryDrawing, Widget, can_focus=True):
    """The stored part of the chat shown; the live turn's blocks follow it as widgets."""

    DEFAULT_CSS = """
    HistoryLines {
        width: 1fr;
        height: auto;
    }
    HistoryLines > .history--cursor {
        background: $boost;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"history--cursor"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous block", id="conversation.previous", show=False),
        Binding("down", "cursor(1)", "Next block", id="conversation.next", show=False),
        EXPAND_BINDING,
    ]
    """| Key | Action |\n|---|---|\n| up, down | the previous / next reasoning block or
    tool call |\n| enter | open or close it |"""

    def __init__(self, stage: Stage, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._stage = stage
        self.entries: list[Entry] = []
        """The blocks shown, oldest first."""
        self.rows = HistoryRows(0, self._estimate)
        """Units, their rows and drawings, and the row held in place."""
        self._generation = 0
        """Bumped whenever drawings stop being valid (new chat, width, theme, folds)."""
        self._width = 0
        self._view = (0, 0)
        """Rows of the history in view: top row and how many."""
        self._reasoning = False
        self._tools = False
        self._open: dict[int, bool] = {}
        """Entries opened or closed one by one, overriding the app-wide fold."""
        self._calls: dict[str, int] = {}
        """Tool call id → entry index (a result may still arrive)."""
        self._whole: set[int] = set()
        """Answers tried for pieces that cannot be cut (drawn whole)."""
        self.cursor: int | None = None
        """The entry (reasoning block or tool call) the keys act on, while focused."""
        self._wake = asyncio.Event()
        self.drawing = False
        """Blocks are being drawn now (in view, or ahead of it)."""
        self._started = False
        self._opening = False
        """A chat was just shown: its first blocks in view are drawn with the screen held."""

    def _start(self) -> None:
        """Start drawing (once, when the first chat is shown: not before the first paint)."""
        if self._started:
            return
        self._started = True
        self.watch(self.app, "theme", self._restyled, init=False)
        self.run_worker(
            self._draw_loop(),
            name="draw history",
            group="history",
            description="draw stored blocks near the view",
            exit_on_error=False,
        )

    # -- what the conversation calls -------------------------------------------------

    def show(self, entries: list[Entry], *, reasoning: bool, tools: bool) -> None:
        """Replace the history with ``entries``, all estimated until drawn."""
        self._start()
        self.entries = entries
        self._reasoning, self._tools = reasoning, tools
        self._open.clear()
        self._whole.clear()
        self._calls = {e.call_id: i for i, e in enumerate(entries) if e.kind == "tool"}
        self.cursor = None
        self._generation += 1
        self._width = self.size.width
        self.rows = HistoryRows(len(entries), self._estimate)
        height = self._view[1]
        self._view = (max(0, self.rows.total - height), height)  # a chat opens at its end
        self._opening = True
        self._changed()

    def prepend(self, entries: list[Entry]) -> None:
        """Put ``entries`` above those shown (a long chat's start, read after its end).

        What is drawn stays drawn and the view keeps its content: the rows in view move
        down by the rows added, so the conversation keeps them on screen (see
        ``Conversation.arrange``).
        """
        if not entries:
            return
        count = len(entries)
        before = self.rows.total
        self.entries = entries + self.entries
        self._open = {i + count: shown for i, shown in self._open.items()}
        self._whole = {i + count for i in self._whole}
        self._calls = {e.call_id: i for i, e in enumerate(self.entries) if e.kind == "tool"}
        if self.cursor is not None:
            self.cursor += count
        self.rows.prepend(count)
        self._generation += 1  # a batch being drawn now was chosen by the old indices
        top, height = self._view
        self._view = (top + self.rows.total - before, height)
        self._changed()

    def show_rows(self, top: int, height: int) -> None:
        """The rows of the history in view now (the conversation scrolled or resized)."""
        view = (max(0, top), max(0, height))
        if view != self._view:
            self._view = view
            self._wake.set()

    def set_folds(self, *, reasoning: bool, tools: bool) -> None:
        """Open or close every reasoning block and tool call (the app-wide keys)."""
        changed = {
            kind
            for kind, old, new in (
                ("reasoning", self._reasoning, reasoning),
                ("tool", self._tools, tools),
            )
            if old != new
        }
        self._reasoning, self._tools = reasoning, tools
        if not changed:
            return
        for index in [i for i in self._open if self.entries[i].kind in changed]:
            del self._open[index]
        self._redraw([i for i, e in enumerate(self.entries) if e.kind in changed])

    def finish_tool(self, call_id: str, ok: bool, output: str, duration: float | None) -> bool:
        """A tool call shown as running got its result; False if it is not in the history."""
        index = self._calls.get(call_id)
        if index is None:
            return False
        status = "ok" if ok else "error"
        self.entries[index] = replace(
            self.entries[index], status=status, output=output, duration=duration
        )
        self._redraw([index])
        return True

    def is_open(self, entry: int) -> bool:
        """Whether entry ``entry`` shows its body."""
        kind = self.entries[entry].kind
        return self._open.get(entry, self._reasoning if kind == "reasoning" else self._tools)

    def text_of_rows(self, top: int, bottom: int) -> list[str]:
        """The plain text of drawn rows (blank for blocks not drawn yet)."""
        return [self._strip_at(y).text.rstrip() for y in range(top, bottom)]

    # -- painting --------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        strip = self._strip_at(y)
        if self._on_cursor(y):  # the cursor's background only: the text keeps its colours
            cursor = self.get_component_rich_style("history--cursor")
            style = Style(bgcolor=cursor.bgcolor)
            strip = Strip(Segment.apply_style(strip, post_style=style), strip.cell_length)
        return strip.crop_extend(0, self.size.width, None)

    def _on_cursor(self, y: int) -> bool:
        """Whether row ``y`` belongs to the block under the cursor (not its margin)."""
        if self.cursor is None or not self.has_focus:
            return False
        index = self.rows.unit_of(self.cursor)
        return index in self.rows.drawings and y in self.rows.block_rows(index)

    def _strip_at(self, y: int) -> Strip:
        line = self.rows.line_at(y)
        if line is None:
            return Strip(self._blank(self.size.width))
        return Strip(line, self._width)

    def _blank(self, width: int) -> Line:
        """An empty row, as a margin between blocks is painted."""
        return [Segment(" " * width, Style(bgcolor=self.background_colors[1].rich_color))]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        end = selection.end.y + 1 if selection.end is not None else self.rows.total
        return selection.extract("\n".join(self.text_of_rows(0, end))), "\n"

    # -- opening and closing blocks --------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.entries:
            return
        entry = self.rows.units[self.rows.rows.at(offset.y)].entry
        if self.entries[entry].foldable:
            event.stop()
            self.cursor = entry
            self.toggle(entry)

    def toggle(self, entry: int) -> None:
        """Open or close entry ``entry`` (a reasoning block or tool call)."""
        self._open[entry] = not self.is_open(entry)
        self._redraw([entry])

    def action_toggle_block(self) -> None:
        """Open or close the block under the cursor."""
        if self.cursor is None:
            raise SkipAction()
        self.toggle(self.cursor)

    def action_cursor(self, step: int) -> None:
        """Move the cursor to the next reasoning block or tool call up or down."""
        if self.cursor is None:  # start from the view's edge the cursor moves away from
            top, height = self._view
            unit = self.rows.rows.at(top + height - 1 if step < 0 else top)
            entry = self.rows.units[unit].entry if unit >= 0 else -1
        else:
            entry = self.cursor + step
        while 0 <= entry < len(self.entries) and not self.entries[entry].foldable:
            entry += step
        if not 0 <= entry < len(self.entries):
            raise SkipAction()  # nothing that way: the conversation scrolls instead
        self.cursor = entry
        self.scroll_to_block(entry)
        self.refresh()

    def scroll_to_block(self, entry: int) -> None:
        """Bring entry ``entry`` (never cut in pieces) into view."""
        index = self.rows.unit_of(entry)
        start, height = self.rows.rows.start(index), self.rows.rows.height(index)
        origin = self.virtual_region.offset
        region = Region(0, start, self.size.width, height).translate(origin)
        parent = self.parent
        if isinstance(parent, Widget):
            parent.scroll_to_region(region, animate=False, immediate=True)

    def on_blur(self) -> None:
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    # -- drawings gone stale ---------------------------------------------------------

    def _restyled(self) -> None:
        self._forget_all()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            self._forget_all()

    def _forget_all(self) -> None:
        """Every drawing is stale (width, theme): drawn again, heights kept as estimates."""
        self._generation += 1
        self.rows.forget_all()
        self._changed()

    def _redraw(self, entries: list[int]) -> None:
        """Entries whose look changed (never cut in pieces): drawn again when near view."""
        for entry in entries:
            self.rows.forget(self.rows.unit_of(entry))
        self._generation += 1
        self._changed()

    def _estimate(self, unit: Unit) -> int:
        if unit.piece is not None:
            return estimate_rows(Entry("answer", unit.piece), self._width, expanded=False)
        expanded = self.is_open(unit.entry)
        return estimate_rows(self.entries[unit.entry], self._width, expanded=expanded)

    def _changed(self) -> None:
        """Rows changed: the widget takes their height, and drawing resumes."""
        self.styles.height = self.rows.total
        self.refresh()
        self._wake.set()
