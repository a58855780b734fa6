"""The app's frame: it starts, builds the engine after painting, and quits cleanly."""

from __future__ import annotations

from pathlib import Path

from delegation_helpers import CONFIG, Script, delegate_call
from scripted_server import ScriptedServer, silent, text
from textual import events
from textual.message import Message
from tui_helpers import SIZE, make_app, ready, until

from tuibot.delegation.journal import DelegationJournal
from tuibot.delegation.records import Delegation
from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.confirm import ConfirmScreen


async def test_the_app_starts_the_engine_after_the_first_paint(server: ScriptedServer) -> None:
    app = make_app(server)
    at_first_frame: list[tuple[str, bool]] = []

    def hook(message: Message) -> None:
        if isinstance(message, events.Ready):  # posted once the first frame is drawn
            work = {worker.group for worker in app.workers}
            at_first_frame.append((app.theme, "engine" in work or "themes" in work))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.status.health == "ok")
        assert "127.0.0.1" in app.status.health_detail
    assert at_first_frame == [("tuibot-dark", False)], "themed, and nothing else started yet"


async def test_no_server_still_opens_and_says_how_to_fix_it() -> None:
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.status.health == "down", timeout=15)
        assert "Cannot reach" in app.status.health_detail


def _delegating_script(server: ScriptedServer) -> Script:
    """The person's chat delegates one task, whose model call then hangs."""
    return Script(
        server,
        [
            ("gives you this task", silent(30)),
            ('"delegation"', text("Handed off.")),
            ("Start", delegate_call("Research the thing", {"timeMs": 600_000, "steps": 5})),
        ],
    )


def _running(app: TuibotApp) -> list[Delegation]:
    assert app.engine is not None
    return [d for d in app.engine.delegations.journal.all() if d.status == "running"]


async def test_turns_run_as_workers_grouped_per_chat(server: ScriptedServer) -> None:
    _delegating_script(server)
    app = make_app(
        server, CONFIG.format(url=server.url, price=0, approval_timeout=30, delegation="")
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(None, "Start")
        await until(pilot, lambda: bool(_running(app)))
        task_chat = _running(app)[0].chat
        await until(pilot, lambda: any(w.group == task_chat for w in app.workers))
        [worker] = [w for w in app.workers if w.group == task_chat]
        assert worker.description.startswith("turn:")
        assert worker.is_running


async def test_quitting_keeps_running_work_for_the_next_start(
    server: ScriptedServer, hermetic: Path
) -> None:
    _delegating_script(server)
    config = CONFIG.format(url=server.url, price=0, approval_timeout=30, delegation="")
    app = make_app(server, config)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.submit(None, "Start")
        await until(pilot, lambda: bool(_running(app)))
        [work] = _running(app)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "1 delegation" in app.screen.question
        await pilot.press("y")
        await until(pilot, lambda: app.engine is None)
    journal = DelegationJournal(hermetic / "data" / "delegations.jsonl")
    journal.load()
    stored = journal.get(work.id)
    assert stored is not None and stored.status == "running", "left for the next start"

    again = make_app(server, config)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = again.engine
        assert engine is not None
        recovered = engine.delegations.journal.get(work.id)
        assert recovered is not None and recovered.status == "paused"
        assert recovered.pause is not None and recovered.pause.limit == "restart"
        await until(pilot, lambda: bool(engine.approvals.pending()))


async def test_f8_zooms_the_focused_pane_and_back(server: ScriptedServer) -> None:
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for key, pane in [("f3", "#main"), ("f2", "#chats"), ("f4", "#tasks"), ("f6", "#tools")]:
            await pilot.press(key)
            await pilot.press("f8")
            assert app.screen.maximized is app.query_one(pane), pane
            await pilot.press("f8")
            assert app.screen.maximized is None
