"""An assistant's answer as Markdown, fast while it streams.

Textual's ``MarkdownStream`` into one ``Markdown`` widget slows down as the answer grows:
it re-parses the unfinished end on every write, re-highlights a growing code fence whole,
and every block stays a live tree of widgets that each frame lays out and each garbage
collection walks.

Here only the unfinished end is live. The :class:`~tuibot.tui.widgets.tail.LiveTail`
shows the text not settled yet, updated in place at most once a frame. When
:class:`~tuibot.tui.render.mdsplit.BlockSplitter` says blocks are finished, they are
mounted in a hidden Markdown (updated in place from the last piece's blocks), drawn
there off screen, and their lines added, once, to one
:class:`~tuibot.tui.widgets.frozen.FrozenChunk` above the tail: the screen never lays
out or paints settled text, and it is never parsed or drawn again. (Before the answer
has a width, settled text goes through the tail and is copied from it a frame later.)
A long code fence streams into a :class:`~tuibot.tui.widgets.live_fence.LiveFence`
until it closes.

When the answer ends, the cuts are checked against a parse of the whole text; in the
rare case they would render differently (or the width changed meanwhile) the answer is
rendered again, whole.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from textual.containers import Vertical
from textual.geometry import Spacing
from textual.widget import Widget
from textual.widgets import Markdown

from tuibot.tui.render.gc_quiet import GC_QUIET
from tuibot.tui.render.mdsplit import BlockSplitter, OpenFence, cuts_are_safe
from tuibot.tui.widgets.frozen import (
    FrozenChunk,
    freeze_whole,
    render_detached,
    render_with_regions,
)
from tuibot.tui.widgets.lean import LeanContainer
from tuibot.tui.widgets.live_fence import LiveFence
from tuibot.tui.widgets.tail import LiveTail

log = logging.getLogger("tuibot.tui")

FRAME_S = 1 / 30
"""The answer redraws at most this often."""
FRAME_BUDGET = 3000
"""Characters taken from the stream per frame: a burst is drawn over several frames
rather than freezing the screen while all of it is rendered."""
TAIL_SHARE = 3.0
"""The tail waits this many times its last redraw's cost before it redraws again, so a
costly tail (a long list, a table) cannot take the whole frame."""
FREEZE_DELAY_S = 0.1
"""A rendered answer is frozen whole this long after it is laid out (tried a few times)."""
FREEZE_TRIES = 10
FREEZE_MIN_WIDGETS = 12
"""Answers drawn with fewer widgets than this are left as Markdown."""
LIVE_FENCE_LINES = 24
"""A top-level code fence streams into a LiveFence once it has this many lines."""
CLOSE_FRAMES = 30
"""Frames the end waits for the tail's last blocks to be laid out before copying them."""


def collapse_top(first: Widget | None, above: int) -> None:
    """Give ``first`` the gap Markdown leaves under a block with bottom margin ``above``.

    Margins collapse between siblings, not across two widgets, so without this a fence
    under a settled paragraph would sit a line lower than in one document.
    """
    if first is None:
        return
    margin = first.styles.base.margin  # from CSS: an earlier call may have set it inline
    if margin.top and (above or first.styles.margin.top != margin.top):
        first.styles.margin = Spacing(
            max(0, margin.top - above), margin.right, margin.bottom, margin.left
        )


class AnswerView(LeanContainer, Vertical):
    """One assistant answer: rendered at once (history) or streamed (``live``)."""

    DEFAULT_CSS = """
    AnswerView {
        height: auto;
        & > Markdown { padding: 0 1; }
        & > .staging { display: none; }
    }
    """

    def __init__(self, text: str = "", *, live: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.live = live
        """Still streaming; :meth:`finish` ends it."""
        self.finished = not live
        """Everything received is rendered in its final form."""
        self._received: list[str] = [text] if text else []
        self._queue: list[str] = []
        """Received and not yet handed to the splitter."""
        self._splitter = BlockSplitter()
        self._doc: Markdown | FrozenChunk = (
            FrozenChunk([], "") if live else Markdown(text, classes="settled")
        )
        """Live: the settled lines. Otherwise the whole answer."""
        self._bottom = 0
        """Bottom margin of the last settled block (its lines end with that gap)."""
        self._piece = ""
        """Settled text still drawn by the tail (its lines are copied next frame)."""
        self._cuts: list[int] = []
        """Offsets where a copied piece started (checked against a whole parse)."""
        self._tail = LiveTail(classes="tail")
        self._stage = LiveTail(classes="staging")
        """Hidden: settled pieces are mounted here to be drawn into lines."""
        self._tail_shown = ""
        self._tail_next = 0.0
        """When the tail may redraw next (monotonic)."""
        self._fence: LiveFence | None = None
        self._fence_pos = 0
        self._wake = asyncio.Event()
        self._ending = False
        self._restyled = False
        """The theme changed while streaming: copied lines have the old colours."""
        self._redrawing = False

    def compose(self) -> Any:
        yield self._doc
        if self.live:
            yield self._tail
            yield self._stage

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)
        if isinstance(self._doc, Markdown):
            self._freeze_later(self._doc)
        if self.live:
            self.run_worker(
                self._render_loop(),
                name="render answer",
                group="answer",
                description="render the streamed answer",
                exit_on_error=False,
            )

    def on_resize(self) -> None:
        doc = self._doc
        if not self.live and isinstance(doc, FrozenChunk) and doc.stale:
            self._redraw_soon()  # drawn for another width

    def _theme_changed(self) -> None:
        self._restyled = True
        if not self.live and isinstance(self._doc, FrozenChunk):
            self._redraw_soon()

    def _redraw_soon(self) -> None:
        if not self._redrawing:
            self._redrawing = True
            self.call_later(self._redraw_whole, self._doc.source)

    # -- feeding ---------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Everything received so far (what the answer shows once rendered)."""
        return "".join(self._received)

    @property
    def source(self) -> str:
        """The Markdown the widgets show right now."""
        if not self.live:
            return self._doc.source
        fence = self._splitter.tail if self._fence is not None else ""
        return self._doc.source + self._tail_shown + fence

    def feed(self, text: str) -> None:
        """Add streamed text; it is drawn within a frame."""
        if not text:
            return
        if not self.live:
            raise RuntimeError("this answer is not streaming")
        self._received.append(text)
        self._queue.append(text)
        self._wake.set()

    def finish(self) -> None:
        """The answer is complete (or stopped): settle the rest and check the result."""
        if self.live and not self._ending:
            self._ending = True
            self._wake.set()

    # -- the frame loop --------------------------------------------------------------

    async def _render_loop(self) -> None:
        """Redraw at most once a frame, with everything that arrived meanwhile."""
        GC_QUIET.start()
        try:
            await self._frames()
            await self._close()
        finally:
            GC_QUIET.stop(self.app.set_timer)

    async def _frames(self) -> None:
        last = 0.0
        while True:
            await self._wake.wait()
            pause = last + FRAME_S - time.monotonic()
            await asyncio.sleep(max(pause, 0))  # always yield: the layout must run
            self._wake.clear()
            last = time.monotonic()
            if self._queue or self._piece or self._tail_shown != self._wanted():
                await self._render_frame()
            if self._ending and not self._queue:
                break
            if self._queue or self._piece or self._tail_shown != self._wanted():
                self._wake.set()

    def _take(self) -> str:
        """The queued text, at most about a frame's budget of it (cut at a line end)."""
        text = "".join(self._queue)
        self._queue.clear()
        if len(text) > FRAME_BUDGET:
            cut = text.rfind("\n", 0, FRAME_BUDGET) + 1 or FRAME_BUDGET
            text, rest = text[:cut], text[cut:]
            self._queue.append(rest)
        return text

    async def _render_frame(self) -> None:
        with self.app.batch_update():
            if await self._copy_settled():
                return  # copying is a frame's work: the tail redraws next frame
            if self._queue and len(self._piece) < FRAME_BUDGET:  # a burst waits its turn
                self._piece += self._splitter.feed(self._take())
            staged = await self._stage_settled()
            unshown = not self._tail_shown.startswith(self._piece)
            if staged or unshown or time.monotonic() >= self._tail_next:
                started = time.monotonic()
                await self._show_tail()
                self._tail_next = time.monotonic() + TAIL_SHARE * (time.monotonic() - started)

    # -- settling: draw finished blocks into lines ----------------------------------

    async def _stage_settled(self) -> bool:
        """Draw the settled piece off screen, straight into the settled lines.

        The piece's blocks are mounted in a hidden Markdown (the screen never lays them
        out or paints them), updated in place from the last piece's, and drawn at the
        tail's width. A piece the tail has drawn already (text that came slowly) is
        copied from the tail instead, as is one that comes before the tail has a width.
        """
        piece, width = self._piece, self._tail.outer_size.width
        if not piece or not width or self._tail_shown.startswith(piece):
            return False
        stage = self._stage
        await stage.show(piece)
        blocks = stage.blocks
        strips = render_detached(stage, width) if blocks else []
        top = blocks[0].styles.margin.top if blocks else 0
        assert isinstance(self._doc, FrozenChunk)
        if self._doc.source:
            self._cuts.append(len(self._doc.source))
            strips = strips[min(top, self._bottom) :]  # the gap between two blocks collapses
        self._doc.add(strips, piece)
        if blocks:
            self._bottom = blocks[-1].styles.margin.bottom
        self._piece = ""
        GC_QUIET.hold()
        return True

    async def _copy_settled(self) -> bool:
        """Move the settled blocks the tail has drawn into the settled lines."""
        piece, tail = self._piece, self._tail
        if not piece or not self._tail_shown.startswith(piece):
            return False
        blocks = tail.blocks
        count = tail.count_blocks(piece)
        if count > len(blocks) or not all(block.size.width for block in blocks[:count]):
            return False  # not laid out yet: next frame
        drawn = render_with_regions(tail) if count else ([], {})
        if drawn is None:
            return False
        strips, regions = drawn
        end = 0
        if count:
            last = blocks[count - 1]
            region = regions.get(last)
            if region is None:
                return False
            self._bottom = last.styles.margin.bottom
            end = min(len(strips), region.bottom + self._bottom)
        assert isinstance(self._doc, FrozenChunk)
        if self._doc.source:
            self._cuts.append(len(self._doc.source))
        self._doc.add(strips[:end], piece)
        await tail.remove_children(blocks[:count])
        rest = blocks[count:]
        collapse_top(rest[0] if rest else None, self._bottom)
        self._tail_shown = self._tail_shown[len(piece) :]
        self._piece = ""
        GC_QUIET.hold()
        return True

    def _wanted(self) -> str:
        """What the tail should show: settled text not copied yet, then the live end."""
        if self._fence is not None:  # the live fence draws the rest
            return self._piece
        return self._piece + self._splitter.tail

    # -- the live tail ---------------------------------------------------------------

    async def _show_tail(self) -> None:
        """Draw the unfinished end: a live fence, or the tail."""
        fence = self._splitter.live_fence
        if fence is not None and (self._fence is not None or self._fence_is_long(fence)):
            await self._show_fence(fence)
        elif self._fence is not None:
            await self._fence.remove()
            self._fence = None
        wanted = self._wanted()
        if wanted != self._tail_shown:
            await self._tail.show(wanted)
            self._tail_shown = wanted
            blocks = self._tail.blocks
            collapse_top(blocks[0] if blocks else None, self._bottom)

    def _fence_is_long(self, fence: OpenFence) -> bool:
        tail = self._splitter.tail
        return tail.count("\n", fence.body, self._splitter.scanned) >= LIVE_FENCE_LINES

    async def _show_fence(self, fence: OpenFence) -> None:
        tail, scanned = self._splitter.tail, self._splitter.scanned
        if self._fence is None:
            self._fence = LiveFence(fence.language)
            self._fence_pos = fence.body
            await self.mount(self._fence, after=self._tail)
            if not self._piece:
                collapse_top(self._fence, self._bottom)
        lines = tail[self._fence_pos : scanned].split("\n")[:-1]
        self._fence_pos = scanned
        await self._fence.show(lines, tail[scanned:])

    # -- the end ---------------------------------------------------------------------

    async def _close(self) -> None:
        """Settle the rest, copy it, and check the cuts against a whole parse."""
        self._piece += self._splitter.finish()
        if self._fence is not None:
            await self._fence.remove()
            self._fence = None
        with self.app.batch_update():
            await self._stage_settled()
            await self._show_tail()
        for _ in range(CLOSE_FRAMES):
            if not self._piece or await self._copy_settled():
                break
            await asyncio.sleep(FRAME_S)
        self.live = False
        text, doc = self.text, self._doc
        fits = isinstance(doc, FrozenChunk) and not doc.stale
        safe = fits and not (self._piece or self._restyled)
        if safe and self._cuts:
            safe = await asyncio.to_thread(cuts_are_safe, text, self._cuts)
        if safe:
            await self.remove_children([self._tail, self._stage])
        else:
            log.info("streamed answer drawn again whole (cut blocks, width, or not laid out)")
            await self._redraw_whole(text)
        self.finished = True

    async def _redraw_whole(self, text: str) -> None:
        """Replace everything with the whole text rendered at once (frozen later)."""
        self._redrawing = False
        doc = Markdown(text, classes="settled")
        with self.app.batch_update():
            await self.remove_children()
            await self.mount(doc)
        self._doc = doc
        self._freeze_later(doc)

    def _freeze_later(self, doc: Markdown, tries: int = FREEZE_TRIES) -> None:
        """Freeze a rendered answer whole once it is laid out."""
        self.set_timer(FREEZE_DELAY_S, lambda: self._freeze_doc(doc, tries - 1))

    def _freeze_doc(self, doc: Markdown, tries: int) -> None:
        if doc is not self._doc or not doc.is_attached:
            return
        if len(doc.query("*")) < FREEZE_MIN_WIDGETS:
            return  # a short answer is cheap as it is
        frozen = freeze_whole(doc)
        if frozen is None:
            if tries > 0:
                self._freeze_later(doc, tries)
            return
        self._doc = frozen
        with self.app.batch_update():
            self.mount(frozen, before=doc)
            doc.remove()
