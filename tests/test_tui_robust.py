"""The app survives whatever a server sends: a pane that cannot show an event says so.

A server that repeats a tool-call id within a turn once made the tool log raise
``DuplicateKey`` and killed the app, which then exited 0. These post the same
``ToolStarted`` twice, to the pane and through the app, and check that a real crash is
a non-zero exit that names the log.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

from scripted_server import ScriptedServer
from textual.app import App
from tui_helpers import SIZE, Notes, make_app, ready, until

from tuibot.events import ToolFinished, ToolStarted
from tuibot.tui.messages import EngineEvent
from tuibot.tui.widgets.tool_log import ToolLog


def started(chat: str, call_id: str = "call_1") -> ToolStarted:
    return ToolStarted(chat, "t_1", call_id, "list_dir", {"path": "."})


async def test_the_same_tool_call_id_twice_shows_two_rows(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        chat = app.engine.new_chat().id
        log = app.query_one(ToolLog)
        log.apply(started(chat))
        log.apply(started(chat))
        await pilot.pause()
        assert log.table.row_count == 2
        log.apply(ToolFinished(chat, "t_1", "call_1", "list_dir", True, "x", 0.1))
        await pilot.pause()
        assert [e.status for e in log.entries()].count("ok") == 1


async def test_a_failing_pane_is_a_notice_not_a_crash(server: ScriptedServer) -> None:
    app = make_app(server)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        assert app.engine is not None
        chat = app.engine.new_chat().id

        def broken(event: object) -> None:
            raise RuntimeError("cannot draw this")

        log = app.query_one(ToolLog)
        log.apply = broken  # type: ignore[method-assign]
        with_log = logging.getLogger("tuibot")
        records: list[logging.LogRecord] = []
        handler = logging.Handler()
        handler.emit = records.append  # type: ignore[method-assign]
        with_log.addHandler(handler)
        try:
            app.post_message(EngineEvent(started(chat)))
            app.post_message(EngineEvent(started(chat)))
            await until(pilot, lambda: any("tool log" in text for _, text in notes.texts))
        finally:
            with_log.removeHandler(handler)
        assert app.is_running and app.return_code in (None, 0)
        shown = [text for _, text in notes.texts if "tool log" in text]
        assert len(shown) == 1 and "\n" not in shown[0]  # one line, once
        assert any(r.exc_info and "cannot draw this" in str(r.exc_info[1]) for r in records)


class Crashing(App[int]):
    def on_mount(self) -> None:
        raise RuntimeError("boom")


def test_a_real_crash_exits_non_zero_and_names_the_log(tmp_path: Path) -> None:
    from tuibot.commands.tui import exit_status

    app = Crashing()
    app.run(headless=True)
    err = io.StringIO()
    code = exit_status(app, tmp_path / "tuibot.log", err)
    assert code == 1
    assert str(tmp_path / "tuibot.log") in err.getvalue()


def test_a_clean_quit_exits_zero(tmp_path: Path) -> None:
    class Quitting(App[int]):
        def on_mount(self) -> None:
            self.exit(0)

    from tuibot.commands.tui import exit_status

    app = Quitting()
    app.run(headless=True)
    err = io.StringIO()
    assert exit_status(app, tmp_path / "tuibot.log", err) == 0
    assert err.getvalue() == ""
