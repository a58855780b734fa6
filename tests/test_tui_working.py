"""The working indicator: a running turn shows it is alive, what it waits for, and how
to stop it; an idle app runs no timer for it.

The real app over the scripted server: a silent server (headers, then nothing), a slow
stream, and a tool call that waits for a person's approval.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_server import Reply, ScriptedServer, silent, text, tool_calls
from test_tui_approvals import finish
from textual.pilot import Pilot
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.widgets.working_line import elapsed_text

pytestmark = pytest.mark.timeout(300)
WAIT_S = 60
"""How long a step may take on a loaded machine (no assertion is about speed)."""


def line(app: TuibotApp) -> str:
    """The indicator's text when it is shown, else ""."""
    working = app.conversation.working
    return working.text if working.display else ""


async def send(pilot: Pilot[Any], app: TuibotApp, words: str) -> None:
    app.composer.focus()
    app.composer.text = words
    await pilot.press("enter")


def seconds_shown(app: TuibotApp) -> int:
    """The elapsed seconds the indicator shows (only the seconds form is expected here)."""
    for part in line(app).split(" · "):
        if part.endswith("s") and part[:-1].isdigit():
            return int(part[:-1])
    return -1


async def test_a_silent_server_shows_the_indicator_growing_until_esc_stops_it(
    server: ScriptedServer,
) -> None:
    server.enqueue(silent(30))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert not app.working_ticking, "no timer while nothing runs"
        assert line(app) == ""
        await send(pilot, app, "Are you there?")
        await until(pilot, lambda: "waiting for the model" in line(app), WAIT_S)
        assert "esc to stop" in line(app)
        assert app.working_ticking
        assert "waiting for the model" in app.status.working
        first = seconds_shown(app)
        await until(pilot, lambda: seconds_shown(app) >= first + 1, WAIT_S)
        running = app.current_chat
        await pilot.press("ctrl+n")  # another chat: the bar counts the busy one, no timer
        await until(pilot, lambda: app.current_chat != running)
        assert app.status.working == "1 other chat working"
        assert not app.working_ticking and line(app) == ""
        assert running is not None
        app.open_chat(running)
        await until(pilot, lambda: "waiting for the model" in line(app) and app.working_ticking)
        await pilot.press("escape")
        await until(pilot, lambda: line(app) == "", WAIT_S)
        assert app.status.working == ""
        assert not app.working_ticking, "the timer stops with the last turn"


async def test_a_streaming_answer_says_writing_and_counts_tokens_then_goes(
    server: ScriptedServer,
) -> None:
    words = " ".join(f"word{i}" for i in range(60))
    server.enqueue(text(words, pieces=60, delay=0.05))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, app, "Talk slowly")
        await until(pilot, lambda: "writing" in line(app) and " tok" in line(app), WAIT_S)
        await until(pilot, lambda: not app.engine or not app.engine.busy(app.current_chat or ""))
        await until(pilot, lambda: line(app) == "" and not app.working_ticking, WAIT_S)
        assert "word59" in app.conversation.blocks[-1].text  # type: ignore[attr-defined]


def exec_once(body: dict[str, Any]) -> Reply:
    """The first request asks for exec (always confirmed); after its result: "done"."""
    if body["messages"][-1]["role"] == "user":
        return tool_calls([("exec", json.dumps({"command": "echo hi"}))])
    return text("done")


async def test_a_tool_waiting_for_approval_says_so(server: ScriptedServer) -> None:
    server.responder = exec_once
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, app, "Run something")
        await until(pilot, lambda: "waiting for your approval" in line(app), WAIT_S)
        await finish(pilot, app)
        await until(pilot, lambda: line(app) == "" and not app.working_ticking, WAIT_S)


def test_elapsed_reads_as_people_say_it() -> None:
    assert [elapsed_text(s) for s in (0, 7.9, 65, 3725)] == ["0s", "7s", "1m 05s", "1h 02m"]
