"""Markdown tables drawn by one widget instead of one widget per cell.

Textual's ``MarkdownTable`` mounts a ``Static`` per cell in a grid with keylines: a
streamed answer's tables were about a fifth of the CPU the tail and the staging area
spent, for cells that never change once their row is complete. :class:`LightTable`
holds the same headers and rows and draws them itself, by the rules Textual's grid
applies to those cells (auto columns that expand to the width and shrink to their
longest words, rows as tall as their tallest cell, headers at the bottom of theirs,
thin keylines between all cells), measuring and drawing each cell's text as a ``Static``
with the cell's CSS would. Two hidden cells (a header and a body cell) carry that CSS,
so the colours come from the theme as Textual's do. The tests compare the drawing with
Textual's cell by cell, over a corpus of tables, in both themes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar, cast

from rich.segment import Segment
from textual import events
from textual.canvas import Canvas, Rectangle
from textual.content import Content
from textual.css.scalar import Scalar
from textual.geometry import Offset, Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RulesMap, Visual, visualize
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets.markdown import Markdown, MarkdownBlock

from tuibot.tui import compat

_Table = Markdown.BLOCKS["table_open"]


@dataclass(frozen=True)
class Grid:
    """Where the cells go: column (x, width) and row (y, height) spans, content-relative."""

    columns: list[tuple[int, int]]
    rows: list[tuple[int, int]]

    @property
    def height(self) -> int:
        """Lines drawn: the rows and the keylines around and between them."""
        if not self.rows:
            return 2
        y, height = self.rows[-1]
        return y + height + 2


def _rules(widget: Widget) -> RulesMap:
    """A widget's styles as the rules a Visual measures by (Textual passes them so)."""
    return cast("RulesMap", widget.styles)


class _Prototype(Static):
    """A hidden cell that carries the CSS of a header or a body cell (and no text)."""

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return None


class LightTableContent(Widget):
    """The cells of a table, drawn as one widget (see the module's docstring)."""

    DEFAULT_CSS = """
    LightTableContent {
        width: 1fr;
        height: auto;
        keyline: thin $foreground 20%;
    }
    """

    exact_height = True
    """Its height is what its cells need at its width (see ``frozen.laid_out``)."""

    def __init__(self, headers: list[Content], rows: list[list[Content]]) -> None:
        super().__init__()
        self.headers = headers
        self.rows = rows
        self._grid: tuple[int, Grid] | None = None
        self._drawn: tuple[object, list[Strip]] | None = None

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """Every cell's text on its own line, as Textual's cells each answer a selection."""
        cells = [*self.headers, *(cell for row in self.rows for cell in row)]
        return "".join(f"{cell.plain}\n" for cell in cells), ""

    def set_cells(self, headers: list[Content], rows: list[list[Content]]) -> None:
        """Show other cells (a streamed table's new or grown rows)."""
        self.headers = headers
        self.rows = rows
        self._grid = None
        self._drawn = None
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        """Draw again with the new styles (a theme change): the drawing is kept per size."""
        self._grid = None
        self._drawn = None
        super().notify_style_update()

    def _cells(self) -> list[list[Content]]:
        """The grid's rows as Textual's grid fills them: cells in order, header-wide rows."""
        count = max(1, len(self.headers))
        flat = [*self.headers, *(cell for row in self.rows for cell in row)]
        return [flat[start : start + count] for start in range(0, len(flat), count)]

    def _prototypes(self) -> tuple[Widget, Widget]:
        assert self.parent is not None
        header, cell = self.parent.children[0], self.parent.children[1]
        return header, cell

    def grid(self, width: int) -> Grid:
        """Column and row spans at ``width`` (cached per width and cells)."""
        if self._grid and self._grid[0] == width:
            return self._grid[1]
        grid = self._measure(width)
        self._grid = (width, grid)
        return grid

    def _measure(self, width: int) -> Grid:
        header, cell = self._prototypes()
        lines = self._cells()
        size = Size(max(0, width - 2), 0)
        count = max(1, len(self.headers))
        optimal = [0] * count
        minimal = [1] * count
        for index, line in enumerate(lines):
            styles = _rules(header if index == 0 else cell)
            for column, content in enumerate(line):
                # a cell's content width (Widget.get_content_width: shrink is on)
                wanted = min(content.get_optimal_width(styles, size.width), size.width)
                optimal[column] = max(optimal[column], wanted + 2)
                minimal[column] = max(minimal[column], content.get_minimal_width(styles) + 2)
        scalars = [Scalar.from_number(value) for value in optimal]
        columns = compat.resolve_columns(scalars, size, self.app.size, minimal)
        heights = []
        for index, line in enumerate(lines):
            styles = _rules(header if index == 0 else cell)
            heights.append(
                max(
                    (
                        content.get_height(styles, columns[column][1] - 2)
                        if columns[column][1] != 2  # as Widget.get_content_height
                        else 0
                    )
                    for column, content in enumerate(line)
                )
            )
        if any(width < 3 for _, width in columns):  # no room for a character
            self.call_later(self._fall_back)
        rows, y = [], 0
        for height in heights:
            rows.append((y, height))
            y += height + 1
        return Grid(columns, rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.grid(width).height

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        key = (width, height, self._grid)
        if self._drawn is None or self._drawn[0] != key:
            self._drawn = (key, self._draw(width, height))
        lines = self._drawn[1]
        return lines[y] if y < len(lines) else Strip.blank(width, self.rich_style)

    def _draw(self, width: int, height: int) -> list[Strip]:
        grid = self.grid(width)
        regions = self._regions(grid)
        base = self._keylines(width, height, [region for region, _, _ in regions])
        for region, content, is_header in regions:
            drawn = self._draw_cell(content, region.size, is_header)
            for index, line in enumerate(drawn):
                y = region.y + index
                if 0 <= y < len(base):
                    row = base[y]
                    base[y] = Strip.join(
                        [row.crop(0, region.x), line, row.crop(region.right, row.cell_length)]
                    )
        return base

    def _regions(self, grid: Grid) -> list[tuple[Region, Content, bool]]:
        out = []
        for index, line in enumerate(self._cells()):
            y, height = grid.rows[index]
            for column, content in enumerate(line):
                x, width = grid.columns[column]
                # a column narrower than its padding: the cell keeps its padding
                box = Region(x + 1, y + 1, max(width, 2), height)
                out.append((box, content, index == 0))
        return out

    def _keylines(self, width: int, height: int, regions: list[Region]) -> list[Strip]:
        line_style, color = self.styles.keyline
        color = self.background_colors[0] + color
        canvas = Canvas(width, height)
        boxes = [
            Rectangle(
                region.offset - Offset(1, 1), region.width + 2, region.height + 2, color, line_style
            )
            for region in regions
        ]
        drawn = visualize(self, canvas.render(boxes, self.rich_style))
        return Visual.to_strips(self, drawn, width, height, self.visual_style)

    def _draw_cell(self, content: Content, size: Size, is_header: bool) -> list[Strip]:
        proto = self._prototypes()[0 if is_header else 1]
        base_background, background = proto.background_colors
        inner = Style(background=base_background + background).rich_style
        width, height = size
        inside = max(0, width - 2)
        lines = Visual.to_strips(proto, content, inside, height, proto.visual_style)
        blank = [Segment(" ", inner)]
        empty = Strip.blank(inside, proto.visual_style.rich_style)  # Widget.render_line's
        lines = [*lines[:height], *[empty] * (height - len(lines))]
        out = []
        for line in lines:
            line = line.adjust_cell_length(inside, inner)
            out.append(Strip.join([Strip(blank, 1), line, Strip(blank, 1)]).crop(0, width))
        return out

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """The text of the cell under the mouse as the tooltip, as Textual's cells have."""
        found = None
        if self._grid is not None:
            for region, content, _ in self._regions(self._grid[1]):
                if region.contains(event.x, event.y):
                    found = content.plain
        if found != self.tooltip:
            self.tooltip = found

    def on_leave(self) -> None:
        self.tooltip = None

    async def _fall_back(self) -> None:
        """Let Textual's grid draw this table: a cell narrower than its padding spills
        over the keylines in ways the light drawing does not copy."""
        parent = self.parent
        if isinstance(parent, LightTable) and self.is_attached:
            await parent.fall_back()

    async def action_link(self, href: str) -> None:
        """Pass a link in a cell on to the Markdown document, as Textual's table does."""
        parent = self.parent
        if isinstance(parent, _Table):
            await parent.action_link(href)


class LightTable(_Table):  # type: ignore[valid-type,misc]
    """A Markdown table drawn by one :class:`LightTableContent` instead of a grid of cells."""

    DEFAULT_CSS: ClassVar[str] = """
    LightTable {
        width: 1fr;
        margin-bottom: 1;
        &:light {
            background: white 30%;
        }
        & > .cell {
            display: none;
            padding: 0 1;
            text-overflow: ellipsis;
        }
        & > .header {
            display: none;
            padding: 0 1;
            color: $primary;
            text-overflow: ellipsis;
            content-align: left bottom;
        }
    }
    """

    textual = False
    """Drawn by Textual's grid of cells: the light drawing cannot match it at this width."""

    def compose(self) -> Iterator[Widget]:
        if self.textual:  # the cells shown last, kept where Textual's table keeps them
            headers, rows = compat.table_cells(self, parsed=False)
            yield compat.textual_table_content(headers, rows)
            return
        headers, rows = compat.table_cells(self, parsed=True)
        compat.keep_table_cells(self, headers, rows)
        yield _Prototype(classes="header")
        yield _Prototype(classes="cell")
        yield LightTableContent(headers, rows)

    async def fall_back(self) -> None:
        """Be Textual's table from now on (a column too narrow for its padding)."""
        if not self.textual:
            self.textual = True
            await self.recompose()

    def show_cells(self, new: MarkdownBlock) -> None:
        """Show the cells of ``new`` (a parsed table); Textual's table, if fallen back to,
        is updated by Textual (``compat.update_block``)."""
        headers, rows = compat.table_cells(new, parsed=True)
        compat.keep_table_cells(self, headers, rows)
        self.query_one(LightTableContent).set_cells(headers, rows)
