"""The rows of a stored history: what each block takes, what is drawn, what stays put.

The history view (:mod:`tuibot.tui.widgets.history_lines`) draws blocks lazily; this
module is its bookkeeping, without Textual. A *unit* is what is drawn at once: a whole
entry, or a piece of a long answer (an answer taller than a screen would otherwise be
drawn whole to show its last lines). Pieces are cut between top-level Markdown blocks,
so each renders as it does in the whole answer except for the margin between them,
which the whole answer collapses: the gap between two blocks is the larger of their
margins, not the sum, so a piece drops the rows its neighbour's margin already gives.

The anchor is the row the person reads: a unit and how far into it. When units above it
are drawn (and turn out taller or shorter than estimated) or cut into pieces, the
anchor follows its content, so the conversation can keep that row on the same screen row.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, replace

from rich.segment import Segment

from tuibot.tui.render.rowmap import RowMap

Line = list[Segment]
DEFAULT_BOTTOM = 1
"""The bottom margin assumed for a piece not drawn yet (a Markdown paragraph's)."""


@dataclass(frozen=True)
class Unit:
    """What is drawn at once: an entry, or one piece of an answer's text."""

    entry: int
    piece: str | None = None
    """The piece's Markdown, or None for the whole entry."""
    first: bool = True
    """The entry's first piece (nothing above it to collapse margins with)."""


@dataclass(frozen=True)
class Drawing:
    """A unit's drawn lines and the margins at its edges."""

    lines: list[Line]
    """Its top margin rows, then the block's lines."""
    gap: int
    """Rows of top margin at the start of ``lines`` (not part of the block)."""
    top: int = 0
    """The margin of the first Markdown block inside (collapses with the piece above)."""
    bottom: int = 0
    """The margin of the last Markdown block inside (collapses with the piece below)."""


class HistoryRows:
    """Units of a history in order, their rows, their drawings, and the held row."""

    def __init__(self, entries: int, estimate: Callable[[Unit], int]) -> None:
        self.units = [Unit(i) for i in range(entries)]
        self._estimate = estimate
        self.rows = RowMap([estimate(unit) for unit in self.units])
        self.drawings: dict[int, Drawing] = {}
        """Drawn units by index."""
        self.anchor: tuple[int, int] | None = None
        """The held row: a unit and rows into it; None when nothing is held."""
        self._drops: dict[int, int] = {}
        """Drawn pieces: rows at their top left out (margin the piece above gives)."""

    # -- lookups ---------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Rows of all units."""
        return self.rows.total

    def unit_of(self, entry: int) -> int:
        """The first unit of ``entry``."""
        return bisect_left(self.units, entry, key=lambda unit: unit.entry)

    def line_at(self, y: int) -> Line | None:
        """The drawn line at row ``y``, or None (not drawn, or past the end)."""
        index = self.rows.at(y)
        drawing = self.drawings.get(index) if index >= 0 else None
        if drawing is None:
            return None
        row = y - self.rows.start(index) + self._drops.get(index, 0)
        return drawing.lines[row] if 0 <= row < len(drawing.lines) else None

    def block_rows(self, index: int) -> range:
        """The rows of unit ``index`` without its top margin (where it is highlighted)."""
        start = self.rows.start(index)
        drawing = self.drawings.get(index)
        gap = max(0, drawing.gap - self._drops.get(index, 0)) if drawing is not None else 0
        return range(start + gap, start + self.rows.height(index))

    # -- drawing ---------------------------------------------------------------------

    def store(self, index: int, drawing: Drawing) -> None:
        """Unit ``index`` is drawn: its rows become its drawing's."""
        self.drawings[index] = drawing
        self._measure(index)
        below = index + 1
        if below in self.drawings and not self.units[below].first:
            self._measure(below)  # its margin collapses with this one's, now known

    def forget(self, index: int) -> None:
        """Unit ``index`` must be drawn again (its look changed): estimated until then."""
        self.drawings.pop(index, None)
        self._drops.pop(index, None)
        self.rows.set(index, self._estimate(self.units[index]))

    def forget_all(self) -> None:
        """Every drawing is stale (width or theme): heights stay, as estimates."""
        self.drawings.clear()
        self._drops.clear()  # the heights stay, as estimates until drawn again

    def forget_far(self, near: int, limit: int) -> None:
        """Keep at most ``limit`` drawn lines, dropping units furthest from ``near``."""
        if sum(len(d.lines) for d in self.drawings.values()) <= limit:
            return
        kept = 0
        for index in sorted(self.drawings, key=lambda i: abs(i - near)):
            kept += len(self.drawings[index].lines)
            if kept > limit // 2:
                del self.drawings[index]  # its height (and drop) stay measured

    def split(self, index: int, pieces: list[str]) -> None:
        """Cut unit ``index`` (an undrawn answer) into ``pieces`` of its text."""
        entry = self.units[index].entry
        units = [Unit(entry, piece, first=n == 0) for n, piece in enumerate(pieces)]
        added = len(units) - 1
        self.units[index : index + 1] = units
        self.rows.splice(index, [self._estimate(unit) for unit in units])
        self.drawings = {(i + added if i > index else i): d for i, d in self.drawings.items()}
        self._drops = {(i + added if i > index else i): d for i, d in self._drops.items()}
        if self.anchor is not None:
            self.anchor = self._anchor_after_split(index, added, self.anchor)

    def prepend(self, entries: int) -> None:
        """Entries ``0 .. entries - 1`` were put before all others (the start of a chat
        loaded after its end): their units come first, estimated, and the rest move down
        with their drawings and the held row."""
        moved = [replace(unit, entry=unit.entry + entries) for unit in self.units]
        added = [Unit(i) for i in range(entries)]
        self.units = added + moved
        self.rows.insert_first([self._estimate(unit) for unit in added])
        self.drawings = {i + entries: d for i, d in self.drawings.items()}
        self._drops = {i + entries: d for i, d in self._drops.items()}
        if self.anchor is not None:
            self.anchor = (self.anchor[0] + entries, self.anchor[1])

    def _anchor_after_split(
        self, index: int, added: int, anchor: tuple[int, int]
    ) -> tuple[int, int]:
        held, offset = anchor
        if held > index:
            return held + added, offset
        if held < index:
            return anchor
        for part in range(index, index + added + 1):  # the piece the row now falls in
            height = self.rows.height(part)
            if offset < height or part == index + added:
                return part, offset
            offset -= height
        return anchor

    def _dropped(self, index: int) -> int:
        """Rows at the top of a piece that the margin of the piece above already gives."""
        unit, drawing = self.units[index], self.drawings.get(index)
        if unit.first or drawing is None:
            return 0
        above = self.drawings.get(index - 1)
        bottom = above.bottom if above is not None else DEFAULT_BOTTOM
        return min(drawing.top, bottom)

    def _measure(self, index: int) -> None:
        drop = self._drops[index] = self._dropped(index)
        self.rows.set(index, len(self.drawings[index].lines) - drop)

    # -- the held row ----------------------------------------------------------------

    def hold(self, row: int | None) -> None:
        """Hold the content at ``row`` in place (None: hold nothing, follow the end)."""
        if row is None or not self.units:
            self.anchor = None
            return
        index = self.rows.at(row)
        self.anchor = (index, row - self.rows.start(index))

    def held_row(self) -> int | None:
        """The row the held content is at now, or None."""
        if self.anchor is None:
            return None
        index, offset = self.anchor
        return self.rows.start(min(index, len(self.units) - 1)) + offset
