"""What is drawn is the answer: a streamed answer ends cell for cell as a fresh render.

Each answer of :mod:`answer_corpus` streams through the real app from the scripted
server in small chunks, at 80, 120 and 200 columns and with a resize while it streams.
Once the turn is over, the same text is mounted fresh (as a reopened chat draws it)
beside it, and the two must draw the same cells: characters, colours and styles.
"""

from __future__ import annotations

from typing import Any

import pytest
from answer_corpus import CORPUS
from scripted_server import ScriptedServer, text
from textual.pilot import Pilot
from textual.widget import Widget
from tui_helpers import make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.frozen import render_off_screen

pytestmark = pytest.mark.timeout(600)  # five streamed answers per app, slow on a busy box
WAIT_S = 60
"""How long a step may take on a loaded machine (no assertion is about speed)."""
Cell = tuple[str, str | None, str, bool, bool]


def cells_of(widget: Widget) -> list[list[Cell]]:
    """Every cell the widget draws: character, colour (on text), background, styles."""
    rows = []
    for strip in render_off_screen(widget) or []:
        row = []
        for segment in strip:
            style = segment.style
            assert style is not None
            for char in segment.text:
                color = None if char == " " else str(style.color)
                row.append((char, color, str(style.bgcolor), bool(style.bold), bool(style.italic)))
        rows.append(row)
    return rows


async def settled_cells(pilot: Pilot[Any], widget: Widget) -> list[list[Cell]]:
    """The widget's cells once two draws a tenth of a second apart agree."""
    drawn: list[list[Cell]] = []
    for _ in range(60):
        await pilot.pause(0.1)
        again = cells_of(widget)
        if again and again == drawn:
            break
        drawn = again
    return drawn


def _differ(a: list[list[Cell]], b: list[list[Cell]]) -> list[str]:
    """The differing rows as text, for a readable failure."""
    rows = []
    for y in range(max(len(a), len(b))):
        left = a[y] if y < len(a) else []
        right = b[y] if y < len(b) else []
        if left != right:
            rows.append(f"{y}: {''.join(c[0] for c in left)!r} != {''.join(c[0] for c in right)!r}")
    return rows


async def _stream(
    pilot: Pilot[Any], app: TuibotApp, server: ScriptedServer, answer: str, resize: Any = None
) -> AnswerView:
    """Send a message whose reply is ``answer`` in small chunks; the finished view."""
    before = len(app.conversation.blocks)
    server.enqueue(text(answer, delay=0.002))
    app.submit(app.current_chat, "Tell me.")

    def streamed() -> list[AnswerView]:
        return [b for b in app.conversation.blocks[before:] if isinstance(b, AnswerView)]

    await until(pilot, lambda: any(len(v.text) > len(answer) // 2 for v in streamed()), WAIT_S)
    if resize is not None:
        await pilot.resize_terminal(*resize)
    await until(pilot, lambda: any(v.finished and v.text == answer for v in streamed()), WAIT_S)
    [view] = streamed()
    await until(
        pilot, lambda: app.engine is not None and not app.engine.busy(app.current_chat), WAIT_S
    )
    return view


async def _compare(pilot: Pilot[Any], app: TuibotApp, view: AnswerView, name: str) -> None:
    fresh = AnswerView(view.text)
    await app.conversation._body.mount(fresh)
    want = await settled_cells(pilot, fresh)
    got = await settled_cells(pilot, view)
    await fresh.remove()
    assert want, "the fresh render draws something"
    assert _differ(got, want) == [], f"{name}: streamed cells differ from a fresh render"


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_streamed_answers_draw_as_a_fresh_render(server: ScriptedServer, width: int) -> None:
    app = make_app(server)
    async with app.run_test(size=(width, 50)) as pilot:
        await ready(pilot)
        for name, answer in CORPUS.items():
            view = await _stream(pilot, app, server, answer)
            await _compare(pilot, app, view, name)


async def test_an_answer_resized_while_streaming_draws_as_a_fresh_render(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        sizes = [(90, 50), (200, 50), (80, 40), (150, 50), (120, 50)]
        for (name, answer), size in zip(CORPUS.items(), sizes, strict=True):
            view = await _stream(pilot, app, server, answer, resize=size)
            await _compare(pilot, app, view, f"{name} resized to {size}")
