"""Markdown lists drawn with one widget per plain item instead of four.

Textual's lists compose every item as ``Horizontal(bullet, Vertical(*blocks))``: four
mounted widgets for an item that holds one paragraph, which is most items, five for a
paragraph and a nested list. Each costs a mount, a CSS pass, a layout and a drawing of
its lines, and a streamed answer's lists were about half the widgets it mounted. Here
such an item is its paragraph (:class:`ListParagraph`) with a left padding as wide as the
bullet and the bullet drawn into it, followed by its nested list (if any), indented the
same way: the same cells, in one or two widgets. Items holding anything else (two
paragraphs, a fence) keep Textual's rows.

The live tail and the answer's staging area use these lists (``LiveTail.BLOCKS``); the
tests compare them cell by cell with Textual's own, in both themes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets.markdown import Markdown, MarkdownBlock

from tuibot.tui import compat

_Paragraph = Markdown.BLOCKS["paragraph_open"]
_BulletList = Markdown.BLOCKS["bullet_list_open"]  # the list classes are not exported
_OrderedList = Markdown.BLOCKS["ordered_list_open"]
BULLET = "list--bullet"
"""The component class with the bullet's colours (Textual's CSS for ``MarkdownBullet``)."""
ITEMS = (Markdown.BLOCKS["list_item_ordered_open"], Markdown.BLOCKS["list_item_unordered_open"])


class ListParagraph(_Paragraph):  # type: ignore[valid-type,misc]
    """A paragraph; given a ``symbol``, a list item that is one paragraph, bullet and all.

    Every paragraph the tail parses is one of these (``LiveTail.BLOCKS``), so a list can
    take its item's paragraph as it is. Without a symbol it is a plain paragraph. With
    one, it has a left padding as wide as the bullet and draws the bullet there, on its
    first line, in the colours of Textual's ``MarkdownBullet``: its text wraps at the
    same width as in Textual's row, and the cells are the same.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {BULLET}
    DEFAULT_CSS = """
    ListParagraph > .list--bullet { color: $text-primary; }
    ListParagraph:light > .list--bullet { color: $text-secondary; }
    """

    symbol: str | None = None
    """The bullet (``• ``, `` 2. `` …) drawn left of the first line, in a list."""

    def make_item(self, symbol: str) -> None:
        """Be the row of a list item: the bullet left of the text."""
        self.symbol = symbol
        self.styles.padding = (0, 0, 0, Content(symbol).cell_length)

    def render_lines(self, crop: Region) -> list[Strip]:
        strips: list[Strip] = super().render_lines(crop)
        return draw_bullet(self, strips, crop, self.symbol or "", first=True)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, after the bullet when the selection starts before the text.

        Textual's bullet widget answers a selection with its symbol and a space; a drag
        that starts in the item's text (``selection.start`` set) leaves it out there too.
        """
        text: tuple[str, str] | None = super().get_selection(selection)
        if text is None or not self.symbol or selection.start is not None:
            return text
        return f"{self.symbol} {text[0]}", text[1]


def draw_bullet(
    widget: Widget, strips: list[Strip], crop: Region, symbol: str, first: bool
) -> list[Strip]:
    """Draw Textual's bullet column into the left padding of ``widget``'s lines.

    Textual's bullet is a widget as tall as its row: the symbol on the first line and,
    below it, blanks in its style. ``first``: this widget holds the row's first line.
    """
    width = Content(symbol).cell_length
    if not width or crop.x >= width:
        return strips
    style = widget.get_visual_style(BULLET)
    blank = Strip.blank(width, style.rich_style).crop(crop.x, width)
    for index, line in enumerate(strips):
        head = blank
        if first and crop.y + index == 0:
            head = Visual.to_strips(widget, Content(symbol), width, 1, style)[0]
            head = head.crop(crop.x, width)
        head = head.crop(0, line.cell_length)  # a crop narrower than the bullet
        strips[index] = Strip.join([head, line.crop(head.cell_length, line.cell_length)])
    return strips


def light_row(symbol: str, item: MarkdownBlock) -> list[Widget]:
    """The widgets of one list row.

    An item that is one paragraph is that paragraph, bullet and all; one that is a
    paragraph and a list is those two, the list indented by the bullet's width (so the
    paragraph and the nested list take the places Textual's row gives them). Anything
    else is built as Textual builds it.
    """
    blocks = compat.child_blocks(item)
    kind = row_kind(blocks)
    if kind:
        first = blocks[0]
        assert isinstance(first, ListParagraph)
        first.make_item(symbol)
        if kind == 2:
            nested = blocks[1]
            assert isinstance(nested, LightList)
            nested.make_nested(symbol)
        return list[Widget](blocks)
    return [Horizontal(compat.make_bullet(symbol), Vertical(*blocks))]


def row_kind(blocks: list[MarkdownBlock]) -> int:
    """1: one paragraph; 2: a paragraph and a list; 0: anything else (Textual's row)."""
    if not blocks or not isinstance(blocks[0], ListParagraph):
        return 0
    if len(blocks) == 1:
        return 1
    return 2 if len(blocks) == 2 and isinstance(blocks[1], LightList) else 0


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
        yield from light_row(symbol, item)


class LightList:
    """What the light lists share: rows from :func:`light_row`, and nesting.

    A mixin, not a widget: Textual takes a class's CSS from its first widget base, which
    must stay Textual's list.
    """

    nested_in: str = ""
    """The bullet of the item this list is nested in (its column is drawn left of it)."""

    def compose(self) -> Iterator[Widget]:
        assert isinstance(self, MarkdownBlock)
        return _light_compose(self)

    def make_nested(self, symbol: str) -> None:
        """Sit under the paragraph of the item ``symbol`` starts, in its bullet's column."""
        assert isinstance(self, Widget)
        self.nested_in = symbol
        self.styles.padding = (0, 0, 0, Content(symbol).cell_length)

    def render_lines(self, crop: Region) -> list[Strip]:
        assert isinstance(self, Widget)
        strips: list[Strip] = super().render_lines(crop)  # type: ignore[misc]
        return draw_bullet(self, strips, crop, self.nested_in, first=False)


_LIST_CSS = """
{name} > .list--bullet {{ color: $text-primary; }}
{name}:light > .list--bullet {{ color: $text-secondary; }}
"""


class LightBulletList(LightList, _BulletList):  # type: ignore[valid-type,misc]
    """A bullet list whose plain items are one or two widgets each, not four or more."""

    BLANK = True  # no content of its own: its lines are blanks, drawn without rendering
    COMPONENT_CLASSES: ClassVar[set[str]] = {BULLET}
    DEFAULT_CSS = _LIST_CSS.format(name="LightBulletList")


class LightOrderedList(LightList, _OrderedList):  # type: ignore[valid-type,misc]
    """A numbered list whose plain items are one or two widgets each, not four or more."""

    BLANK = True
    COMPONENT_CLASSES: ClassVar[set[str]] = {BULLET}
    DEFAULT_CSS = _LIST_CSS.format(name="LightOrderedList")


def _light_table() -> type[MarkdownBlock]:
    from tuibot.tui.widgets.light_table import LightTable

    return LightTable


LIGHT_BLOCKS = {
    **Markdown.BLOCKS,
    "paragraph_open": ListParagraph,
    "bullet_list_open": LightBulletList,
    "ordered_list_open": LightOrderedList,
    "table_open": _light_table(),
}
"""Markdown's block classes with the light lists (for ``Markdown.BLOCKS``)."""
