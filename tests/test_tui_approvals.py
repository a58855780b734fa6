"""The approvals queue: what it shows, every key, and how a new request is announced.

The real app over the scripted server: a bot asks to run ``exec`` (which always needs a
person's say-so), the request shows in the pane, and keys decide it; what reaches the
engine is read back from its events, its grants and what the model was sent next.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import Recorder
from scripted_server import Reply, ScriptedServer, text, tool_calls
from textual.pilot import Pilot
from textual.widgets import TabbedContent
from tui_helpers import SIZE, make_app, ready, until

from tuibot.approvals import ApprovalRequest, Decision
from tuibot.events import ApprovalRequested, ToolFinished
from tuibot.tui import clock
from tuibot.tui.actions import decisions
from tuibot.tui.app import TuibotApp
from tuibot.tui.messages import ShowRequest
from tuibot.tui.notify import CUT_NOTE, clean_summary, notification_escapes
from tuibot.tui.text.approval_text import describe, time_left, visible
from tuibot.tui.widgets import approvals
from tuibot.tui.widgets.approvals import ApprovalsPane, RequestCard


def exec_responder(body: dict[str, Any]) -> Reply:
    """A user's message ``run: CMD`` asks for exec(CMD); anything after a tool result: "ok"."""
    last = body["messages"][-1]
    if last["role"] == "user" and str(last.get("content", "")).startswith("run: "):
        command = last["content"].removeprefix("run: ")
        return tool_calls([("exec", json.dumps({"command": command}))])
    return text("ok")


def pane_of(app: TuibotApp) -> ApprovalsPane:
    return app.query_one(ApprovalsPane)


def cards(app: TuibotApp) -> list[RequestCard]:
    pane = pane_of(app)
    return [card for card in pane.query(RequestCard) if card.request.id in pane.request_ids]


def tab_label(app: TuibotApp) -> str:
    return app.query_one(TabbedContent).get_tab("tab-approvals").label.plain


async def run(app: TuibotApp, chat: str, command: str) -> None:
    """The person asks the bot to run ``command`` (the responder turns it into exec)."""
    assert app.engine is not None
    await app.engine.send(chat, f"run: {command}")


async def request_in(pilot: Pilot[Any], app: TuibotApp, count: int = 1) -> list[str]:
    """Wait until the pane lists ``count`` requests; their ids, oldest first."""
    await until(pilot, lambda: len(pane_of(app).request_ids) == count)
    return pane_of(app).request_ids


async def finish(pilot: Pilot[Any], app: TuibotApp) -> None:
    """Deny what still waits and let every turn end, so nothing runs while the app closes."""
    engine = app.engine
    assert engine is not None
    for waiting in engine.approvals.pending():
        engine.decide(waiting.id, Decision(False, reason="the test is over"))
    await until(pilot, lambda: not any(engine.busy(meta.id) for meta in engine.chats.list()))
    await pilot.pause()


def chat_of(app: TuibotApp) -> str:
    assert app.engine is not None
    return app.engine.new_chat().id


async def test_a_tool_request_shows_what_would_run_and_y_allows_it(
    server: ScriptedServer, hermetic: Path
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "No requests are waiting" in str(app.query_one(".empty").render())
        seen = Recorder(app.engine)  # type: ignore[arg-type]
        chat = chat_of(app)
        await run(app, chat, "echo hi > 'out file.txt'")
        await request_in(pilot, app)

        [card] = cards(app)
        shown = card.text
        assert "Assistant wants to run exec" in shown
        assert "Command: echo hi > 'out file.txt'" in shown
        assert f"chat {chat}" in shown and "left" in shown
        await until(pilot, lambda: tab_label(app) == "Approvals (1)")
        await pilot.press("ctrl+g")
        assert app.focused is pane_of(app)
        await pilot.press("y")

        await until(pilot, lambda: bool(seen.of(ToolFinished)))
        [finished] = seen.of(ToolFinished)
        assert finished.ok, finished.output
        assert (hermetic / "work" / "out file.txt").read_text() == "hi\n"
        await until(pilot, lambda: not pane_of(app).request_ids)
        await until(pilot, lambda: tab_label(app) == "Approvals")
        assert app.query_one(".empty").display
        await finish(pilot, app)


async def test_n_denies_and_the_tool_does_not_run(server: ScriptedServer, hermetic: Path) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        seen = Recorder(app.engine)  # type: ignore[arg-type]
        await run(app, chat_of(app), "touch nope.txt")
        await request_in(pilot, app)
        await pilot.press("ctrl+g", "n")

        await until(pilot, lambda: bool(seen.of(ToolFinished)))
        [finished] = seen.of(ToolFinished)
        assert not finished.ok and "Denied by the user" in finished.output
        assert not (hermetic / "work" / "nope.txt").exists()
        await finish(pilot, app)


async def test_q_denies_with_a_question_the_model_reads_next(server: ScriptedServer) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run(app, chat_of(app), "rm -f notes.txt")
        await request_in(pilot, app)
        await pilot.press("ctrl+g", "q")
        await pilot.press(*"why delete it?", "enter")

        await until(pilot, lambda: len(server.requests) >= 2 and not pane_of(app).request_ids)
        await until(pilot, lambda: server.requests[-1].body is not None)
        body = server.requests[-1].body
        assert body is not None
        tool_message = body["messages"][-1]
        assert tool_message["role"] == "tool"
        assert "why delete it?" in tool_message["content"]
        assert "Denied by the user" in tool_message["content"]
        await finish(pilot, app)


@pytest.mark.parametrize(("key", "scope"), [("c", "chat"), ("a", "lifetime")])
async def test_c_and_a_keep_a_grant_for_that_command_only(
    server: ScriptedServer, key: str, scope: str
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None and engine.approvals.grants is not None
        seen = Recorder(engine)
        chat = chat_of(app)
        await run(app, chat, "echo one")
        await request_in(pilot, app)
        await pilot.press("ctrl+g", key)
        await until(pilot, lambda: len(seen.of(ToolFinished)) == 1)

        [grant] = engine.approvals.grants.all()
        assert (grant.key, grant.scope) == ("exec:echo one", scope)
        assert grant.chat == (chat if scope == "chat" else None)
        again = chat if scope == "chat" else chat_of(app)  # "always" holds in other chats too
        await run(app, again, "echo one")
        await until(pilot, lambda: len(seen.of(ToolFinished)) == 2)
        assert all(finished.ok for finished in seen.of(ToolFinished))
        assert len(seen.of(ApprovalRequested)) == 1
        await run(app, again, "echo two")  # another command: the grant does not cover it
        await until(pilot, lambda: len(seen.of(ApprovalRequested)) == 2)
        await pilot.press("ctrl+g", "n")
        await until(pilot, lambda: len(seen.of(ToolFinished)) == 3)
        await finish(pilot, app)


async def test_requests_are_listed_oldest_first_and_j_k_move(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        notes = record_notifications(app, monkeypatch)
        seen = Recorder(app.engine)  # type: ignore[arg-type]
        chats = [chat_of(app) for _ in range(3)]
        for index, chat in enumerate(chats):  # one at a time, so their order is known
            await run(app, chat, f"echo {index}")
            await request_in(pilot, app, index + 1)
        pane = pane_of(app)
        ids = pane.request_ids
        assert [card.request.chat for card in cards(app)] == chats
        assert [f"echo {i}" in card.text for i, card in enumerate(cards(app))] == [True] * 3
        assert pane.selected == ids[0]
        await until(pilot, lambda: tab_label(app) == "Approvals (3)")

        await pilot.press("ctrl+g")
        moves = []
        for key in ("j", "down", "j", "k", "up", "up", "j"):
            await pilot.press(key)
            moves.append(ids.index(pane.selected or ""))
        assert moves == [1, 2, 2, 1, 0, 0, 1]

        monkeypatch.setattr(approvals, "SETTLE_S", 30.0)  # a slow machine is not a slow person
        await pilot.press("n", "y")  # denies the second; the third takes its place …
        await until(pilot, lambda: pane.request_ids == [ids[0], ids[2]])
        assert pane.selected == ids[2]  # … and the double press did not decide it unseen
        await until(pilot, lambda: any("just moved into place" in note for note in notes))
        [denied] = seen.of(ToolFinished)
        assert not denied.ok
        await until(pilot, lambda: tab_label(app) == "Approvals (2)")
        await finish(pilot, app)


async def test_a_request_decided_elsewhere_leaves_and_a_late_answer_says_so(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        seen = Recorder(app.engine)
        notes = record_notifications(app, monkeypatch)
        await run(app, chat_of(app), "echo late")
        [request_id] = await request_in(pilot, app)
        await pilot.press("ctrl+g", "q")  # the person starts typing a question …
        assert app.engine.decide(request_id, Decision(True, reason="allowed by ask"))
        await until(pilot, lambda: not pane_of(app).request_ids)  # … and it leaves the queue
        await pilot.press(*"wait", "enter")

        await until(pilot, lambda: any("no longer waiting" in note for note in notes))
        await until(pilot, lambda: bool(seen.of(ToolFinished)))
        assert seen.of(ToolFinished)[0].ok  # the earlier decision stood
        await finish(pilot, app)


async def test_a_request_nobody_answers_times_out_and_leaves(server: ScriptedServer) -> None:
    server.responder = exec_responder
    app = make_app(server, tools__confirm_timeout=0.6)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        seen = Recorder(app.engine)  # type: ignore[arg-type]
        await run(app, chat_of(app), "echo slow")
        await request_in(pilot, app)
        await until(pilot, lambda: not pane_of(app).request_ids)
        await until(pilot, lambda: bool(seen.of(ToolFinished)))
        assert "nobody answered" in seen.of(ToolFinished)[0].output
        await finish(pilot, app)


async def test_the_countdown_ticks_only_while_the_queue_is_on_screen(
    server: ScriptedServer,
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        start = time.time()
        clock.freeze(start)
        try:
            await run(app, chat_of(app), "echo tick")
            await request_in(pilot, app)
            [card] = cards(app)
            assert "· 5:00 left" in card.text
            await pilot.press("ctrl+g")
            clock.freeze(start + 65)
            await until(pilot, lambda: "· 3:55 left" in card.text)  # the once-a-second tick

            app.query_one(TabbedContent).active = "tab-tasks"
            await until(pilot, lambda: not pane_of(app).is_on_screen)
            clock.freeze(start + 125)
            assert not pane_of(app).show_countdowns()
            assert "· 3:55 left" in card.text
        finally:
            clock.freeze(None)
        await finish(pilot, app)


async def test_enter_opens_the_chat_that_asks(server: ScriptedServer) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        asking, other = chat_of(app), chat_of(app)
        app.open_chat(other)
        await run(app, asking, "echo open")
        await request_in(pilot, app)
        await pilot.press("ctrl+g", "enter")
        await until(pilot, lambda: app.current_chat == asking)
        await finish(pilot, app)


async def test_show_request_focuses_the_queue_on_that_request(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        notes = record_notifications(app, monkeypatch)
        for index in range(2):
            await run(app, chat_of(app), f"echo {index}")
            await request_in(pilot, app, index + 1)
        ids = pane_of(app).request_ids
        app.post_message(ShowRequest(ids[1]))
        await until(pilot, lambda: pane_of(app).selected == ids[1])
        assert app.focused is pane_of(app)
        assert app.query_one(TabbedContent).active == "tab-approvals"

        app.post_message(ShowRequest("req_gone"))
        await until(pilot, lambda: any("no longer waiting" in note for note in notes))
        assert pane_of(app).selected == ids[1]
        await finish(pilot, app)


async def test_delegation_requests_show_who_what_why_and_the_limit(
    server: ScriptedServer,
) -> None:
    from delegation_helpers import CONFIG, Script, delegate_call

    limits = {"timeMs": 600_000, "steps": 1}
    Script(
        server,
        [
            (
                "Ask Coder",
                delegate_call("List the folder", limits, bot="Coder", reason="it is quick"),
            ),
            ('"status": "authorizing"', text("Waiting.")),
            ("gives you this task", tool_calls([("list_dir", '{"path": "."}', "call_l")])),
            ("was stopped", text("Noted.")),
        ],
    )
    config = CONFIG.format(url=server.url, price=0, approval_timeout=30, delegation="")
    app = make_app(server, config)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        chat = engine.new_chat(bot="Assistant").id
        await engine.send(chat, "Ask Coder")
        await request_in(pilot, app)
        [card] = cards(app)
        assert card.request.kind == "delegations.authorize"
        for part in (
            "Assistant → Coder",
            "Task: List the folder",
            "Reason: it is quick",
            "Limits: time 10 min · steps 1",
            f"chat {chat}",
        ):
            assert part in card.text
        await pilot.press("ctrl+g", "y")

        await until(pilot, lambda: bool(pane_of(app).request_ids) and cards(app)[0] is not card)
        [paused] = cards(app)
        assert paused.request.kind == "delegations.continue"
        for part in (
            "Coder's work reached its steps limit",
            "steps 1 / 1",
            "Task: List the folder",
        ):
            assert part in paused.text
        await pilot.press("ctrl+g", "n")  # if the queue emptied in between: back to it
        [record] = engine.delegations.given_by(chat)
        await until(pilot, lambda: engine.delegations.given_by(chat)[0].status == "cancelled")
        assert record.bot == "Coder"
        await finish(pilot, app)


# -- telling the person --------------------------------------------------------------


def record_notifications(app: TuibotApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every toast's text, as the app is asked to show it."""
    notes: list[str] = []
    real = app.notify

    def notify(message: str, **options: Any) -> None:
        notes.append(message)
        real(message, **options)

    monkeypatch.setattr(app, "notify", notify)
    return notes


def terminal_double(app: TuibotApp, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[str]]:
    """Bells rung and raw bytes written: run_test's headless driver has no terminal."""
    bells: list[int] = []
    written: list[str] = []
    monkeypatch.setattr(app, "bell", lambda: bells.append(1))
    driver = app._driver
    assert driver is not None
    monkeypatch.setattr(driver, "write", written.append)
    return bells, written


async def test_a_new_request_rings_and_notifies_while_you_are_elsewhere(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.responder = exec_responder
    monkeypatch.setattr(decisions, "ALERT_GAP_S", 0.0)
    app = make_app(server, tui__bell=True, tui__notify=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        bells, written = terminal_double(app, monkeypatch)
        notes = record_notifications(app, monkeypatch)
        await run(app, chat_of(app), "echo 'a\nb'")  # composer focused: elsewhere
        await request_in(pilot, app)
        await until(pilot, lambda: bool(bells))
        escapes = "".join(written)
        assert "\x1b]9;tuibot: Run this shell command" in escapes
        assert "\x1b]777;notify;tuibot;Run this shell command" in escapes
        osc9 = escapes.split("\x1b]9;", 1)[1].split("\x07", 1)[0]
        assert "\n" not in osc9 and "\x1b" not in osc9 and len(osc9) <= 200
        assert any(note.startswith("Approval needed: ") for note in notes)  # tab not shown

        app.notify("Something else happened.")
        await pilot.press("ctrl+g")  # now watching the queue: no bell, no toast
        toasts = [toast.message for toast in app._notifications]
        assert toasts == ["Something else happened."], "the queue's toasts go, others stay"
        bells.clear()
        written.clear()
        notes.clear()
        await run(app, chat_of(app), "echo again")
        await request_in(pilot, app, 2)
        await pilot.pause()
        assert bells == [] and not any("\x1b]9;" in data for data in written)
        assert not any(note.startswith("Approval needed") for note in notes)

        app.app_focus = False  # the terminal window lost focus: elsewhere again
        await run(app, chat_of(app), "echo third")
        await request_in(pilot, app, 3)
        await until(pilot, lambda: bool(bells))
        await finish(pilot, app)


async def test_a_burst_of_requests_rings_once(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.responder = exec_responder
    app = make_app(server, tui__bell=True, tui__notify=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        bells, written = terminal_double(app, monkeypatch)
        for index in range(3):
            await run(app, chat_of(app), f"echo {index}")
        await request_in(pilot, app, 3)
        await pilot.pause()
        assert bells == [1]
        assert "".join(written).count("\x1b]9;") == 1
        await finish(pilot, app)


async def test_bell_and_notification_are_off_when_configured_off(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.responder = exec_responder
    app = make_app(server)  # tui.bell and tui.notify are off here
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        bells, written = terminal_double(app, monkeypatch)
        await run(app, chat_of(app), "echo quiet")
        await request_in(pilot, app)
        await pilot.pause()
        assert bells == [] and not any("\x1b]" in data for data in written)
        await finish(pilot, app)


# -- what a request reads as ---------------------------------------------------------


def request(kind: str, details: dict[str, Any], summary: str = "s") -> ApprovalRequest:
    return ApprovalRequest("req_1", "c_1", kind, summary, details, None, 0.0, 60.0, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "details", "expected"),
    [
        (
            "delegations.authorize",
            {
                "delegation": "dlg_1",
                "giver": "Assistant",
                "bot": "Coder",
                "task": "write the parser",
                "reason": "Coder knows parsers",
                "limits": {"timeMs": 60000, "steps": 10},
            },
            [
                "Assistant → Coder",
                "Task: write the parser",
                "Reason: Coder knows parsers",
                "Limits: time 60 s · steps 10",
                "delegation dlg_1",
            ],
        ),
        (
            "delegations.continue",
            {
                "delegation": "dlg_2",
                "bot": "Coder",
                "limit": "steps",
                "limits": {"timeMs": 60000, "steps": 3, "budgetMicros": 500000},
                "usage": {"timeMs": 4200, "steps": 3, "costMicros": 1200},
                "task": "fix the bug",
            },
            [
                "Coder's work reached its steps limit",
                "steps 3 / 3",
                "time 4.2 s / 60 s",
                "cost $0.0012 / $0.5000",
                "Task: fix the bug",
                "delegation dlg_2",
            ],
        ),
        (
            "delegations.continue",
            {"delegation": "dlg_3", "bot": "Coder", "limit": "loop", "limits": {}, "usage": {}},
            ["keeps repeating the same tool call"],
        ),
    ],
)
def test_delegation_requests_read_as_what_would_happen(
    kind: str, details: dict[str, Any], expected: list[str]
) -> None:
    shown = describe(request(kind, details)).plain
    for part in expected:
        assert part in shown


def test_hidden_characters_are_spelled_out() -> None:
    shown = describe(
        request("tool", {"tool": "exec", "arguments": {"command": "ls\rrm -rf ~\x1b[2K"}})
    )
    assert "command: ls\\x0drm -rf ~\\x1b[2K" in shown.plain
    assert visible("a\u202eb\tc\nd") == "a\\u202eb\tc\nd"


@pytest.mark.parametrize(
    ("left", "shown"),
    [(0, "timing out"), (44.2, "45 s left"), (245, "4:05 left"), (3700, "1 h 01 min left")],
)
def test_countdown_text(left: float, shown: str) -> None:
    assert time_left(1000 + left, 1000) == shown


@pytest.mark.parametrize(
    ("summary", "check"),
    [
        ("Run this?\n  ls\x07\x1b]0;evil\x07", lambda s: "\x07" not in s and "\x1b" not in s),
        ("x" * 500, lambda s: len(s) == 200 and s.endswith(CUT_NOTE)),
        ("a\u202eb  \t c", lambda s: s == "a\\u202eb c"),  # spelled out, not dropped
    ],
)
def test_notification_text_is_one_clean_capped_line(
    summary: str, check: Callable[[str], bool]
) -> None:
    assert check(clean_summary(summary))
    escapes = notification_escapes(summary)
    assert escapes.count("\x07") == 2 and escapes.count("\x1b") == 2
