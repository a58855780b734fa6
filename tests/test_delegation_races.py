"""Delegation at the awkward moments: answers arriving during a pause, pauses on pauses,
cancels racing each other, and shutting down with work running.

Each test is a scenario a review found broken; the scripted server holds some answers
back (a blocking responder) so that they land at exactly the wrong time.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from delegation_helpers import (
    Decider,
    LateDelegate,
    Script,
    contents,
    delegate_call,
    held,
    make_engine,
    messages_of,
    settle,
    two_delegate_calls,
    until,
)
from engine_helpers import ask
from scripted_server import Reply, ScriptedServer, silent, text, tool_calls

from tuibot.approvals import Decision

TEN_MIN = {"timeMs": 600_000}


def late(reply: Reply, seconds: float):  # type: ignore[no-untyped-def]
    """A reply the server sends only after ``seconds`` (an answer still in flight)."""

    def respond(body: dict[str, Any]) -> Reply:
        time.sleep(seconds)
        return reply

    return respond


async def test_an_answer_that_lands_during_a_pause_ends_the_work_once_allowed(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("Outer", {"timeMs": 1_000})),
            ("gives you this task: Outer", late(text("Outer result."), 1.5)),
            ('"status": "queued"', text("Waiting.")),
            ("is done", text("Thanks.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await until(lambda: bool(decider.seen))
    [record] = engine.delegations.tree(chat)
    await until(lambda: not engine.busy(record.chat or ""))  # the answer came back, paused

    engine.decide(decider.seen[0].request_id, Decision(True))
    await settle(engine, chat)
    done = engine.delegations.get(record.id)
    assert done is not None and done.status == "completed" and done.result == "Outer result."
    assert len(decider.seen) == 1  # no second pause at the same limit
    assert any(c.endswith("Result:\nOuter result.") for c in contents(engine, chat))
    await engine.close()


async def test_tools_of_an_answer_that_lands_during_a_pause_wait_for_the_decision(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("Outer", {"timeMs": 1_000})),
            ("gives you this task: Outer", late(delegate_call("Inner", TEN_MIN, "c2"), 1.5)),
            ("gives you this task: Inner", text("inner done")),
            ('"status": "queued"', text("Waiting.")),
            ("was stopped", text("Stopped.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await until(lambda: bool(decider.seen))
    await asyncio.sleep(2.0)  # the answer (a delegate call) has arrived by now

    assert len(engine.delegations.tree(chat)) == 1  # its tool did not run: no new work
    engine.decide(decider.seen[0].request_id, Decision(False, reason="no"))
    await settle(engine, chat)
    assert [d.status for d in engine.delegations.tree(chat)] == ["cancelled"]
    await engine.close()


async def test_allowing_work_below_still_waits_for_the_pause_above(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    count = {"b": 0}

    def b_step(body: object) -> Reply:
        count["b"] += 1
        return tool_calls([("list_dir", json.dumps({"path": "./" * count["b"]}), "l")])

    Script(
        server,
        [
            ("Kick off", delegate_call("A", {"timeMs": 1_500})),
            ("gives you this task: A", delegate_call("B", {"timeMs": 600_000, "steps": 1}, "c2")),
            ("gives you this task: B", b_step),
            ("tuibot.toml", b_step),
            ('"status": "queued"', text("Waiting.")),
            ("was stopped", text("Stopped.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await until(lambda: len(decider.seen) == 2)
    a, b = engine.delegations.tree(chat)
    b_request = next(e for e in decider.seen if e.details["delegation"] == b.id)
    a_request = next(e for e in decider.seen if e.details["delegation"] == a.id)

    engine.decide(b_request.request_id, Decision(True))
    await asyncio.sleep(0.5)
    b_now = engine.delegations.get(b.id)
    assert b_now is not None and b_now.status == "paused"
    assert b_now.pause is not None and b_now.pause.delegation == a.id
    calls_while_held = count["b"]
    await asyncio.sleep(0.3)
    assert count["b"] == calls_while_held == 1  # B made no call while A was paused

    engine.decide(a_request.request_id, Decision(False))
    await settle(engine, chat)
    assert [d.status for d in engine.delegations.tree(chat)] == ["cancelled", "cancelled"]
    await engine.close()


async def test_cancelling_work_that_waits_for_authorization_withdraws_the_request(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("X", TEN_MIN, bot="Coder", reason="needs code")),
            ('"status": "authorizing"', text("Asked.")),
            ("was stopped", text("OK.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await until(lambda: bool(decider.seen))
    [record] = engine.delegations.tree(chat)

    await engine.delegations.cancel(record.id, by="human")
    await settle(engine, chat, timeout=5)
    assert engine.approvals.pending() == []
    assert engine.delegations.get(record.id).status == "cancelled"  # type: ignore[union-attr]
    await engine.close()


async def test_two_cancels_of_the_same_work_tell_the_giver_once(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("Long", TEN_MIN)),
            ("gives you this task: Long", silent(30)),
            ('"status": "queued"', text("Waiting.")),
            ("was stopped", text("OK.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    [record] = engine.delegations.tree(chat)
    await until(lambda: engine.busy(record.chat or ""))

    first = engine.delegations.cancel(record.id, by="human")
    second = engine.delegations.cancel(record.id, by="human")
    await asyncio.gather(first, second)
    await settle(engine, chat)
    assert len([c for c in contents(engine, chat) if "was stopped" in c]) == 1
    await engine.close()


async def test_a_message_waiting_for_cancelled_work_does_not_run_it_again(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Begin", delegate_call("Part one", TEN_MIN)),
            ("gives you this task: Part one", silent(30)),
            ("adds to this task", text("EXTRA WORK RAN")),
            ('"status": "queued"', text("Delegated.")),
            ('"status": "running"', text("Added.")),
            ("was stopped", text("OK.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Begin")
    [record] = engine.delegations.given_by(chat)
    await until(lambda: engine.busy(record.chat or ""))
    server.enqueue(delegate_call("Part two", TEN_MIN, "c2", delegation=record.id))
    await ask(engine, chat, "More")

    await engine.delegations.cancel(record.id, by="human")
    await settle(engine, chat)
    await asyncio.sleep(0.3)
    task_chat = messages_of(engine, record.chat or "")
    assert not any("EXTRA WORK RAN" in (m.get("content") or "") for m in task_chat)
    assert not any("adds to this task" in (m.get("content") or "") for m in task_chat)
    await engine.close()


async def test_an_idle_parent_at_its_step_count_does_not_block_its_helpers(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("Outer", {"timeMs": 600_000, "steps": 2})),
            ("gives you this task: Outer", delegate_call("Inner", TEN_MIN, "c2")),
            ("gives you this task: Inner", late(text("inner done"), 0.3)),
            ('"status": "queued"', text("Waiting.")),
            ("is done", text("All done.")),
        ],
    )
    decider = Decider(engine, {})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await until(lambda: len(engine.delegations.tree(chat)) == 2)
    inner = engine.delegations.tree(chat)[1]
    await until(lambda: engine.delegations.get(inner.id).status == "completed")  # type: ignore[union-attr]
    # Outer's own steps may run out later; its helper was never held by them.
    assert all(e.details["delegation"] != inner.id for e in decider.seen)
    assert engine.delegations.get(inner.id).pause is None  # type: ignore[union-attr]
    await engine.close()


async def test_shutting_down_keeps_the_time_the_work_ran(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("Outer", TEN_MIN)),
            ("gives you this task: Outer", silent(30)),
            ('"status": "queued"', text("Waiting.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await asyncio.sleep(1.2)
    [record] = engine.delegations.tree(chat)
    await engine.close()

    reopened = make_engine(server)
    stored = reopened.delegations.get(record.id)
    assert stored is not None and stored.status == "running"
    assert stored.usage.time_ms >= 1_000
    await reopened.close()


async def test_a_delegate_call_landing_during_a_cancel_leaves_no_open_work_below(
    server: ScriptedServer, hermetic: Path
) -> None:
    """The cascade stops the work below one chat at a time. A helper not stopped yet
    whose answer (a ``delegate`` call) lands meanwhile must not leave new work behind
    that nobody will stop: it is refused, and nothing below the cancelled work is open
    once the cancel returns."""
    engine = make_engine(server)
    gate = threading.Event()
    Script(
        server,
        [
            ("Kick off", delegate_call("Top", TEN_MIN)),
            ("gives you this task: Top", two_delegate_calls("Left", "Right", TEN_MIN)),
            ("gives you this task: Left", held(gate, text("left done"))),
            ("gives you this task: Right", held(gate, text("right done"))),
            ("gives you this task: Late", text("late done")),
            ('"status": "queued"', text("Waiting.")),
            ("was stopped", text("Stopped.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await until(lambda: len(engine.delegations.tree(chat)) == 3)
    top, *helpers = engine.delegations.tree(chat)
    late = LateDelegate(engine, [h.chat or "" for h in helpers])
    await until(lambda: all(engine.busy(c) for c in late.chats))

    await engine.delegations.cancel(top.id, by="human")
    gate.set()
    open_now = [(r.task, r.status) for r in engine.delegations.tree(chat) if r.is_open]
    assert open_now == []
    assert late.refused(), late.outcome
    await settle(engine, chat)
    assert not any("gives you this task: Late" in str(r.body) for r in server.requests)
    await engine.close()
