"""Delegation end to end: real engine, real task chats, the scripted server answering.

Each test scripts what every bot says by the text of its latest input, gives work,
waits for the giver's chat to settle, and checks the records, the task chats and the
notices the giver received.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from delegation_helpers import (
    Decider,
    Script,
    contents,
    delegate_call,
    make_engine,
    messages_of,
    settle,
    until,
)
from engine_helpers import Recorder, ask
from scripted_server import Reply, ScriptedServer, silent, text, tool_calls

from tuibot.approvals import Decision
from tuibot.events import DelegationChanged, TaskChanged
from tuibot.tasks.board import TaskBoard

TEN_MIN = {"timeMs": 600_000}


async def test_a_bot_gives_work_to_a_helper_like_itself_and_the_result_comes_back(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    script = Script(
        server,
        [
            ("Plan a trip", delegate_call("Find three hotels in Lisbon.", TEN_MIN)),
            ('"status": "queued"', text("I asked a helper; the result will follow.")),
            ("gives you this task: Find three hotels", text("Hotel A, Hotel B, Hotel C.")),
            ("is done.", text("Here are your hotels: A, B and C.")),
        ],
    )
    events = Recorder(engine)
    chat = engine.new_chat(bot="Assistant").id

    first = await ask(engine, chat, "Plan a trip to Lisbon")
    assert first.text == "I asked a helper; the result will follow."
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert record.status == "completed" and record.bot == "Assistant"
    assert record.result == "Hotel A, Hotel B, Hotel C."
    assert record.usage.steps == 1 and record.parent.chat == chat
    task_chat = engine.chats.load(record.chat or "").meta
    assert task_chat.kind == "task" and task_chat.pinned
    assert task_chat.parent == {"chat": chat, "delegation": record.id}
    assert contents(engine, task_chat.id) == [
        "[tuibot] Assistant gives you this task: Find three hotels in Lisbon."
    ]
    notices = [m for m in messages_of(engine, chat) if m.get("notice")]
    assert [m["content"] for m in notices] == [
        f"[tuibot] The work {record.id} that you gave to Assistant is done.\n\n"
        "Result:\nHotel A, Hotel B, Hotel C."
    ]
    assert contents(engine, chat, "assistant")[-1] == "Here are your hotels: A, B and C."
    tool_result = json.loads(
        next(m for m in messages_of(engine, chat) if m["role"] == "tool")["content"]
    )
    assert tool_result["delegation"] == record.id and "Go on with other work" in tool_result["note"]
    statuses = [e.record["status"] for e in events.of(DelegationChanged)]
    assert statuses[0] == "queued" and statuses[-1] == "completed" and "running" in statuses
    assert script.unmatched == []
    await engine.close()


async def test_work_for_another_bot_needs_a_reason_and_a_persons_yes(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Review without reason", delegate_call("Review x.py", TEN_MIN, bot="Reviewer")),
            ("a reason is required", text("I need a reason.")),
            (
                "Review with reason",
                delegate_call("Review x.py", TEN_MIN, bot="Reviewer", reason="second pair of eyes"),
            ),
            ('"status": "authorizing"', text("Waiting for approval.")),
            ("gives you this task: Review x.py", text("Looks good.")),
            ("is done.", text("The Reviewer says it looks good.")),
        ],
    )
    decider = Decider(engine, {"delegations.authorize": Decision(True, reason="fine")})
    chat = engine.new_chat(bot="Assistant").id

    await ask(engine, chat, "Review without reason")
    assert engine.delegations.given_by(chat) == []
    await ask(engine, chat, "Review with reason")
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert record.status == "completed" and record.bot == "Reviewer"
    [request] = decider.seen
    assert request.kind == "delegations.authorize"
    assert request.details["reason"] == "second pair of eyes"
    assert request.details["limits"] == TEN_MIN
    await engine.close()


async def test_a_denied_authorization_fails_the_work_and_tells_the_giver(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Ask the coder", delegate_call("Write y.py", TEN_MIN, bot="Coder", reason="code")),
            ('"status": "authorizing"', text("Asked.")),
            ("was not authorized", text("The Coder may not help.")),
        ],
    )
    Decider(engine, {"delegations.authorize": Decision(False, reason="not today")})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Ask the coder")
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert record.status == "failed" and record.chat is None
    assert record.result == "not authorized: not today"
    assert contents(engine, chat)[-1].endswith("was not authorized.\n\nReason:\nnot today")
    assert contents(engine, chat, "assistant")[-1] == "The Coder may not help."
    await engine.close()


async def test_a_bot_it_created_takes_work_without_asking(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    create = tool_calls(
        [
            (
                "create_bot",
                json.dumps(
                    {"name": "Tester", "description": "Runs tests", "instructions": "Run them."}
                ),
                "call_c",
            )
        ]
    )
    Script(
        server,
        [
            ("Make a tester", create),
            ('"owner": "Assistant"', delegate_call("Run the tests", TEN_MIN, bot="Tester")),
            ('"status": "queued"', text("The tester is on it.")),
            ("gives you this task: Run the tests", text("All 12 pass.")),
            ("is done.", text("All tests pass.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Make a tester")
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert record.bot == "Tester" and record.status == "completed"
    assert decider.seen == []
    assert engine.bots.require("Tester").owner == "Assistant"
    await engine.close()


async def test_the_step_limit_pauses_and_allow_restarts_the_limits(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Count files", delegate_call("List twice", {"timeMs": 600_000, "steps": 1})),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task", tool_calls([("list_dir", '{"path": "."}', "call_l")])),
            ("You may continue. Take one more step.", text("The folder is empty.")),
            ("is done.", text("Empty folder.")),
        ],
    )
    decider = Decider(
        engine, {"delegations.continue": Decision(True, reason="Take one more step.")}
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Count files")
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert record.status == "completed" and record.result == "The folder is empty."
    [request] = decider.seen
    assert request.details["limit"] == "steps" and request.details["delegation"] == record.id
    assert record.usage.steps == 2 and record.window.steps == 1  # limits restarted at step 1
    roles = [(m["role"], m.get("content")) for m in messages_of(engine, record.chat or "")]
    # The step after the pause reads the tool result, then the person's reason.
    assert [r for r, _ in roles] == ["user", "assistant", "tool", "user", "assistant"]
    assert roles[3][1] == "[tuibot] You may continue. Take one more step."
    await engine.close()


async def test_deny_at_a_limit_cancels_and_ask_hands_the_giver_a_question(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Deny me", delegate_call("Work A", {"timeMs": 600_000, "steps": 1})),
            ("Ask me", delegate_call("Work B", {"timeMs": 600_000, "steps": 1})),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task", tool_calls([("list_dir", "{}", "call_l")])),
            ("was stopped", text("Noted.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id

    await ask(engine, chat, "Deny me")
    await until(lambda: len(decider.seen) == 1)
    engine.decide(decider.seen[0].request_id, Decision(False, reason="too long"))
    await settle(engine, chat)
    await ask(engine, chat, "Ask me")
    await until(lambda: len(decider.seen) == 2)
    engine.decide(decider.seen[1].request_id, Decision(False, question="Why two passes?"))
    await settle(engine, chat)

    denied, asked = engine.delegations.given_by(chat)
    assert denied.status == asked.status == "cancelled"
    notices = [c for c in contents(engine, chat) if c.startswith("[tuibot] The work")]
    assert notices[0].endswith("was stopped (stopped at its steps limit).")
    assert notices[1].endswith("was stopped. The person asks:\n\nWhy two passes?")
    await engine.close()


async def test_cost_counts_layer_by_layer_and_the_top_budget_pauses_the_tree(
    server: ScriptedServer, hermetic: Path
) -> None:
    # Every call costs 10 prompt tokens × 100 µ$ = 1000 µ$.
    engine = make_engine(server, price=100)
    calls = iter(range(1, 1000))

    def keep_listing(body: object) -> Reply:  # a different call each time: not a loop
        return tool_calls([("list_dir", json.dumps({"path": "./" * next(calls)}))])

    Script(
        server,
        [
            ("Start", delegate_call("Layer one", {"timeMs": 600_000, "budgetMicros": 3500})),
            ("gives you this task: Layer one", delegate_call("Layer two", TEN_MIN, "c2")),
            ("gives you this task: Layer two", delegate_call("Layer three", TEN_MIN, "c3")),
            ('"status": "queued"', text("Waiting for my helper.")),
            ("gives you this task: Layer three", keep_listing),
            ("tuibot.toml", keep_listing),
            ("was stopped", text("Stopped.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Start")
    await until(lambda: bool(decider.seen))

    [request] = decider.seen
    top, middle, bottom = engine.delegations.tree(chat)
    assert request.details["limit"] == "budget" and request.details["delegation"] == top.id
    assert top.status == middle.status == bottom.status == "paused"
    assert middle.pause and middle.pause.delegation == top.id and middle.pause.request is None
    assert bottom.pause and bottom.pause.delegation == top.id
    assert top.pause and top.pause.request == request.request_id

    def costs_add_up() -> bool:  # once calls already sent have answered, as they may
        top, middle, bottom = engine.delegations.tree(chat)
        return (
            bottom.usage.cost_micros == 1000 * bottom.usage.steps
            and middle.usage.cost_micros == 1000 * middle.usage.steps + bottom.usage.cost_micros
            and top.usage.cost_micros == 1000 * top.usage.steps + middle.usage.cost_micros
        )

    await until(costs_add_up, timeout=5)
    assert engine.delegations.get(top.id).usage.cost_micros >= 3500  # type: ignore[union-attr]
    steps_at_pause = [d.usage.steps for d in engine.delegations.tree(chat)]
    await asyncio.sleep(0.2)
    assert [d.usage.steps for d in engine.delegations.tree(chat)] == steps_at_pause
    engine.decide(request.request_id, Decision(False, reason="enough"))
    await settle(engine, chat)
    assert {d.status for d in engine.delegations.tree(chat)} == {"cancelled"}
    await engine.close()


async def test_the_time_limit_fires_while_the_work_is_idle_and_pauses_what_is_below(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Start the clock", delegate_call("Outer", {"timeMs": 1_000})),
            ("gives you this task: Outer", delegate_call("Inner", TEN_MIN, "c2")),
            ("gives you this task: Inner", silent(30)),
            ('"status": "queued"', text("Waiting.")),
            ("was stopped", text("Stopped.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Start the clock")
    await until(lambda: bool(decider.seen), timeout=10)

    outer, inner = engine.delegations.tree(chat)
    assert decider.seen[0].details["limit"] == "time"
    assert outer.status == "paused" and outer.usage.time_ms >= 1_000
    assert not engine.busy(outer.chat or "")  # the outer work was idle when time ran out
    assert inner.status == "paused" and inner.pause and inner.pause.delegation == outer.id
    frozen = outer.usage.time_ms
    await asyncio.sleep(0.3)
    assert engine.delegations.get(outer.id).usage.time_ms == frozen  # type: ignore[union-attr]
    engine.decide(decider.seen[0].request_id, Decision(False))
    await settle(engine, chat)
    assert {d.status for d in engine.delegations.tree(chat)} == {"cancelled"}
    await engine.close()


async def test_a_journal_that_cannot_be_written_is_a_clear_error_and_no_work_starts(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    journal = engine.delegations.journal.path
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.mkdir()  # a folder where the file should be: every write fails
    Script(
        server,
        [
            ("Try it", delegate_call("Anything", TEN_MIN)),
            ("could not save delegation", text("I could not hand the work off.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    result = await ask(engine, chat, "Try it")

    tool = next(m for m in messages_of(engine, chat) if m["role"] == "tool")
    assert tool["content"].startswith("Error: could not save delegation dlg_")
    assert str(journal) in tool["content"]
    assert result.text == "I could not hand the work off."
    assert engine.delegations.given_by(chat) == []
    assert [m.kind for m in engine.chats.list()] == ["direct"]  # no task chat was opened
    await engine.close()


async def test_every_input_is_a_task_and_delegated_work_is_a_child_task(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Plan it", delegate_call("Draft the plan", {"timeMs": 600_000, "steps": 1})),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task: Draft the plan", tool_calls([("list_dir", "{}", "l")])),
            ("You may continue", text("Plan drafted.")),
            ("is done.", text("The plan is ready.")),
        ],
    )
    states: list[tuple[str, str]] = []
    engine.events.listen(
        lambda e: (
            states.append((e.task["title"], e.task["state"]))
            if isinstance(e, TaskChanged)
            else None
        )
    )
    Decider(engine, {"delegations.continue": Decision(True, reason="go on")})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Plan it")
    await settle(engine, chat)
    await engine.close()

    board = TaskBoard(engine.paths.tasks)
    board.load()
    tasks = {t.title: t for t in board.all()}
    giver = tasks["Plan it"]
    child = tasks["[tuibot] Assistant gives you this task: Draft the"]
    assert giver.state == child.state == "done" and giver.chat == chat
    assert child.parent == giver.id and child.delegation is not None
    assert child.iterations == 2 and child.tool_calls == 1
    assert ("[tuibot] Assistant gives you this task: Draft the", "paused") in states
    notice_task = next(t for t in board.all() if t.title.startswith("[tuibot] The work"))
    assert notice_task.chat == chat and notice_task.state == "done"


async def test_a_record_names_the_delegate_call_that_gave_the_work(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Plan a trip", delegate_call("Find hotels.", TEN_MIN, call_id="call_7f3a")),
            ('"status": "queued"', text("Asked a helper.")),
            ("gives you this task: Find hotels.", text("Hotel A.")),
            ("is done.", text("Hotel A it is.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Plan a trip")
    await settle(engine, chat)
    [record] = engine.delegations.given_by(chat)
    assert record.parent.tool_call == "call_7f3a"
    assert record.to_json()["parent"]["toolCallId"] == "call_7f3a"
    await engine.close()
