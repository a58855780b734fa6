"""Lists drawn with one widget per one-paragraph item look exactly like Textual's.

The live tail and the answer's staging area compose a list item that is one paragraph
as that paragraph with its bullet drawn in a left padding (``light_list.py``), instead
of Textual's four widgets per item. The cells must be Textual's: same characters, same
colours, in both themes, at widths where items wrap, with numbered lists whose bullet
column grows, nested lists and items of several blocks.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import Markdown

from tuibot.tui.widgets.frozen import render_off_screen
from tuibot.tui.widgets.light_list import ListParagraph
from tuibot.tui.widgets.tail import LiveTail

LISTS = """Before the list, a paragraph with `code` and **bold** words in it.

- one short item
- an item long enough to wrap onto a second and even a third line at this narrow
  width, with `inline code` and *emphasis*
- an item with a nested list
   - nested **bold** item that wraps around the end of the line at forty columns
- last

1. first
2. second item, long enough to wrap onto the next line at the narrow width
3. third

8. eight
9. nine, which wraps onto the next line at the narrow width of the test
10. ten: the bullet column is wider now

- loose item

  with a second paragraph

- ```
  a fence in an item
  ```
"""


class Both(App[None]):
    """Textual's Markdown and the tail, same text, same place in the tree."""

    CSS = "Screen { overflow: hidden; } Markdown { padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield Markdown(LISTS, id="textual")
        yield LiveTail(id="tail")


def _strips(widget: Markdown) -> list[Strip]:
    drawn = render_off_screen(widget)
    assert drawn is not None
    return drawn


async def _assert_drawn_as_textual(app: Both, pilot: Pilot[None]) -> None:
    """Once settled, the tail draws Textual's own Markdown of the same text, cell for cell."""
    await pilot.pause()
    await pilot.pause()
    want = _strips(app.query_one("#textual", Markdown))
    got = _strips(app.query_one(LiveTail))
    assert [s.text for s in got] == [s.text for s in want]
    assert got == want, "same cells, same colours and styles"


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("width", [40, 90])
async def test_light_lists_draw_the_cells_textual_draws(theme: str, width: int) -> None:
    app = Both()
    async with app.run_test(size=(width, 120)) as pilot:
        app.theme = theme
        tail = app.query_one(LiveTail)
        await tail.show(LISTS)
        await _assert_drawn_as_textual(app, pilot)


async def test_a_one_paragraph_item_is_one_widget() -> None:
    """Twelve one-paragraph items: twelve widgets (Textual's rows would be 48)."""
    text = "".join(f"- item number {n} of the list\n" for n in range(12))
    app = Both()
    async with app.run_test(size=(60, 40)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show(text)
        await pilot.pause()
        widgets = list(tail.walk_children())
        assert len(widgets) == 1 + 12, "the list and one widget per item"
        assert all(isinstance(w, ListParagraph) for w in widgets[1:])
        assert not tail.query(Horizontal)


async def test_an_item_that_grows_a_second_block_becomes_a_full_row_and_back() -> None:
    """Streamed, an item can gain a second paragraph; the row is rebuilt as Textual's."""
    app = Both()
    async with app.run_test(size=(60, 40)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show("- one\n- two\n")
        first = tail.query_one(ListParagraph)
        await tail.show("- one\n- two\n\n  more\n")
        await pilot.pause()
        assert first.is_attached, "the unchanged first item is kept"
        assert len(tail.query(Horizontal)) == 1
        await tail.show("- one\n- two\n")
        await pilot.pause()
        assert not tail.query(Horizontal)
        assert [w.symbol for w in tail.query(ListParagraph)] == ["• ", "• "]


async def test_an_item_with_a_nested_list_is_two_widgets() -> None:
    """A paragraph and a nested list: the two blocks, the list in the bullet's column."""
    text = "- one\n   - nested a\n   - nested b\n- two\n"
    app = Both()
    async with app.run_test(size=(60, 40)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show(text)
        await pilot.pause()
        assert not tail.query(Horizontal)
        assert len(list(tail.walk_children())) == 1 + 2 + 2 + 1, "list, row, nested items, row"


async def test_a_streamed_list_draws_what_the_whole_text_draws() -> None:
    """Shown piece by piece (items grow, gain nested lists, numbering widens), the tail
    ends with Textual's cells for the whole text."""
    app = Both()
    async with app.run_test(size=(50, 120)) as pilot:
        tail = app.query_one(LiveTail)
        for end in range(3, len(LISTS), 7):
            await tail.show(LISTS[:end])
        await tail.show(LISTS)
        await _assert_drawn_as_textual(app, pilot)


async def test_a_row_drawn_in_part_is_that_part_of_the_whole() -> None:
    """The screen asks for the visible part of a widget only (scrolled, clipped): the
    bullet column must land where the whole drawing has it."""
    app = Both()
    async with app.run_test(size=(40, 60)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show("10. " + "a long item that wraps onto more lines " * 3 + "\n")
        await pilot.pause()
        row = tail.query_one(ListParagraph)
        width, height = row.size
        whole = row.render_lines(Region(0, 0, width, height))
        for x, y in [(0, 1), (1, 0), (2, 1), (4, 0), (3, 2)]:
            part = row.render_lines(Region(x, y, width - x, height - y))
            assert part == [line.crop(x, width) for line in whole[y:]], (x, y)
        narrow = row.render_lines(Region(1, 0, 2, 1))
        assert narrow[0].cell_length == 2 and narrow[0].text == whole[0].crop(1, 3).text


@pytest.mark.parametrize("start", [None, (3, 0)])
async def test_a_selection_over_light_rows_copies_what_textuals_rows_copy(
    start: tuple[int, int] | None,
) -> None:
    """A drag across a streamed list copies the bullets too, as over Textual's list
    (its bullet widget answers ``get_selection`` with the symbol); a drag that starts
    inside an item's text leaves that item's bullet out, as Textual's does."""
    from textual.geometry import Offset
    from textual.selection import Selection

    app = Both()
    async with app.run_test(size=(60, 120)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show(LISTS)
        await pilot.pause()
        copied = []
        for markdown in (app.query_one("#textual", Markdown), tail):
            widgets = [markdown, *markdown.query("*")]  # what a drag across it selects
            selections = {widget: Selection(None, None) for widget in widgets}
            if start is not None:  # the drag starts in the second item's text
                second = next(w for w in widgets if "an item long" in str(w.render()))
                selections[second] = Selection(Offset(*start), None)
                selections = dict(list(selections.items())[widgets.index(second) :])
            app.screen.selections = selections
            copied.append(app.screen.get_selected_text())
            app.screen.clear_selection()
        assert copied[0] and "•" in copied[0]
        assert copied[1] == copied[0]
