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

from tuibot.tui.widgets.frozen import render_detached, render_with_regions

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


MIXED = """# Plan

A paragraph long enough to wrap onto a second line at this width, with `code` in it.

- one
- two, which is long enough to wrap at sixty columns wide as well
  1. nested

| name | value |
|------|-------|
| a    | 1     |
| b    | 22    |

> quoted

```python
print("hi")
```
"""


class Hidden(App[None]):
    """The same Markdown twice: on screen, and in a container that is not displayed."""

    CSS = """
    Screen { overflow: hidden; }
    Markdown { padding: 1 2; border: round red; }
    #away { display: none; }
    """

    def compose(self) -> ComposeResult:
        yield Markdown(MIXED, id="shown")
        yield Markdown(MIXED, id="away")


async def test_a_detached_drawing_is_what_the_screen_draws() -> None:
    """The off-screen copy of a hidden widget (the answer's staging area, history) must
    show what the screen shows for the same widget, padding and border included, and
    all of it even when it is taller than the room it is measured in."""
    app = Hidden()
    async with app.run_test(size=(60, 80)) as pilot:
        await pilot.pause()
        shown = app.query_one("#shown", Markdown)
        away = app.query_one("#away", Markdown)
        want = render_with_regions(shown)
        assert want is not None
        got = render_detached(away, shown.outer_size.width)
        assert [s.text for s in got] == [s.text for s in want[0]]
        assert got == want[0], "same cells, same styles"
        assert render_detached(away, shown.outer_size.width) == got, "drawn again: the same"
        assert render_detached(away, shown.outer_size.width, room=5) == got, "taller than room"
