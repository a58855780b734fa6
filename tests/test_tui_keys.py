"""Configurable keys, the help screen and the command palette's app commands."""

from __future__ import annotations

import pytest
from scripted_server import ScriptedServer
from textual.containers import VerticalScroll
from textual.system_commands import SystemCommandsProvider
from textual.widgets import Static
from tui_helpers import SIZE, Notes, make_app, ready, until

from tuibot.tui.keys.keymap import check_keymap, is_key_name
from tuibot.tui.screens.help import HelpScreen


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("ctrl+t", True),
        ("f9", True),
        ("question_mark", True),
        ("?", True),
        ("ctrl+shift+up", True),
        ("slash", True),
        ("enter", True),
        ("ctrl+nope", False),
        ("ctrl+ctrl+a", False),
        ("hyperspace+a", False),
        ("ctrl+", False),
        ("two words", False),
    ],
)
def test_key_names_are_checked(key: str, ok: bool) -> None:
    assert is_key_name(key) is ok


def test_check_keymap_keeps_good_entries_and_names_the_bad_ones() -> None:
    table = {"new_chat": ["ctrl+t", "f9"], "help": "f10, ctrl+h", "nope": "x", "zoom": "ctrl+"}
    keymap, problems = check_keymap(table, {"new_chat", "help", "zoom"})
    assert keymap == {"new_chat": "ctrl+t,f9", "help": "f10,ctrl+h"}
    assert problems == [
        "tui.keys.nope: no binding has this id; ignored",
        "tui.keys.zoom: 'ctrl+' is not a key name; ignored",
    ]


async def test_a_rebound_key_works_and_the_old_one_does_not(server: ScriptedServer) -> None:
    app = make_app(server, tui__keys={"new_chat": "ctrl+t"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        before = len(engine.chats.list())
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert len(engine.chats.list()) == before
        await pilot.press("ctrl+t")
        await until(pilot, lambda: len(engine.chats.list()) == before + 1)


async def test_a_key_taken_from_another_binding_is_reported(server: ScriptedServer) -> None:
    notes = Notes()
    app = make_app(server, tui__keys={"new_chat": "ctrl+r"})
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        before = len(engine.chats.list())
        await pilot.press("ctrl+r", "ctrl+r")
        await until(pilot, lambda: len(engine.chats.list()) == before + 2)
        assert not app.show_reasoning
        await pilot.pause()
        assert len(notes.about("tui.keys.new_chat: ctrl+r was Reasoning (reasoning)")) == 1


async def test_unknown_ids_and_bad_keys_are_reported_and_the_rest_applied(
    server: ScriptedServer,
) -> None:
    notes = Notes()
    keys = {"no_such_binding": "x", "reasoning": "ctrl+nope", "help": "f10", "help_close": "f12"}
    app = make_app(server, tui__keys=keys)
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        assert [sev for sev, _ in notes.about("tui.keys.no_such_binding")] == ["warning"]
        assert notes.about("'ctrl+nope' is not a key name")
        assert not notes.about("help_close")  # an id of a screen not shown yet is known
        await pilot.press("ctrl+r")  # reasoning keeps its own key
        assert app.show_reasoning
        await pilot.press("f10")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("f12")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_the_help_screen_lists_app_and_pane_bindings_with_rebound_keys(
    server: ScriptedServer,
) -> None:
    app = make_app(server, tui__keys={"new_chat": "ctrl+t"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen = app.screen
        titles = [str(s.content) for s in screen.query(".help-group").results(Static)]
        assert titles[0] == "App-wide"
        assert {"Chats", "Conversation", "Composer"} <= set(titles)
        tables = [s.content.plain for s in screen.query(".help-rows").results(Static)]
        app_rows = tables[0].splitlines()
        new_chat = next(line for line in app_rows if "new_chat" in line)
        assert new_chat.startswith("^t") and "New chat" in new_chat
        assert any(line.startswith("f7") and "grants" in line for line in app_rows)
        composer = tables[titles.index("Composer")]
        assert "Cursor up" in composer
        body = screen.query_one("#help-body", VerticalScroll)
        await until(pilot, lambda: body.max_scroll_y > 0)
        await pilot.press("end")
        await until(pilot, lambda: body.scroll_y > 0)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_the_palette_offers_every_app_action_with_its_key(server: ScriptedServer) -> None:
    app = make_app(server, tui__keys={"reasoning": "ctrl+t"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        provider = SystemCommandsProvider(app.screen)
        found = {hit.text: hit.help or "" async for hit in provider.discover()}
        for title in ("New chat", "Approvals queue", "Grants", "Help: every key binding"):
            assert title in found, title
        assert found["Toggle reasoning"].startswith("^t")
        assert "Theme" in found  # Textual's own commands stay
        hits = [hit.text async for hit in provider.search("focus tool")]
        assert hits[0] == "Focus tool log"

        await pilot.press("ctrl+p")
        await pilot.press(*"toggle reasoning")
        await pilot.pause()
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.show_reasoning)


async def test_a_side_pane_mounted_after_the_first_frame_keeps_its_keymap(
    server: ScriptedServer,
) -> None:
    """The approvals queue is mounted after the keymap was applied (tui/later_panes.py):
    its ids are still known, and a key it loses to a rebound one is still reported."""
    notes = Notes()
    app = make_app(server, tui__keys={"approve_once": "n", "tree_open": "o"})
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        await pilot.pause()

        assert not notes.about("no binding has this id")
        assert len(notes.about("tui.keys.approve_once: n was Deny (approval_deny)")) == 1
