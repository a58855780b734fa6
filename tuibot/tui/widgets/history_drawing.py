"""Drawing a stored chat's blocks near the view, a frame's worth at a time.

A mixin of :class:`~tuibot.tui.widgets.history_lines.HistoryLines`, which keeps what the
history shows (its entries, their rows and drawings, the view, what is open) and marks
drawings stale; this module decides what to draw next and draws it. Blocks in view come
first (with the screen's updates held when a chat was just opened, so it is never painted
empty), then those near it, a few thousand characters per batch with a pause between
batches so frames are painted meanwhile. Tall answers not drawn yet are cut into pieces
first, so only the part in view is drawn; drawings far from the view are dropped past
:data:`CACHED_LINES`. Each block is drawn by the widget a live block uses, on the hidden
:class:`~tuibot.tui.widgets.stage.Stage`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from tuibot.tui.render.gc_quiet import GC_QUIET
from tuibot.tui.render.history_rows import Drawing, HistoryRows, Line, Unit
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.history_blocks import Entry, answer_pieces, build

if TYPE_CHECKING:
    from textual.widget import Widget

    from tuibot.tui.widgets.stage import Stage

    _WidgetBase = Widget
else:
    _WidgetBase = object

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
DRAWN_POLL_S = 0.005
"""How often :meth:`HistoryDrawing.settled` looks whether drawing is done."""
PIECE_ROWS = 12
"""An answer estimated taller than this is drawn in pieces of about this many rows."""


class HistoryDrawing(_WidgetBase):
    """Draws the history's blocks in and near the view; expects the attributes below."""

    # Set by the widget (see HistoryLines.__init__); declared here, not under TYPE_CHECKING,
    # so tests/private_api.py knows ``_width`` is tuibot's and not Textual's.
    _stage: Stage
    entries: list[Entry]
    rows: HistoryRows
    _generation: int
    _width: int
    _view: tuple[int, int]
    _opening: bool
    _whole: set[int]
    _wake: asyncio.Event
    drawing: bool

    if TYPE_CHECKING:

        def is_open(self, entry: int) -> bool: ...
        def _changed(self) -> None: ...
        def _blank(self, width: int) -> Line: ...

    # -- whether the view is drawn (what the conversation waits for) ----------------

    @property
    def idle(self) -> bool:
        """Nothing is being drawn and nothing waits to be."""
        return not self.drawing and not self._wake.is_set()

    @property
    def missing(self) -> int:
        """Units in view that are not drawn yet (0 once the view is complete)."""
        top, height = self._view
        drawn = self.rows.drawings
        return sum(1 for i in self.rows.rows.span(top, top + height) if i not in drawn)

    async def settled(self) -> None:
        """Until the blocks in view and around it are drawn and the screen painted."""
        while self.missing or not self.idle:
            await asyncio.sleep(DRAWN_POLL_S)
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()

    # -- drawing --------------------------------------------------------------------

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
        drawn_view = self._opening and await self._draw_view_held()
        while self._width and self.entries:
            batch, in_view = self._next_batch()
            if not batch:
                return
            if drawn_view and not in_view:  # the view is drawn: let it be painted first
                drawn_view = False
                await self._pause()
                continue
            drawn_view = in_view
            if not await self._draw_logged(batch):
                return
            if not in_view:
                await self._pause()

    async def _pause(self) -> None:
        """Rest between batches drawn ahead, cut short when the view moves (it may
        need blocks drawn now: a held page key outruns the drawing ahead)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(PREFETCH_PAUSE_S):
                await self._wake.wait()
        self._wake.clear()

    async def _draw_view_held(self) -> bool:
        """Draw the view of a chat just shown with the screen's updates held; whether
        anything was drawn.

        A frame in between would lay out the whole screen and paint the history empty,
        only to paint it again a moment later with its blocks. The chat opens at its end,
        which stays the end as answers in view are cut in pieces.
        """
        self._opening = False
        drawn = False
        end = self._view  # show() put the view at the end
        with self.app.batch_update():
            while self._width and self.entries:
                if self._view == end:  # no layout told otherwise: the end is still in view
                    self._view = end = self._end_view()
                batch, in_view = self._next_batch()
                if self._view == end != self._end_view():
                    continue  # answers were cut (rows changed): pick again at the new end
                if not (batch and in_view) or not await self._draw_logged(batch):
                    break
                drawn = True
        self.refresh()  # the screen's update was skipped while held: it is due now
        return drawn

    def _end_view(self) -> tuple[int, int]:
        """The view at the history's end, as tall as the view now."""
        height = self._view[1]
        return max(0, self.rows.total - height), height

    async def _draw_logged(self, batch: list[int]) -> bool:
        """Draw ``batch``; False (and logged) if it could not be drawn."""
        try:
            await self._draw(batch)
        except Exception:
            log.exception("could not draw history blocks %s", batch)
            return False
        return True

    def _next_batch(self) -> tuple[list[int], bool]:
        """Units in view not drawn yet, or else the nearest ones ahead of the view.

        When any unit in view is missing, those a few rows around the view are drawn
        with it: heights are estimates until drawn, so the view may take in more units
        once they are, and one batch is cheaper than two rounds.
        """
        top, height = self._view
        drawn, rows = self.rows.drawings, self.rows.rows
        if any(i not in drawn for i in rows.span(top, top + height)):
            around = (max(0, top - AROUND), top + height + AROUND)
            return [i for i in self._cut_answers(*around) if i not in drawn], True
        reach = PREFETCH_SCREENS * max(height, 1)
        near = self._cut_answers(max(0, top - reach), top + height + reach)
        first = rows.at(top)
        todo = sorted((i for i in near if i not in drawn), key=lambda i: abs(i - first))
        batch: list[int] = []
        chars = 0
        for index in todo:
            size = self._text_size(index)
            if batch and chars + size > PREFETCH_CHARS:
                break
            batch.append(index)
            chars += size
        return batch, False

    def _cut_answers(self, top: int, bottom: int) -> range:
        """The units in rows ``[top, bottom)``, tall undrawn answers among them cut first."""
        while True:
            span = self.rows.rows.span(top, bottom)
            tall = next((i for i in span if self._cuttable(i)), None)
            if tall is None:
                return span
            unit = self.rows.units[tall]
            pieces = answer_pieces(self.entries[unit.entry].text, self._width, PIECE_ROWS)
            if len(pieces) < 2:
                self._whole.add(unit.entry)
            else:
                self.rows.split(tall, pieces)
                self._changed()

    def _cuttable(self, index: int) -> bool:
        unit = self.rows.units[index]
        return (
            unit.piece is None
            and index not in self.rows.drawings
            and self.entries[unit.entry].kind == "answer"
            and unit.entry not in self._whole
            and self.rows.rows.height(index) > PIECE_ROWS
        )

    def _text_size(self, index: int) -> int:
        unit = self.rows.units[index]
        return len(unit.piece if unit.piece is not None else self.entries[unit.entry].text)

    async def _draw(self, batch: list[int]) -> None:
        generation, width = self._generation, self._width
        widgets = [self._widget(self.rows.units[i]) for i in batch]
        drawn = await self._stage.draw(widgets, width)
        if generation != self._generation or width != self._width:
            return  # the chat, width, theme or a fold changed meanwhile: draw again
        for index, block in zip(batch, drawn, strict=True):
            gap = [self._blank(width)] * block.top
            lines = gap + [list(line) for line in block.lines]
            self.rows.store(index, Drawing(lines, block.top, *block.inner))
        self.rows.forget_far(self.rows.rows.at(self._view[0]), CACHED_LINES)
        self.styles.height = self.rows.total
        self.refresh()

    def _widget(self, unit: Unit) -> Widget:
        if unit.piece is not None:
            return AnswerView(unit.piece)
        open_ = self.is_open(unit.entry)
        return build(self.entries[unit.entry], reasoning=open_, tool_output=open_)
