"""Tables in the live tail draw exactly the cells Textual's ``MarkdownTable`` draws.

The corpus is tables as models write them in answers: comparisons with many columns
that must shrink and wrap at a narrow width, one-column lists, empty cells, long
unbreakable words (paths, URLs), wide CJK characters and emoji, escaped pipes, inline
code, bold and links in cells, and alignment rows (``:--:``, which Textual ignores).
Each is drawn by Textual's own Markdown and by the tail (``LiveTail``), at widths where
columns fit, where they must shrink, and where words must wrap, in both themes; the
strips must be equal, characters and styles.
"""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Markdown

from tuibot.tui.widgets.frozen import render_off_screen
from tuibot.tui.widgets.tail import LiveTail

TABLES = {
    "comparison": """| Option | Speed | Memory | Notes |
|--------|:-----:|-------:|-------|
| `list.append` | **fast** | low | amortised O(1), the usual choice |
| `deque.appendleft` | fast | medium | use when you pop from *both* ends |
| `list.insert(0, x)` | slow | low | O(n): every element moves |
""",
    "one column": """| Step |
|---|
| Install the package |
| Run `tuibot ask "hello"` |
| Read the [docs](https://example.com/docs) |
""",
    "empty cells": """| Name | Default | Required |
|---|---|---|
| `model` |  | yes |
| `temperature` | 0.7 |  |
|  |  |  |
""",
    "long words": """| File | Purpose |
|------|---------|
| `src/tuibot/tui/widgets/light_table_of_everything.py` | draws tables |
| https://example.com/a/very/long/path/that/does/not/break/anywhere | a URL |
""",
    "wide characters": """| 語 | Meaning | Example |
|----|---------|---------|
| 日本語 | Japanese language | 日本語を話します |
| 中文 | Chinese | 我会说中文 🙂 |
| 한국어 | Korean | 안녕하세요 |
""",
    "escaped pipes": r"""| Expression | Result |
|------------|--------|
| `a \| b` | bitwise or |
| x \|\| y | logical or, written with two escaped pipes |
""",
    "alignment": """| Left | Centre | Right |
|:-----|:------:|------:|
| 1 | 2 | 3 |
| a longer left cell | mid | 1,234.56 |
""",
    "wide": """| Model | Context | Input $/M | Output $/M | Tools | Vision | Streaming | Notes |
|---|---|---|---|---|---|---|---|
| gpt-4o-mini | 128k | 0.15 | 0.60 | yes | yes | yes | cheap and fast, good default for chat |
| claude-3-5-haiku | 200k | 0.80 | 4.00 | yes | no | yes | strong at code review |
| llama-3.1-8b (local) | 128k | 0 | 0 | partial | no | yes | runs on a laptop CPU, slowly |
""",
    "ragged": """| a | b | c |
|---|---|---|
| only one |
| one | two | three | four |
""",
    "header only": """| Key | Action |
|-----|--------|
""",
}


def _document(text: str) -> str:
    return f"A paragraph before the table.\n\n{text}\nAnd one after it.\n"


class Both(App[None]):
    """Textual's Markdown and the tail, same text, same place in the tree."""

    CSS = "Screen { overflow: hidden; } Markdown { padding: 0 1; }"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Markdown(self.text, id="textual")
        yield LiveTail(id="tail")


def _strips(widget: Markdown) -> list[Strip]:
    drawn = render_off_screen(widget)
    assert drawn is not None
    return drawn


def _cells(strips: list[Strip]) -> list[list[tuple[str, Style | None]]]:
    """Each line as its characters and their styles (however the segments are split)."""
    return [[(char, seg.style) for seg in strip for char in seg.text] for strip in strips]


async def _compare(text: str, width: int, theme: str, streamed: bool = False) -> None:
    app = Both(text)
    async with app.run_test(size=(width, 80)) as pilot:
        app.theme = theme
        tail = app.query_one(LiveTail)
        if streamed:  # a line at a time, as rows arrive, then the whole
            lines = text.splitlines(keepends=True)
            for end in range(1, len(lines) + 1):
                await tail.show("".join(lines[:end]))
                await pilot.pause()
        await tail.show(text)
        await pilot.pause()
        await pilot.pause()
        want = _strips(app.query_one("#textual", Markdown))
        got = _strips(tail)
        assert [s.text for s in got] == [s.text for s in want]
        for y, (mine, theirs) in enumerate(zip(_cells(got), _cells(want), strict=True)):
            assert mine == theirs, f"line {y}: same cells, same colours and styles"


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("width", [24, 44, 70, 130])
@pytest.mark.parametrize("name", list(TABLES))
async def test_tail_tables_draw_the_cells_textual_draws(name: str, width: int, theme: str) -> None:
    await _compare(_document(TABLES[name]), width, theme)


@pytest.mark.parametrize("width", [30, 80])
@pytest.mark.parametrize("name", ["comparison", "wide", "wide characters", "ragged"])
async def test_a_streamed_table_ends_drawing_what_the_whole_text_draws(
    name: str, width: int
) -> None:
    await _compare(_document(TABLES[name]), width, "textual-dark", streamed=True)


async def test_a_tail_table_is_one_widget_and_falls_back_when_columns_cannot_fit() -> None:
    """The comparisons above are of the light drawing: the cells are not widgets. Where a
    column is narrower than its padding, Textual's grid spills cells over the keylines;
    the table then becomes Textual's own (and the comparison holds for that too)."""
    from textual.widgets import Static

    from tuibot.tui.widgets.light_table import LightTable, LightTableContent

    for width, light in [(70, True), (24, False)]:
        app = Both(_document(TABLES["wide"]))
        async with app.run_test(size=(width, 80)) as pilot:
            tail = app.query_one(LiveTail)
            await tail.show(app.text)
            await pilot.pause()
            await pilot.pause()
            table = tail.query_one(LightTable)
            assert bool(table.query(LightTableContent)) is light, width
            cells = [w for w in table.query(Static) if w.display]
            assert (not cells) is light, "no cell widgets in a light table"


@pytest.mark.parametrize("name", ["comparison", "empty cells", "escaped pipes"])
async def test_selecting_a_table_copies_what_textuals_table_copies(name: str) -> None:
    from textual.selection import Selection

    app = Both(_document(TABLES[name]))
    async with app.run_test(size=(90, 80)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show(app.text)
        await pilot.pause()
        copied = []
        for markdown in (app.query_one("#textual", Markdown), tail):
            widgets = [markdown, *markdown.query("*")]  # what a drag across it selects
            app.screen.selections = {widget: Selection(None, None) for widget in widgets}
            copied.append(app.screen.get_selected_text())
            app.screen.clear_selection()
        assert copied[0] and copied[0].count("\n") > 6, "every cell on a line"
        assert copied[1] == copied[0]


async def test_a_shown_table_takes_a_new_theme_and_width_as_textuals_does() -> None:
    """Drawn once, then the theme and the terminal's width change: the cells follow."""
    app = Both(_document(TABLES["comparison"]))
    async with app.run_test(size=(90, 80)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show(app.text)
        await pilot.pause()
        _strips(tail)
        app.theme = "textual-light"
        await pilot.resize_terminal(50, 80)
        await pilot.pause()
        await pilot.pause()
        want = _strips(app.query_one("#textual", Markdown))
        got = _strips(tail)
        assert [s.text for s in got] == [s.text for s in want]
        assert _cells(got) == _cells(want)
        app.theme = "textual-dark"
        await pilot.pause()
        await pilot.pause()
        assert _cells(_strips(tail)) == _cells(_strips(app.query_one("#textual", Markdown)))


async def test_a_cell_under_the_mouse_shows_its_whole_text_as_textuals_does() -> None:
    """Textual's cells carry their text as a tooltip (a cut cell ends in "…")."""
    from tuibot.tui.widgets.light_table import LightTableContent

    app = Both(TABLES["comparison"])
    async with app.run_test(size=(44, 60)) as pilot:
        tail = app.query_one(LiveTail)
        await tail.show(app.text)
        await pilot.pause()
        content = tail.query_one(LightTableContent)
        cells = app.query_one("#textual", Markdown).query(".cell").first().parent
        assert cells is not None and cells.region.size == content.region.size
        shown = []
        for x, y in [(3, 1), (20, 1), (3, 3), (38, 4), (0, 0), (16, 2)]:
            await pilot.hover(content, offset=(x, y))
            under, _ = app.screen.get_widget_at(cells.region.x + x, cells.region.y + y)
            want = under.tooltip if under.classes & {"cell", "header"} else None
            shown.append(want)
            assert content.tooltip == (str(want) if want is not None else None), (x, y)
        assert len([want for want in shown if want]) == 4
