"""A chat's stored history as one widget of lines, drawn only near where the person looks.

A chat of 5,000 messages is thousands of blocks. As widgets they would cost seconds to
build and lay out; here the history is a single widget as tall as all of them, and
each block is drawn (by the same widget a live block uses, on the hidden
:class:`~tuibot.tui.widgets.stage.Stage`) only when the view comes near it. Painting
a frame copies cached lines, so scrolling stays cheap however long the chat is.

Blocks not drawn yet have estimated heights (:func:`~tuibot.tui.widgets.history.estimate_rows`).
When a drawn block turns out taller or shorter, the conversation keeps the block the
person reads at the same screen row (see ``Conversation.arrange``).

Reasoning and tool calls open and close like live ones: a click on one, or the block
cursor (up/down while the history has focus) and Enter.
"""

from __future__ import annotations

import asyncio
import logging
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

from tuibot.tui.widgets.blocks import EXPAND_BINDING
from tuibot.tui.widgets.gc_quiet import GC_QUIET
from tuibot.tui.widgets.history import Entry, build, estimate_rows
from tuibot.tui.widgets.rowmap import RowMap
from tuibot.tui.widgets.stage import Stage

log = logging.getLogger("tuibot.tui")

PREFETCH_SCREENS = 2
"""Blocks this many screens above and below the view are drawn ahead of time."""
AROUND = 4
"""Rows around the view drawn with it when it has blocks missing (estimates may be off)."""
PREFETCH_CHARS = 3000
"""Text drawn ahead of time per frame (at least one block), so scrolling never stalls."""
PREFETCH_PAUSE_S = 1 / 60
"""Rest between two batches of drawing ahead, so frames are painted meanwhile."""
CACHED_LINES = 12_000
"""Drawn lines kept; blocks furthest from the view are dropped (and drawn again) past it."""


class HistoryLines(Widget, can_focus=True):
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
        self._rows = RowMap()
        self._lines: dict[int, list[list[Segment]]] = {}
        """Drawn blocks: entry index → the segments of its lines (top margin included).
        Kept as plain lists: a Strip carries seven caches, which the garbage collector
        would walk for every line of a long chat."""
        self._gaps: dict[int, int] = {}
        """Drawn blocks: entry index → rows of top margin in its lines."""
        self._bottom = 0
        """Bottom margin of the last block: rows under it that belong to the history."""
        self._generation = 0
        """Bumped whenever drawn lines stop being valid (new chat, width, theme, folds)."""
        self._width = 0
        self._view = (0, 0)
        """Rows of the history in view: top row and how many."""
        self._reasoning = False
        self._tools = False
        self._open: dict[int, bool] = {}
        """Blocks opened or closed one by one, overriding the app-wide fold."""
        self._calls: dict[str, int] = {}
        """Tool call id → entry index (a result may still arrive)."""
        self.cursor: int | None = None
        """The reasoning block or tool call the keys act on, while focused."""
        self._wake = asyncio.Event()
        self.drawing = False
        """Blocks are being drawn now (in view, or ahead of it)."""

    def on_mount(self) -> None:
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
        self.entries = entries
        self._reasoning, self._tools = reasoning, tools
        self._open.clear()
        self._calls = {e.call_id: i for i, e in enumerate(entries) if e.kind == "tool"}
        self.cursor = None
        self._reset(keep_heights=False)
        height = self._view[1]
        self._view = (max(0, self._rows.total - height), height)  # a chat opens at its end

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

    def anchor_at(self, row: int) -> tuple[int, int]:
        """The block at ``row`` and how far into it ``row`` is (to keep it in place)."""
        index = self._rows.at(row)
        return index, (row - self._rows.start(index) if index >= 0 else row)

    def row_of(self, anchor: tuple[int, int]) -> int:
        """Where the anchored row is now that heights may have changed."""
        index, offset = anchor
        if not 0 <= index < len(self._rows):
            return offset
        return self._rows.start(index) + offset

    @property
    def idle(self) -> bool:
        """Nothing is being drawn and nothing waits to be."""
        return not self.drawing and not self._wake.is_set()

    @property
    def missing(self) -> int:
        """Blocks in view that are not drawn yet (0 once the view is complete)."""
        top, height = self._view
        return sum(1 for i in self._rows.span(top, top + height) if i not in self._lines)

    def is_open(self, index: int) -> bool:
        """Whether block ``index`` shows its body."""
        entry = self.entries[index]
        default = self._reasoning if entry.kind == "reasoning" else self._tools
        return self._open.get(index, default)

    def text_of_rows(self, top: int, bottom: int) -> list[str]:
        """The plain text of drawn rows (blank for blocks not drawn yet)."""
        return [self._strip_at(y).text.rstrip() for y in range(top, bottom)]

    # -- painting --------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        strip = self._strip_at(y)
        if self._on_cursor(y):
            style = self.get_component_rich_style("history--cursor")
            strip = Strip(Segment.apply_style(strip, post_style=style), strip.cell_length)
        return strip.crop_extend(0, self.size.width, None)

    def _on_cursor(self, y: int) -> bool:
        """Whether row ``y`` belongs to the block under the cursor (not its margin)."""
        index = self.cursor
        if index is None or not self.has_focus or index not in self._lines:
            return False
        start = self._rows.start(index) + self._gaps.get(index, 0)
        return start <= y < self._rows.start(index) + self._rows.height(index)

    def _strip_at(self, y: int) -> Strip:
        index = self._rows.at(y)
        lines = self._lines.get(index) if index >= 0 else None
        row = y - self._rows.start(index) if index >= 0 else 0
        if lines is None or not 0 <= row < len(lines):
            return Strip(self._blank(self.size.width))
        return Strip(lines[row], self._width)

    def _blank(self, width: int) -> list[Segment]:
        """An empty row, as a margin between blocks is painted."""
        return [Segment(" " * width, Style(bgcolor=self.background_colors[1].rich_color))]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        end = selection.end.y + 1 if selection.end is not None else self._rows.total
        return selection.extract("\n".join(self.text_of_rows(0, end))), "\n"

    # -- opening and closing blocks --------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.entries:
            return
        index = self._rows.at(offset.y)
        if self.entries[index].foldable:
            event.stop()
            self.cursor = index
            self.toggle(index)

    def toggle(self, index: int) -> None:
        """Open or close block ``index``."""
        self._open[index] = not self.is_open(index)
        self._redraw([index])

    def action_toggle_block(self) -> None:
        """Open or close the block under the cursor."""
        if self.cursor is None:
            raise SkipAction()
        self.toggle(self.cursor)

    def action_cursor(self, step: int) -> None:
        """Move the cursor to the next reasoning block or tool call up or down."""
        if self.cursor is None:  # start from the view's edge the cursor moves away from
            top, height = self._view
            index = self._rows.at(top + height - 1 if step < 0 else top)
        else:
            index = self.cursor + step
        while 0 <= index < len(self.entries) and not self.entries[index].foldable:
            index += step
        if not 0 <= index < len(self.entries):
            raise SkipAction()  # nothing that way: the conversation scrolls instead
        self.cursor = index
        self.scroll_to_block(index)
        self.refresh()

    def scroll_to_block(self, index: int) -> None:
        """Bring block ``index`` into view."""
        start, height = self._rows.start(index), self._rows.height(index)
        origin = self.virtual_region.offset
        region = Region(0, start, self.size.width, height).translate(origin)
        parent = self.parent
        if isinstance(parent, Widget):
            parent.scroll_to_region(region, animate=False, immediate=True)

    def on_blur(self) -> None:
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    # -- drawing ---------------------------------------------------------------------

    def _restyled(self) -> None:
        self._reset(keep_heights=True)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._reset(keep_heights=True)

    def _reset(self, *, keep_heights: bool) -> None:
        """Drop every drawn line; heights stay as estimates when ``keep_heights``."""
        self._generation += 1
        self._lines.clear()
        self._width = self.size.width
        if keep_heights and len(self._rows) == len(self.entries):
            self._rows.forget_measures()
        else:
            self._rows = RowMap([self._estimate(i) for i in range(len(self.entries))])
            self._bottom = 0
        self._resized()
        self._wake.set()

    def _redraw(self, indexes: list[int]) -> None:
        """Blocks whose look changed: drawn again when in or near view."""
        for index in indexes:
            self._lines.pop(index, None)
            self._rows.set(index, self._estimate(index), measured=False)
        self._generation += 1
        self._resized()
        self._wake.set()

    def _estimate(self, index: int) -> int:
        return estimate_rows(self.entries[index], self._width, expanded=self.is_open(index))

    def _resized(self) -> None:
        self.styles.height = self._rows.total + self._bottom
        self.refresh()

    async def _draw_loop(self) -> None:
        """Draw the blocks in view, then those near it, a frame's worth at a time."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            GC_QUIET.start()  # a full collection now would stall the scroll
            self.drawing = True
            try:
                await self._draw_all()
            finally:
                self.drawing = False
                GC_QUIET.stop(self.app.set_timer)

    async def _draw_all(self) -> None:
        while self._width and self.entries:
            batch, in_view = self._next_batch()
            if not batch:
                return
            try:
                await self._draw(batch)
            except Exception:
                log.exception("could not draw history blocks %s", batch)
                return
            if not in_view:
                await asyncio.sleep(PREFETCH_PAUSE_S)

    def _next_batch(self) -> tuple[list[int], bool]:
        """Blocks in view not drawn yet, or else the nearest ones ahead of the view.

        When any block in view is missing, the blocks a few rows around the view are
        drawn with it: heights are estimates until drawn, so the view may take in more
        blocks once they are, and one batch is cheaper than two rounds.
        """
        top, height = self._view
        if any(i not in self._lines for i in self._rows.span(top, top + height)):
            around = self._rows.span(max(0, top - AROUND), top + height + AROUND)
            return [i for i in around if i not in self._lines], True
        reach = PREFETCH_SCREENS * max(height, 1)
        near = self._rows.span(max(0, top - reach), top + height + reach)
        first = self._rows.at(top)
        todo = sorted((i for i in near if i not in self._lines), key=lambda i: abs(i - first))
        batch: list[int] = []
        chars = 0
        for index in todo:
            if batch and chars + len(self.entries[index].text) > PREFETCH_CHARS:
                break
            batch.append(index)
            chars += len(self.entries[index].text)
        return batch, False

    async def _draw(self, batch: list[int]) -> None:
        generation, width = self._generation, self._width
        widgets = [
            build(self.entries[i], reasoning=self.is_open(i), tool_output=self.is_open(i))
            for i in batch
        ]
        drawn = await self._stage.draw(widgets, width)
        if generation != self._generation or width != self._width:
            return  # the chat, width, theme or a fold changed meanwhile: draw again
        for index, block in zip(batch, drawn, strict=True):
            gap = [self._blank(width)] * block.top
            self._lines[index] = gap + [list(line) for line in block.lines]
            self._gaps[index] = block.top
            self._rows.set(index, len(self._lines[index]), measured=True)
            if index == len(self.entries) - 1:
                self._bottom = block.bottom
        self._forget_far()
        self._resized()

    def _forget_far(self) -> None:
        """Keep at most :data:`CACHED_LINES` drawn lines, dropping the furthest blocks."""
        if sum(len(lines) for lines in self._lines.values()) <= CACHED_LINES:
            return
        first = self._rows.at(self._view[0])
        kept = 0
        for index in sorted(self._lines, key=lambda i: abs(i - first)):
            kept += len(self._lines[index])
            if kept > CACHED_LINES // 2:
                del self._lines[index]  # its height stays measured
