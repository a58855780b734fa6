"""Where each block of a long chat sits, in screen rows, when most are not drawn yet.

A chat's history is drawn a block at a time, near where the person looks; the rest has
estimated heights. :class:`RowMap` keeps one height per block (measured or estimated)
and answers the two questions the view asks many times a frame: which block is at row
``y``, and at which row block ``i`` starts. Both are a bisect over prefix sums, rebuilt
only after heights change.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate


class RowMap:
    """Heights of blocks in order; rows are counted from the top of the first block."""

    def __init__(self, heights: list[int] | None = None) -> None:
        self._heights: list[int] = list(heights or [])
        self._starts: list[int] | None = None

    def __len__(self) -> int:
        return len(self._heights)

    @property
    def total(self) -> int:
        """Rows of all blocks together."""
        starts = self._prefix()
        return starts[-1]

    def height(self, index: int) -> int:
        """Rows of block ``index`` (measured, or the estimate)."""
        return self._heights[index]

    def set(self, index: int, height: int) -> int:
        """Give block ``index`` a height; returns how many rows it grew (or shrank)."""
        change = height - self._heights[index]
        self._heights[index] = height
        if change:
            self._starts = None
        return change

    def splice(self, index: int, heights: list[int]) -> None:
        """Replace block ``index`` by blocks of ``heights`` (estimates): one block cut in parts."""
        self._heights[index : index + 1] = heights
        self._starts = None

    def insert_first(self, heights: list[int]) -> None:
        """Put blocks of ``heights`` before the first (the start of a chat, read later)."""
        self._heights[:0] = heights
        self._starts = None

    def start(self, index: int) -> int:
        """The row block ``index`` starts at (``total`` for one past the end)."""
        return self._prefix()[index]

    def at(self, row: int) -> int:
        """The block at ``row``, clamped to the first and last block; -1 when empty."""
        if not self._heights:
            return -1
        starts = self._prefix()
        index = bisect_right(starts, row) - 1
        return min(max(index, 0), len(self._heights) - 1)

    def span(self, top: int, bottom: int) -> range:
        """Blocks that have rows in ``[top, bottom)``."""
        if not self._heights or bottom <= top:
            return range(0)
        return range(self.at(top), self.at(bottom - 1) + 1)

    def _prefix(self) -> list[int]:
        if self._starts is None:
            self._starts = [0, *accumulate(self._heights)]
        return self._starts
