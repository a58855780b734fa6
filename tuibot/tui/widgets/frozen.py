"""Drawn Markdown kept as lines in one widget, so long answers and chats stay light.

A Markdown list, table or code fence is a tree of widgets (a five-item list is about
twenty, a table one per cell). Every mounted widget costs layout time on each frame and
garbage-collector time, so an answer made of hundreds of them makes streaming stutter
and full collections stall the screen. Finished Markdown never changes, so once it is
drawn its lines are rendered once more off screen, exactly as the screen shows them,
and a single :class:`FrozenChunk` holding those lines takes its place. The text stays
selectable; the look is Textual's own. The answer view draws it again from
``source`` when the width or the theme changes.

Rendering a widget tree off screen uses Textual's compositor, which is not public API
(Textual is pinned; :mod:`tuibot.tui.compat` holds it); ``tests/test_tui_conversation.py``
checks the copy cell by cell.
"""

from __future__ import annotations

import logging

from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from tuibot.tui import compat

log = logging.getLogger("tuibot.tui")


def render_off_screen(widget: Widget) -> list[Strip] | None:
    """The lines ``widget`` and its children draw at their current size, or None."""
    drawn = render_with_regions(widget)
    return drawn[0] if drawn else None


def render_with_regions(widget: Widget) -> tuple[list[Strip], dict[Widget, Region]] | None:
    """The lines ``widget`` draws and where each descendant sits in them, or None."""
    size = widget.outer_size  # padding and border included
    if not size.width or not size.height:
        return None
    repaint_keylines(widget)
    try:
        strips, regions = compat.render_alone(widget, Size(size.width, size.height))
    except Exception:  # an upgrade changed the compositor: just do not freeze
        log.exception("could not render %r off screen", widget)
        return None
    return (strips, regions) if laid_out(regions) else None


def repaint_keylines(widget: Widget) -> None:
    """Have the widgets that draw keylines (a Markdown table) draw them again.

    A container draws its keylines around where the screen last placed its children,
    and draws them again only when its own size changes. Cells that moved inside a
    table of the same size (a column grew, a row's cells were replaced) leave the lines
    where they were: a copy then shows the earlier column widths, or a row outside the
    table's frame. Refreshing drops the drawn lines (and repaints the screen there too).
    """
    for node in (widget, *widget.walk_children(Widget)):
        if str(node.styles.keyline[0]) != "none":  # typed without its default, "none"
            node.refresh()


def laid_out(regions: dict[Widget, Region]) -> bool:
    """Whether every widget already has the size a layout now gives it.

    A widget draws its lines at the size the screen last gave it. Right after blocks
    were added or changed (a table's new row, a list's new item) the off-screen layout
    already places them at their new sizes while they still draw at the old ones, and
    a copy taken then keeps a table without its rows. Such a drawing is not taken.
    """
    return all(
        child.outer_size == region.size and not _grew(child, region)
        for child, region in regions.items()
    )


def _grew(widget: Widget, region: Region) -> bool:
    """Whether a text block's content now needs another height than it was laid out at.

    A paragraph or a table row updated in place (the live tail) keeps its old height
    until the next layout, and so does its container's cached arrangement: laid out
    again off screen right after the update, it still gets the old height, and the copy
    loses the lines the new text wrapped onto. Widgets without children and with an
    automatic height are asked: Markdown's text blocks (paragraphs, headings) must fit
    exactly, and so must a light table (``exact_height``); anything else (a table cell,
    stretched to its row) must not need more.
    """
    height = widget.styles.height
    if widget.children or height is None or not height.is_auto:
        return False
    gutter = widget.styles.gutter
    width = region.width - gutter.width
    if width <= 0:
        return False
    size = Size(region.width, region.height)
    needed = widget.get_content_height(size, size, width) + gutter.height
    if isinstance(widget, MarkdownBlock) or getattr(widget, "exact_height", False):
        return needed != region.height
    return needed > region.height


def render_detached(widget: Widget, width: int, room: int = 10_000) -> list[Strip]:
    """The lines a mounted ``widget`` draws at ``width``, laid out here, not on screen.

    The widget may sit in a container that is not displayed: its height is what
    ``height: auto`` gives it at that width (at most ``room``), and it and its children
    are placed by a compositor of their own (:func:`tuibot.tui.compat.render_detached`).
    Margins are not in the lines.
    """
    gutter = widget.styles.gutter
    size = Size(width, room)
    height = widget.get_content_height(size, size, max(1, width - gutter.width)) + gutter.height
    if height <= 0:
        return []
    return compat.render_detached(widget, Size(width, height))


class FrozenChunk(Widget):
    """Drawn lines of finished Markdown (an answer, or its settled part), as one widget.

    It paints the lines as they were drawn (nothing is rendered again) and gives their
    text to a selection, so copying still works. ``source`` is the Markdown they came
    from, to draw it again when the width or the theme changes.
    """

    DEFAULT_CSS = """
    FrozenChunk { width: 1fr; height: auto; }
    """

    def __init__(self, strips: list[Strip], source: str) -> None:
        super().__init__()
        self._lines = list(strips)
        self.source = source
        """The Markdown the lines were drawn from."""
        self.drawn_width = strips[0].cell_length if strips else 0
        """The width the lines were drawn for."""
        self.styles.height = len(strips)

    @property
    def text(self) -> str:
        """The plain text of the lines."""
        return "\n".join(strip.text.rstrip() for strip in self._lines)

    @property
    def stale(self) -> bool:
        """Drawn for another width than it has now."""
        return bool(self._lines) and bool(self.size.width) and self.size.width != self.drawn_width

    def add(self, strips: list[Strip], source: str) -> None:
        """Put more drawn lines (of the Markdown ``source``) at the end."""
        if not self._lines and strips:
            self.drawn_width = strips[0].cell_length
        self._lines.extend(strips)
        self.source += source
        self.styles.height = len(self._lines)

    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self._lines):
            return self._lines[y].crop_extend(0, self.size.width, None)
        return Strip.blank(self.size.width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.text), "\n"


def freeze_whole(markdown: Markdown) -> FrozenChunk | None:
    """A frozen copy of a laid-out Markdown document, or None if it cannot be drawn yet."""
    if not markdown.children or any(not child.size.width for child in markdown.children):
        return None
    strips = render_off_screen(markdown)
    return FrozenChunk(strips, markdown.source) if strips else None
