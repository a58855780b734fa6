"""What the app shows is what was written (issue 17, item 8): dialogs and your messages.

A confirm dialog's buttons keep their ``[y]``/``[n]`` hints and its question is shown
whole whatever brackets a chat title holds; your message is shown as you typed it, not
as Markdown (pasted lines stay lines, ``*`` stays ``*``, markup is not applied).
"""

from __future__ import annotations

from scripted_server import ScriptedServer, silent
from textual.widgets import Button, Label
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.screens.confirm import ConfirmScreen
from tuibot.tui.widgets.blocks import UserMessage

PASTED = "line one\nline two\n* not a bullet *\n[bold]not bold[/bold] # not a heading"


async def test_confirm_buttons_keep_their_key_hints_and_the_question_its_brackets(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        question = "Delete the chat [draft] [/] [b]notes?"
        app.push_screen(ConfirmScreen(question, yes="Delete"))
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.pause()
        labels = [str(button.label) for button in app.screen.query(Button)]
        assert labels == ["Delete [y]", "No [n]"]
        [shown] = app.screen.query(Label)
        assert str(shown.render()) == question


async def test_your_message_is_shown_as_typed(server: ScriptedServer) -> None:
    server.enqueue(silent(5))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(app.current_chat, PASTED)
        await until(pilot, lambda: bool(app.conversation.query(UserMessage)))
        await pilot.pause()
        message = app.conversation.query_one(UserMessage)
        rows = [line.text.rstrip() for line in message.render_lines(message.region.reset_offset)]
        shown = [row.lstrip("█▌▐ ").strip() for row in rows]  # less the left border
        shown = [row for row in shown if row]
        assert shown == PASTED.split("\n"), "each typed line on its own row, unchanged"
        app.action_interrupt()


async def test_the_approvals_badge_survives_80_columns(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        status = app.status
        status.bot, status.model = "Assistant", "a-rather-long-model-name:latest"
        status.health_detail = "local http://127.0.0.1:8000/v1"
        status.pending = 2
        await pilot.pause()
        row = status.render_line(0).text
        assert "⚑ 2 approvals (ctrl+g)" in row, row
