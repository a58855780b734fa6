"""The composer: Enter sends, ctrl+j breaks the line, `/` completes, ↑/↓ recall, Esc stops.

Every test drives the real app over the scripted server with key presses and checks
what reached the engine (requests, chat files) or what the composer holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from delegation_helpers import Script, delegate_call
from scripted_server import ScriptedServer, silent, text
from textual import events
from tui_helpers import SIZE, make_app, ready, until

from tuibot.events import CommandOutput, TurnFinished
from tuibot.tui.app import TuibotApp
from tuibot.tui.recall import HISTORY_FILE, InputHistory
from tuibot.tui.widgets.completion import CommandCompletion


def user_messages(app: TuibotApp) -> list[str]:
    """The user messages stored in the chat shown."""
    assert app.engine is not None and app.current_chat is not None
    messages = app.engine.chats.load(app.current_chat, readonly=True).messages
    return [m.get("content") or "" for m in messages if m["role"] == "user"]


def idle(app: TuibotApp) -> Callable[[], bool]:
    """A condition: the chat shown has no turn running or waiting."""
    engine = app.engine
    assert engine is not None
    return lambda: not engine.busy(app.current_chat or "")


def requested(server: ScriptedServer, count: int) -> Callable[[], bool]:
    """A condition: the server got ``count`` chat requests."""
    return lambda: len(chat_requests(server)) == count


def chat_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    """Bodies of the chat requests (the health check's GETs left out)."""
    return [r.body or {} for r in server.requests if r.path.endswith("/chat/completions")]


def outputs(app: TuibotApp) -> list[CommandOutput]:
    """Every command output the engine publishes from now on."""
    seen: list[CommandOutput] = []
    assert app.engine is not None
    app.engine.events.listen(lambda e: seen.append(e) if isinstance(e, CommandOutput) else None)
    return seen


async def test_enter_sends_and_ctrl_j_breaks_the_line(server: ScriptedServer) -> None:
    server.enqueue(text("Hello back."))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("enter")  # empty input sends nothing
        await pilot.press(*"line one", "ctrl+j", *"line two")
        assert app.composer.text == "line one\nline two"
        await pilot.press("enter")
        await until(pilot, lambda: len(chat_requests(server)) == 1)
        assert chat_requests(server)[0]["messages"][-1]["content"] == "line one\nline two"
        assert app.composer.text == ""
        await until(pilot, idle(app))
        assert user_messages(app) == ["line one\nline two"]


async def test_paste_keeps_newlines_and_does_not_send(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        height = app.composer.size.height
        app.composer.post_message(events.Paste("a\nb\nc\nd"))
        await until(pilot, lambda: app.composer.text == "a\nb\nc\nd")
        await pilot.pause()
        assert chat_requests(server) == []
        assert app.composer.size.height > height  # grows with its content


async def test_slash_completion_shows_completes_and_sends(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        completion = app.composer.completion
        seen = outputs(app)
        await pilot.press("slash", "h", "e")
        await until(pilot, lambda: completion.is_open)
        assert [o.id for o in completion.options] == ["/help"]
        await pilot.press("tab")
        assert app.composer.text == "/help "
        assert not completion.is_open
        await pilot.press("enter")
        await until(pilot, lambda: [o.command for o in seen] == ["/help"])
        assert chat_requests(server) == []  # commands never call the model


async def test_completion_lists_tools_and_enter_picks_the_highlighted(
    server: ScriptedServer,
) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        completion = app.composer.completion
        assert app.engine is not None
        tool = sorted(app.engine.tools.names())[0]
        await pilot.press("slash")
        await until(pilot, lambda: completion.is_open)
        names = [o.id for o in completion.options]
        assert "/new" in names and "/help" in names and f"/{tool}" in names
        target = names.index(f"/{tool}")
        for _ in range(target):
            await pilot.press("down")
        await pilot.press("enter")
        assert app.composer.text == f"/{tool} "
        await pilot.press("ctrl+u")  # clear the line
        await pilot.press("slash", "n")
        await until(pilot, lambda: completion.is_open)
        await pilot.press("escape")
        assert not completion.is_open and app.composer.text == "/n"
        await pilot.press("backspace")  # "/" alone: every command, "/new" first
        await until(pilot, lambda: completion.is_open)
        await pilot.click(CommandCompletion, offset=(3, 1))
        assert app.composer.text == "/new " and app.focused is app.composer


async def test_history_walks_back_and_restores_the_draft(server: ScriptedServer) -> None:
    server.enqueue(text("one"), text("two"))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for sent, message in enumerate(("first", "second"), 1):
            await pilot.press(*message, "enter")
            await until(pilot, requested(server, sent))
            await until(pilot, idle(app))
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.composer.text == "second"
        await pilot.press("up")
        assert app.composer.text == "first"
        await pilot.press("up")  # the oldest stays
        assert app.composer.text == "first"
        await pilot.press("down", "down")
        assert app.composer.text == "draft"
    saved = Path(app.paths.root, HISTORY_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in saved] == ["first", "second"]


def test_history_file_survives_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    path.write_text('{"text": "kept"}\n{"text": "to', encoding="utf-8")
    history = InputHistory(path, cap=3)
    assert history.back("") == "kept"
    history.add("new")
    for n in range(10):
        history.add(f"n{n}")
    assert history.entries == ["n7", "n8", "n9"]
    again = InputHistory(path, cap=3)
    again.load()
    assert again.entries == ["n7", "n8", "n9"]


async def test_queued_input_shows_while_a_turn_runs_and_esc_stops_it(
    server: ScriptedServer,
) -> None:
    server.enqueue(silent(30), text("Second answer."))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        finished: list[TurnFinished] = []
        engine.events.listen(lambda e: finished.append(e) if isinstance(e, TurnFinished) else None)
        await pilot.press(*"first", "enter")
        await until(pilot, lambda: len(chat_requests(server)) == 1)
        await pilot.press(*"second [b]", "enter")  # shown as typed, never as markup
        queued = app.composer.queued
        await until(pilot, lambda: "queued: second [b]" in str(queued.render()))
        assert queued.display
        await pilot.press("escape")
        await until(pilot, lambda: [f.status for f in finished] == ["cancelled", "completed"])
        assert finished[1].text == "Second answer."
        await until(pilot, lambda: not queued.display)
        assert user_messages(app) == ["first", "second [b]"]


async def test_a_second_esc_also_cancels_the_chats_delegations(server: ScriptedServer) -> None:
    Script(
        server,
        [
            ("Plan a trip", delegate_call("Find three hotels.", {"timeMs": 600_000})),
            ('"status": "queued"', text("I asked a helper.")),
            ("gives you this task", silent(30)),
        ],
    )
    app = make_app(server, config='[agent]\nname = "Assistant"\nmodel = "test-model"\n')
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        await pilot.press(*"Plan a trip", "enter")
        await until(pilot, lambda: app.current_chat is not None)
        chat = app.current_chat or ""
        await until(
            pilot, lambda: [r.status for r in engine.delegations.given_by(chat)] == ["running"]
        )
        await until(pilot, lambda: not engine.busy(chat))
        await pilot.press("escape")
        assert engine.delegations.given_by(chat)[0].is_open  # one Esc stops only the turn
        await pilot.press("escape")
        await until(pilot, lambda: engine.delegations.given_by(chat)[0].status == "cancelled")


async def test_rebinding_send_frees_enter_for_newlines(server: ScriptedServer) -> None:
    server.enqueue(text("ok"))
    app = make_app(server, config='[tui.keys]\ncomposer_send = "ctrl+s"\n')
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"one", "enter", *"two")
        assert app.composer.text == "one\ntwo" and chat_requests(server) == []
        await pilot.press("ctrl+s")
        await until(pilot, requested(server, 1))
        assert chat_requests(server)[0]["messages"][-1]["content"] == "one\ntwo"
