"""The unfinished end of a streamed answer, updated in place rather than rebuilt.

``Markdown.append`` replaces the last block whole whenever it changes, so a list or a
quote that is still growing is unmounted and mounted again every frame: thirty widgets
for a short list, a stall on a slow machine. :class:`LiveTail` parses its (small) text
each frame and updates the mounted blocks where they differ: new text of a paragraph,
one more list item, one more table row. Only blocks whose kind changed are replaced.

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

_KINDS = Markdown.BLOCKS
TEXT_BLOCKS = (_KINDS["paragraph_open"], *(_KINDS[f"h{level}"] for level in range(1, 7)))
"""Paragraphs and headings: blocks whose whole content is one piece of text."""
ORDERED_LIST = _KINDS["ordered_list_open"]
LISTS = (_KINDS["bullet_list_open"], ORDERED_LIST)
LIST_ITEMS = (_KINDS["list_item_ordered_open"], _KINDS["list_item_unordered_open"])
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
        elif plain != shown:
            await compat.update_block(old, new)

    async def _merge_list(self, old: MarkdownBlock, new: MarkdownBlock) -> None:
        """Update a list item by item; new items are added at its end."""
        rows = [child for child in old.children if isinstance(child, Horizontal)]
        items = [block for block in compat.child_blocks(new) if isinstance(block, LIST_ITEMS)]
        symbols = bullet_symbols(new, items)
        shown = [_bullet_of(row) for row in rows]
        if shown != symbols[: len(shown)]:
            await self._replace(old, new)  # numbering changed (the column got wider)
            return
        for row, item in zip(rows, items, strict=False):
            body = row.children[-1] if row.children else None
            if isinstance(body, Vertical):
                await self._merge(body, compat.child_blocks(item))
        if len(items) > len(rows):
            fresh = [_row(symbols[i], items[i]) for i in range(len(rows), len(items))]
            await old.mount_all(fresh)
        elif len(rows) > len(items):
            await old.remove_children(rows[len(items) :])


def bullet_symbols(parsed: MarkdownBlock, items: list[MarkdownBlock]) -> list[str]:
    """The bullets a list's compose gives its items (ordered lists are numbered)."""
    if not isinstance(parsed, ORDERED_LIST):
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


def _bullet_of(row: Widget) -> str | None:
    return compat.bullet_symbol(row.children[0] if row.children else None)


def _row(symbol: str, item: MarkdownBlock) -> Horizontal:
    """One list row, built as the list's own compose builds it."""
    return Horizontal(compat.make_bullet(symbol), Vertical(*compat.child_blocks(item)))
