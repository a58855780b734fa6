"""Copying like a terminal user expects (issue 17, item 5), through the real app.

ctrl+c with a selection copies it, wherever it is (the conversation, a dialog such as the
tool call's details), and only stops a turn when nothing is selected. alt+c copies the
answer in view as its Markdown source, alt+k its code blocks (pressed again: the one
before). What was copied is read back from the app's clipboard, which is what
``copy_to_clipboard`` received (it also writes OSC 52; ``test_tui_osc52`` checks that
reaches a real terminal).
"""

from __future__ import annotations

from typing import Any

from scripted_server import ScriptedServer, silent, text
from textual.selection import Selection
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.blocks import UserMessage

ANSWER = (
    "Use **two** steps:\n\n"
    "```python\nprint('first')\n```\n\n"
    "Then:\n\n"
    "```sh\necho second\necho done\n```\n"
)


async def answered(pilot: Any, app: TuibotApp, question: str = "How?") -> AnswerView:
    """Send ``question`` and wait for the answer to be drawn in its final form."""
    app.submit(app.current_chat, question)
    await until(pilot, lambda: any(a.finished and a.text for a in _answers(app)))
    await pilot.pause()
    return _answers(app)[-1]


def _answers(app: TuibotApp) -> list[AnswerView]:
    return [block for block in app.conversation.blocks if isinstance(block, AnswerView)]


def _running(app: TuibotApp) -> bool:
    return (
        app.engine is not None
        and app.current_chat is not None
        and app.engine.busy(app.current_chat)
    )


async def test_ctrl_c_with_a_selection_copies_it_and_the_turn_goes_on(
    server: ScriptedServer,
) -> None:
    server.enqueue(silent(30))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(app.current_chat, "Keep this line\nand this one")
        await until(pilot, lambda: _running(app) and bool(app.conversation.query(UserMessage)))
        message = app.conversation.query_one(UserMessage)
        await pilot.pause()
        app.conversation.focus()
        dragged_over = [message, *message.query("*")]  # what a drag across it selects
        app.screen.selections = {widget: Selection(None, None) for widget in dragged_over}
        await pilot.press("ctrl+c")
        assert "Keep this line" in app.clipboard
        assert _running(app), "ctrl+c with a selection must not stop the turn"

        app.screen.clear_selection()
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not _running(app))
        assert "Keep this line" in app.clipboard, "stopping copies nothing"


async def test_ctrl_c_copies_a_selection_in_a_dialog(server: ScriptedServer) -> None:
    from textual.widgets import Static

    from tuibot.tui.screens.tool_detail import ToolDetailScreen
    from tuibot.tui.widgets.tool_log import ToolEntry

    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        entry = ToolEntry("k", 0.0, "list_dir", {"path": "docs"}, "ok", "c_1", output="a.md\nb.md")
        app.push_screen(ToolDetailScreen(entry))
        await pilot.pause()
        shown = [w for w in app.screen.query(Static) if "b.md" in str(w.render())]
        assert shown, "the output is on the dialog"
        app.screen.selections = {shown[0]: Selection(None, None)}
        await pilot.press("ctrl+c")
        assert "b.md" in app.clipboard


async def test_alt_c_copies_the_answer_as_its_markdown_source(server: ScriptedServer) -> None:
    server.enqueue(text("First answer."), text(ANSWER))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await answered(pilot, app, "One?")
        await answered(pilot, app, "Two?")
        await pilot.press("alt+c")
        assert app.clipboard == ANSWER, "the raw Markdown, not the drawn text"


async def test_alt_k_copies_code_blocks_last_first(server: ScriptedServer) -> None:
    server.enqueue(text(ANSWER))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await answered(pilot, app)
        await pilot.press("alt+k")
        assert app.clipboard == "echo second\necho done\n"
        await pilot.press("alt+k")
        assert app.clipboard == "print('first')\n", "again: the block before"
        await pilot.press("alt+k")
        assert app.clipboard == "echo second\necho done\n", "and round again"


async def test_a_reopened_chat_copies_from_its_history(server: ScriptedServer) -> None:
    server.enqueue(text(ANSWER))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await answered(pilot, app)
        chat = app.current_chat
        assert chat is not None
        app.action_new_chat()
        await until(pilot, lambda: not app.conversation.blocks)
        app.open_chat(chat)
        history = app.conversation.history
        await until(pilot, lambda: bool(history.entries) and not history.missing)
        await pilot.press("alt+c")
        assert app.clipboard == ANSWER
        await pilot.press("alt+k")
        assert app.clipboard == "echo second\necho done\n"


async def test_nothing_to_copy_says_so_and_keeps_the_clipboard(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.copy_to_clipboard("kept")
        await pilot.press("alt+c")
        await pilot.press("alt+k")
        assert app.clipboard == "kept"
