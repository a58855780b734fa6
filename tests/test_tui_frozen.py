"""Copying drawn Markdown: a block changed since the last layout is not copied yet.

The live tail updates paragraphs and table rows in place; laid out off screen right
after such an update, the container's cached arrangement still gives the old height,
and a copy then loses the lines the new text wrapped onto (issue 17 item 2). A table's
frame lines are drawn again before each copy, around where its cells are now.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from tuibot.tui.widgets.frozen import render_with_regions

LONG = "Call it as retry(fetch); the last error is raised again. " * 3


class Doc(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown("Call it as retry(fetch).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")


async def test_a_paragraph_grown_since_its_layout_is_copied_only_after_the_next() -> None:
    app = Doc()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        markdown = app.query_one(Markdown)
        paragraph = markdown.query(MarkdownBlock).first()
        assert render_with_regions(markdown) is not None, "laid out: it can be copied"
        paragraph.set_content(Content(LONG))
        assert render_with_regions(markdown) is None, "the copy would lose wrapped lines"
        await pilot.pause()
        drawn = render_with_regions(markdown)
        assert drawn is not None
        text = "\n".join(strip.text for strip in drawn[0])
        assert text.count("raised again.") == 3


async def test_a_table_cell_grown_since_its_layout_is_copied_only_after_the_next() -> None:
    app = Doc()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        markdown = app.query_one(Markdown)
        cells = [w for w in markdown.query("Static") if w.has_class("cell")]
        cells[-1].update(Content("a cell long enough to wrap onto more lines"))
        assert render_with_regions(markdown) is None
        await pilot.pause()
        assert render_with_regions(markdown) is not None


async def test_a_table_whose_cells_moved_since_its_last_paint_is_copied_with_its_lines_moved() -> (
    None
):
    """Textual repaints a table's lines (its keylines) only when the table changes size;
    cells that move inside it (a column grew) leave the lines where they were, so a copy
    showed the old column widths (the `ports` and `mixed` answers, issue 17 item 2)."""
    app = Doc()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        markdown = app.query_one(Markdown)
        cells = [w for w in markdown.query("Static") if w.has_class("cell")]
        cells[0].update(Content("one two"))  # the first column grows; same height
        await pilot.pause()
        drawn = render_with_regions(markdown)
        assert drawn is not None
        fresh = Markdown("Call it as retry(fetch).\n\n| a | b |\n|---|---|\n| one two | 2 |\n")
        await app.mount(fresh)
        await pilot.pause()
        want = render_with_regions(fresh)
        assert want is not None
        assert [s.text for s in drawn[0]] == [s.text for s in want[0]]
