"""The live tool log: calls of every chat as they run, a filter, details, reload errors."""

from __future__ import annotations

from pathlib import Path

from engine_helpers import write_tool
from scripted_server import ScriptedServer, text, tool_calls
from textual.widgets import Input, Static
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.screens.tool_detail import ToolDetailScreen
from tuibot.tui.widgets.tool_log import ToolLog


def row_text(log: ToolLog, index: int) -> list[str]:
    return [str(cell) for cell in log.table.get_row_at(index)]


async def test_a_tool_call_shows_with_its_status_duration_and_output(
    server: ScriptedServer,
) -> None:
    server.enqueue(tool_calls([("list_dir", '{"path": "."}', "call_1")]), text("Empty."))
    Path("notes.txt").write_text("hello", encoding="utf-8")
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        log = app.query_one(ToolLog)
        chat = engine.new_chat().id
        await (await engine.send(chat, "What is in this folder?"))

        await until(pilot, lambda: [e.status for e in log.entries()] == ["ok"])
        [entry] = log.entries()
        [result] = [m for m in engine.chats.load(chat).messages if m["role"] == "tool"]
        assert entry.tool == "list_dir" and entry.chat == chat and entry.bot == "Assistant"
        assert entry.output == result["content"] and "notes.txt" in result["content"]
        assert entry.duration_s is not None and entry.output_size == len(result["content"])
        status, _, tool, took, arguments, chat_cell, bot, size = row_text(log, 0)
        assert (status, tool, bot) == ("✓ ok", "list_dir", "Assistant")
        assert (
            took.endswith("s")
            and arguments == '{"path": "."}'
            and size == str(len(result["content"]))
        )
        assert chat_cell == "What is in this folder?"

        app.action_focus_pane("tools")  # F6 (the composer's TextArea takes F6 for itself)
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ToolDetailScreen))
        output = app.screen.query_one("#detail-output", Static)
        assert "notes.txt" in str(output.render())
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ToolDetailScreen))


async def test_the_filter_hides_rows_that_do_not_match_and_escape_clears_it(
    server: ScriptedServer,
) -> None:
    calls = [("list_dir", '{"path": "."}', "c1"), ("read_file", '{"path": "nope.txt"}', "c2")]
    server.enqueue(tool_calls(calls), text("Done."))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        log = app.query_one(ToolLog)
        chat = engine.new_chat().id
        await (await engine.send(chat, "Check the folder"))
        await until(pilot, lambda: len(log.entries()) == 2 and log.table.row_count == 2)
        await until(pilot, lambda: all(e.status != "running" for e in log.entries()))
        statuses = {e.tool: e.status for e in log.entries()}
        assert statuses == {"list_dir": "ok", "read_file": "error"}  # there is no nope.txt

        app.action_focus_pane("tools")
        await pilot.pause()
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"read")
        await until(pilot, lambda: log.table.row_count == 1)  # once typing pauses
        assert row_text(log, 0)[2] == "read_file"
        await pilot.press("escape")
        assert log.table.row_count == 2 and app.focused is log.table
        await pilot.press("slash", *"list", "enter")  # Enter applies it and goes to the table
        assert [row_text(log, i)[2] for i in range(log.table.row_count)] == ["list_dir"]
        assert app.focused is log.table
        await pilot.press("escape", "slash", *"error", "enter")  # the status matches too
        assert [row_text(log, i)[2] for i in range(log.table.row_count)] == ["read_file"]
        await pilot.press("escape")  # Esc clears in the table too
        assert log.table.row_count == 2 and log.query_text == ""


async def test_a_broken_tool_saved_while_running_shows_its_load_error(
    server: ScriptedServer, hermetic: Path
) -> None:
    home = hermetic / "home"
    (home / "tools").mkdir()
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        log = app.query_one(ToolLog)
        await until(pilot, lambda: engine.tool_reloader.ready.is_set())
        write_tool(home, "bad", "def broken(:\n    return 1\n")

        def load_errors() -> list[str]:
            return [e.arguments_text() for e in log.entries() if e.notice and e.status == "error"]

        await until(pilot, lambda: bool(load_errors()), timeout=15)
        [message] = load_errors()
        assert "bad.py" in message and "SyntaxError" in message
        row = row_text(log, log.table.row_count - 1)
        assert row[0] == "✗ error" and row[2] == "bad" and "SyntaxError" in row[4]
        assert "broken" not in engine.tools and "list_dir" in engine.tools  # the rest still work
