"""The unfinished end of a streamed answer, updated in place rather than rebuilt.

``Markdown.append`` replaces the last block whole whenever it changes, so a list or a
quote that is still growing is unmounted and mounted again every frame: thirty widgets
for a short list, a stall on a slow machine. :class:`LiveTail` parses its (small) text
each frame and updates the mounted blocks where they differ: new text of a paragraph,
one more list item, one more table row. Only blocks whose kind changed are replaced.
Its lists are the light ones of :mod:`.light_list` (an item of one paragraph is one
widget), and so are those of the answer's staging area, which is a LiveTail too.

It relies on Markdown block internals (Textual 8.2.x, reached through
:mod:`tuibot.tui.compat`); block kinds come from the public ``Markdown.BLOCKS``. The tests
compare the tail with a Markdown widget given the same text.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets.markdown import Markdown, MarkdownBlock, MarkdownFence

from tuibot.tui import compat
from tuibot.tui.widgets.lean import LeanContainer
from tuibot.tui.widgets.light_list import (
    ITEMS,
    LIGHT_BLOCKS,
    LightList,
    ListParagraph,
    bullet_symbols,
    light_row,
    row_kind,
)
from tuibot.tui.widgets.light_table import LightTable

_KINDS = Markdown.BLOCKS
TEXT_BLOCKS = (_KINDS["paragraph_open"], *(_KINDS[f"h{level}"] for level in range(1, 7)))
"""Paragraphs and headings: blocks whose whole content is one piece of text."""
ORDERED_LIST = _KINDS["ordered_list_open"]
LISTS = (_KINDS["bullet_list_open"], ORDERED_LIST)
TABLE = _KINDS["table_open"]
QUOTE = _KINDS["blockquote_open"]

_LEAF_BLOCKS = frozenset({"hr", "fence", "code_block"})
"""Tokens that are a whole block by themselves (no opening and closing pair)."""

_PARSER: MarkdownIt | None = None


def _parser() -> MarkdownIt:
    global _PARSER
    if _PARSER is None:
        _PARSER = MarkdownIt("gfm-like")  # what Markdown uses without a parser_factory
    return _PARSER


def _same(old: Content, new: Content) -> bool:
    """Same text and styles (Content's own ``==`` compares the text only)."""
    return old.plain == new.plain and old.spans == new.spans


def _blocks_of(container: Widget) -> list[MarkdownBlock]:
    return [child for child in container.children if isinstance(child, MarkdownBlock)]


class LiveTail(LeanContainer, Markdown):
    """A small Markdown document that is shown again, changed, many times a second."""

    BLOCKS = LIGHT_BLOCKS
    """Lists draw a one-paragraph item as one widget (:mod:`.light_list`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = ""
        """The Markdown shown."""

    def count_blocks(self, text: str) -> int:
        """How many top-level blocks ``text`` makes (as this widget would mount them).

        Counted from the parser's tokens, as ``Markdown`` turns them into blocks: one per
        top-level closing token, rule or code block (raw HTML makes none). Building the
        blocks to count them cost a fifth of a streamed frame.
        """
        return sum(
            1
            for token in _parser().parse(text)
            if token.level == 0 and (token.nesting < 0 or token.type in _LEAF_BLOCKS)
        )

    @property
    def blocks(self) -> list[MarkdownBlock]:
        """The top-level blocks shown."""
        return _blocks_of(self)

    async def show(self, text: str) -> None:
        """Show ``text``, touching only the blocks that changed."""
        async with self.lock:
            self.text = text
            compat.set_source(self, text)
            parsed = compat.parse_blocks(self, _parser().parse(text))
            await self._merge(self, parsed)

    async def _merge(self, container: Widget, parsed: list[MarkdownBlock]) -> None:
        """Make ``container``'s blocks look like ``parsed`` (new, unmounted blocks)."""
        mounted = _blocks_of(container)
        for old, new in zip(mounted, parsed, strict=False):
            await self._merge_block(old, new)
        if len(parsed) > len(mounted):
            await container.mount_all(parsed[len(mounted) :])
        elif len(mounted) > len(parsed):
            await container.remove_children(mounted[len(parsed) :])

    async def _merge_block(self, old: MarkdownBlock, new: MarkdownBlock) -> None:
        if type(old) is not type(new):
            await self._replace(old, new)
        elif isinstance(old, TEXT_BLOCKS):
            content = compat.block_content(new)
            if not _same(compat.block_content(old), content):
                old.set_content(content)
        elif isinstance(old, MarkdownFence):
            fence = new
            assert isinstance(fence, MarkdownFence)
            if old.code != fence.code or old.lexer != fence.lexer:
                await compat.update_block(old, fence)
        elif isinstance(old, TABLE):
            await self._merge_table(old, new)
        elif isinstance(old, LISTS):
            await self._merge_list(old, new)
        elif isinstance(old, QUOTE):
            await self._merge(old, compat.child_blocks(new))
        else:
            await self._replace(old, new)

    async def _replace(self, old: Widget, new: Widget) -> None:
        if isinstance(old, LightList) and isinstance(new, LightList) and old.nested_in:
            new.make_nested(old.nested_in)  # a nested list keeps its place in the row
        parent = old.parent
        assert isinstance(parent, Widget)
        await parent.mount(new, after=old)
        await old.remove()

    async def _merge_table(self, old: MarkdownBlock, new: MarkdownBlock) -> None:
        assert isinstance(new, TABLE)
        headers, rows = compat.table_cells(new, parsed=True)
        old_headers, old_rows = compat.table_cells(old, parsed=False)
        plain = [[cell.plain for cell in row] for row in rows]
        shown = [[cell.plain for cell in row] for row in old_rows]
        same_head = [h.plain for h in headers] == [h.plain for h in old_headers]
        if not shown or not same_head or plain[: len(shown) - 1] != shown[:-1]:
            await self._replace(old, new)
        elif plain != shown and isinstance(old, LightTable) and not old.textual:
            old.show_cells(new)
        elif plain != shown:
            await compat.update_block(old, new)

    async def _merge_list(self, old: MarkdownBlock, new: MarkdownBlock) -> None:
        """Update a list item by item; new items are added at its end."""
        rows = list_rows(old)
        items = [block for block in compat.child_blocks(new) if isinstance(block, ITEMS)]
        symbols = bullet_symbols(new, items)
        shown = [_bullet_of(row[0]) for row in rows]
        if shown != symbols[: len(shown)]:
            await self._replace(old, new)  # numbering changed (the column got wider)
            return
        for row, item, symbol in zip(rows, items, symbols, strict=False):
            await self._merge_row(row, item, symbol)
        if len(items) > len(rows):
            fresh = [
                w for i in range(len(rows), len(items)) for w in light_row(symbols[i], items[i])
            ]
            await old.mount_all(fresh)
        elif len(rows) > len(items):
            await old.remove_children([w for row in rows[len(items) :] for w in row])

    async def _merge_row(self, row: list[Widget], item: MarkdownBlock, symbol: str) -> None:
        """Update one list row in place where its shape is the same, else build it again."""
        blocks = compat.child_blocks(item)
        kind = row_kind(blocks)
        head = row[0]
        if kind and len(row) == kind and isinstance(head, ListParagraph):
            await self._merge_block(head, blocks[0])
            if kind == 2 and type(row[1]) is type(blocks[1]):
                await self._merge_block(row[1], blocks[1])
                return
            if kind == 1:
                return
        elif not kind and isinstance(head, Horizontal):
            body = head.children[-1] if head.children else None
            if isinstance(body, Vertical):
                await self._merge(body, blocks)
            return
        parent = head.parent
        assert isinstance(parent, Widget)
        await parent.mount_all(light_row(symbol, item), after=row[-1])
        await parent.remove_children(row)


def list_rows(shown: Widget) -> list[list[Widget]]:
    """A mounted light list's rows: the widgets of each item (see ``light_row``)."""
    rows: list[list[Widget]] = []
    for child in shown.children:
        if isinstance(child, LightList) and child.nested_in and rows:
            rows[-1].append(child)
        elif isinstance(child, (Horizontal, ListParagraph)):
            rows.append([child])
    return rows


def _bullet_of(row: Widget) -> str | None:
    if isinstance(row, ListParagraph):
        return row.symbol
    return compat.bullet_symbol(row.children[0] if row.children else None)
