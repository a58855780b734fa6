"""Markdown lists drawn with one widget per plain item instead of four.

Textual's lists compose every item as ``Horizontal(bullet, Vertical(*blocks))``: four
mounted widgets for an item that holds one paragraph, which is most items. Each costs a
mount, a CSS pass, a layout and a drawing of its lines, and a streamed answer's lists
were about half the widgets it mounted. :class:`BulletParagraph` is that paragraph with
a left padding as wide as the bullet, and the bullet drawn into the padding of its first
line: the same cells, in one widget. Items holding anything else (a nested list, two
paragraphs, a fence) keep Textual's rows.

The live tail and the answer's staging area use these lists (``LiveTail.BLOCKS``); the
tests compare them cell by cell with Textual's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets.markdown import Markdown, MarkdownBlock

from tuibot.tui import compat

_Paragraph = Markdown.BLOCKS["paragraph_open"]
_BulletList = Markdown.BLOCKS["bullet_list_open"]  # the list classes are not exported
_OrderedList = Markdown.BLOCKS["ordered_list_open"]
ITEMS = (Markdown.BLOCKS["list_item_ordered_open"], Markdown.BLOCKS["list_item_unordered_open"])


class ListParagraph(_Paragraph):  # type: ignore[valid-type,misc]
    """A paragraph; given a ``symbol``, a list item that is one paragraph, bullet and all.

    Every paragraph the tail parses is one of these (``LiveTail.BLOCKS``), so a list can
    take its item's paragraph as it is. Without a symbol it is a plain paragraph. With
    one, it has a left padding as wide as the bullet and draws the bullet there, on its
    first line, in the colours of Textual's ``MarkdownBullet``: its text wraps at the
    same width as in Textual's row, and the cells are the same.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"list-paragraph--bullet"}
    DEFAULT_CSS = """
    ListParagraph > .list-paragraph--bullet { color: $text-primary; }
    ListParagraph:light > .list-paragraph--bullet { color: $text-secondary; }
    """

    symbol: str | None = None
    """The bullet (``• ``, `` 2. `` …) drawn left of the first line, in a list."""

    def make_item(self, symbol: str) -> None:
        """Be the row of a list item: the bullet left of the text."""
        self.symbol = symbol
        self.styles.padding = (0, 0, 0, Content(symbol).cell_length)

    def render_lines(self, crop: Region) -> list[Strip]:
        strips: list[Strip] = super().render_lines(crop)
        symbol = self.symbol
        width = Content(symbol).cell_length if symbol else 0
        if not symbol or crop.x >= width:
            return strips
        # Textual's bullet is a widget as tall as its row: its cells below the symbol
        # are blanks in its style too.
        style = self.get_visual_style("list-paragraph--bullet")
        blank = Strip.blank(width, style.rich_style).crop(crop.x, width)
        for index, line in enumerate(strips):
            head = blank
            if crop.y + index == 0:
                head = Visual.to_strips(self, Content(symbol), width, 1, style)[0]
                head = head.crop(crop.x, width)
            strips[index] = Strip.join([head, line.crop(head.cell_length, line.cell_length)])
        return strips


def light_row(symbol: str, item: MarkdownBlock) -> Widget:
    """One list row: the paragraph itself when the item is one, else as Textual builds it."""
    blocks = compat.child_blocks(item)
    if len(blocks) == 1 and isinstance(blocks[0], ListParagraph):
        blocks[0].make_item(symbol)
        return blocks[0]
    return Horizontal(compat.make_bullet(symbol), Vertical(*blocks))


def bullet_symbols(parsed: MarkdownBlock, items: list[MarkdownBlock]) -> list[str]:
    """The bullets a list's compose gives its items (ordered lists are numbered)."""
    if not isinstance(parsed, _OrderedList):
        return [_bullet(item) for item in items]
    try:
        start = int(_bullet(items[0])) if items else 1
    except ValueError:
        start = 1
    numbers = range(start, start + len(items))
    size = max((len(f"{number}. ") for number in numbers), default=0)
    return [f"{number}. ".rjust(size + 1) for number in numbers]


def _bullet(item: MarkdownBlock) -> str:
    """A parsed list item's bullet (``MarkdownListItem.bullet``; the class is not exported)."""
    return str(getattr(item, "bullet", ""))


def _light_compose(parsed: MarkdownBlock) -> Iterator[Widget]:
    # MarkdownBlock.compose hands over the parsed items and forgets them, as the
    # lists' own compose does.
    items = [block for block in MarkdownBlock.compose(parsed) if isinstance(block, ITEMS)]
    for symbol, item in zip(bullet_symbols(parsed, items), items, strict=True):
        yield light_row(symbol, item)


class LightBulletList(_BulletList):  # type: ignore[valid-type,misc]
    """A bullet list whose one-paragraph items are one widget each."""

    BLANK = True  # no content of its own: its lines are blanks, drawn without rendering

    def compose(self) -> Iterator[Widget]:
        return _light_compose(self)


class LightOrderedList(_OrderedList):  # type: ignore[valid-type,misc]
    """A numbered list whose one-paragraph items are one widget each."""

    BLANK = True

    def compose(self) -> Iterator[Widget]:
        return _light_compose(self)


LIGHT_BLOCKS = {
    **Markdown.BLOCKS,
    "paragraph_open": ListParagraph,
    "bullet_list_open": LightBulletList,
    "ordered_list_open": LightOrderedList,
}
"""Markdown's block classes with the light lists (for ``Markdown.BLOCKS``)."""
