"""Delegation over time: cancelling, continuing, new rounds, restarts, loops and storms."""

from __future__ import annotations

import asyncio
import json
import threading
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
from engine_helpers import ask
from scripted_server import Reply, ScriptedServer, silent, text, tool_calls

from tuibot.approvals import Decision
from tuibot.events import DelegationChanged

TEN_MIN = {"timeMs": 600_000}


def slow_helper(server: ScriptedServer, extra: list | None = None) -> Script:  # type: ignore[type-arg]
    """A giver that delegates 'Long job' whose helper never answers (the call hangs)."""
    return Script(
        server,
        [
            ("Start long", delegate_call("Long job", TEN_MIN)),
            ("gives you this task: Long job", delegate_call("Longer job", TEN_MIN, "c2")),
            ("gives you this task: Longer job", silent(30)),
            ('"status": "queued"', text("Delegated.")),
            *(extra or []),
        ],
    )


async def running_tree(engine, chat: str, server: ScriptedServer, size: int = 2) -> None:  # type: ignore[no-untyped-def]
    """Until every layer runs and every model request of the set-up has arrived.

    Each layer but the deepest makes two (delegate, then its answer to "queued"); the
    deepest one hangs. Waiting for them all means a reply the test enqueues next cannot
    be taken by a set-up request that was still on its way.
    """
    await ask(engine, chat, "Start long")
    await until(
        lambda: (
            len(engine.delegations.tree(chat)) == size
            and all(d.status == "running" for d in engine.delegations.tree(chat))
            and engine.busy(engine.delegations.tree(chat)[-1].chat)
            and len([r for r in server.requests if r.path.endswith("/completions")]) >= 2 * size + 1
        )
    )


async def test_the_bot_cancels_its_work_layer_by_layer_without_a_notice(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    slow_helper(server)
    chat = engine.new_chat(bot="Assistant").id
    await running_tree(engine, chat, server)
    outer, inner = engine.delegations.tree(chat)

    cancel = tool_calls([("cancel_delegation", json.dumps({"delegation": outer.id}), "cx")])
    server.enqueue(cancel, text("Cancelled it."))
    await ask(engine, chat, "never mind")
    await settle(engine, chat)

    assert [d.status for d in engine.delegations.tree(chat)] == ["cancelled", "cancelled"]
    assert not engine.busy(inner.chat or "")  # the hanging call was stopped
    assert engine.delegations.get(inner.id).result == (  # type: ignore[union-attr]
        "stopped because the work above it was cancelled"
    )
    tool_result = [m for m in messages_of(engine, chat) if m["role"] == "tool"][-1]
    assert json.loads(tool_result["content"]) == {"delegation": outer.id, "status": "cancelled"}
    assert not any("The work" in c for c in contents(engine, chat))  # the bot did it: no notice
    await engine.close()


async def test_a_person_cancelling_tells_the_giver(server: ScriptedServer, hermetic: Path) -> None:
    engine = make_engine(server)
    slow_helper(server, [("was stopped", text("OK, stopped."))])
    chat = engine.new_chat(bot="Assistant").id
    await running_tree(engine, chat, server)
    outer, _ = engine.delegations.tree(chat)

    await engine.delegations.cancel(outer.id, by="human")
    await settle(engine, chat)

    assert contents(engine, chat)[-1] == (
        f"[tuibot] The work {outer.id} that you gave to Assistant was stopped "
        "(cancelled by a person)."
    )
    assert contents(engine, chat, "assistant")[-1] == "OK, stopped."
    await engine.close()


async def test_interrupting_with_delegations_stops_them_a_plain_interrupt_does_not(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    slow_helper(server)
    chat = engine.new_chat(bot="Assistant").id
    await running_tree(engine, chat, server)

    assert engine.cancel(chat) is False  # no turn running in the giver: nothing to stop
    assert all(d.status == "running" for d in engine.delegations.tree(chat))
    assert engine.cancel(chat, delegations=True)
    await settle(engine, chat)
    assert [d.status for d in engine.delegations.tree(chat)] == ["cancelled", "cancelled"]
    await engine.close()


async def test_deleting_the_giver_chat_cancels_its_work_first(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    slow_helper(server)
    chat = engine.new_chat(bot="Assistant").id
    await running_tree(engine, chat, server)
    outer, inner = engine.delegations.tree(chat)

    calls = len(server.requests)
    await engine.delete_chat(chat)
    assert not engine.chats.exists(chat)
    assert len(server.requests) == calls  # no notice turn for a chat being deleted
    statuses = [engine.delegations.get(d.id).status for d in (outer, inner)]  # type: ignore[union-attr]
    assert statuses == ["cancelled", "cancelled"]
    assert not engine.busy(inner.chat or "")
    await engine.close()


async def test_more_work_for_running_work_goes_into_its_task_chat(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    gate = threading.Event()

    def held(body: object) -> Reply:  # the helper's first call answers only when let go
        gate.wait(10)
        return tool_calls([("list_dir", "{}", "l1")])

    Script(
        server,
        [
            ("Begin", delegate_call("Part one", TEN_MIN)),
            ("gives you this task: Part one", held),
            ("tuibot.toml", text("Part one done.")),
            ("adds to this task: Part two", text("Part two done too.")),
            ('"status": "queued"', text("Delegated.")),
            ('"status": "running"', text("Added.")),
            ("is done.", text("All done.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Begin")
    [record] = engine.delegations.given_by(chat)
    follow = delegate_call("Part two", TEN_MIN, "c2", delegation=record.id)
    server.enqueue(follow)
    await ask(engine, chat, "Also part two")
    gate.set()
    await settle(engine, chat)

    assert len(engine.delegations.given_by(chat)) == 1  # the same work, not a new one
    done = engine.delegations.get(record.id)
    assert done is not None and done.status == "completed"
    task_chat = [(m["role"], m.get("content")) for m in messages_of(engine, record.chat or "")]
    # Read by the running turn at its next step, right after the tool result.
    assert task_chat[2][0] == "tool" and task_chat[3] == (
        "user",
        "[tuibot] Assistant adds to this task: Part two",
    )
    assert done.result == "Part two done too."
    await engine.close()


async def test_more_work_for_ended_work_is_a_new_delegation_in_the_same_task_chat(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("First", delegate_call("Write a haiku", TEN_MIN)),
            ("gives you this task: Write a haiku", text("Old pond, frog.")),
            ("more work on this task: Another", text("Autumn moon.")),
            ('"status": "queued"', text("Delegated.")),
            ("is done.", text("Got it.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "First")
    await settle(engine, chat)
    [first] = engine.delegations.given_by(chat)
    server.enqueue(delegate_call("Another", {"timeMs": 5_000}, "c2", delegation=first.id))
    await ask(engine, chat, "Second")
    await settle(engine, chat)

    first_again, second = engine.delegations.given_by(chat)
    assert first_again.result == "Old pond, frog." and second.result == "Autumn moon."
    assert second.chat == first.chat and second.limits.time_ms == 5_000
    history = contents(engine, first.chat or "", "assistant")
    assert history == ["Old pond, frog.", "Autumn moon."]  # the helper kept its history
    await engine.close()


async def test_a_person_starts_a_new_round_in_an_ended_task_chat(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Kick off", delegate_call("Name a colour", TEN_MIN)),
            ("gives you this task: Name a colour", text("Blue.")),
            ("now a fruit", text("Apple.")),
            ('"status": "queued"', text("Delegated.")),
            ("is done.", text("Noted.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Kick off")
    await settle(engine, chat)
    [first] = engine.delegations.given_by(chat)

    await ask(engine, first.chat or "", "And now a fruit, please")
    await settle(engine, chat)

    old, new = engine.delegations.given_by(chat)
    assert old.result == "Blue." and new.result == "Apple." and new.chat == first.chat
    assert new.limits == first.limits
    notices = [c for c in contents(engine, chat) if c.startswith("[tuibot] The work")]
    assert len(notices) == 2 and notices[1].endswith("Result:\nApple.")
    await engine.close()


async def test_a_late_result_goes_into_the_history_of_ended_work_without_a_turn(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Go ahead", delegate_call("Outer", TEN_MIN)),
            ("gives you this task: Outer", delegate_call("Inner", TEN_MIN, "c2")),
            ("gives you this task: Inner", silent(30)),
            ('"status": "queued"', text("Delegated.")),
        ],
    )
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Go ahead")
    await until(lambda: len(engine.delegations.tree(chat)) == 2)
    outer, inner = engine.delegations.tree(chat)
    await until(lambda: not engine.busy(outer.chat or ""))
    # The outer work is ended from outside (a crash of its record, say) while inner runs.
    engine.delegations._save(outer, status="completed", result="ended early")
    turns_before = len(contents(engine, outer.chat or "", "assistant"))
    await engine.delegations.cancel(inner.id, by="human")
    await asyncio.sleep(0.2)

    late = contents(engine, outer.chat or "")[-1]
    assert late.startswith(f"[tuibot] The work {inner.id} that you gave to Assistant was stopped")
    assert len(contents(engine, outer.chat or "", "assistant")) == turns_before
    assert not engine.busy(outer.chat or "")
    await engine.close()


async def test_restart_brings_running_work_back_paused_with_its_usage(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    slow_helper(server)
    chat = engine.new_chat(bot="Assistant").id
    await running_tree(engine, chat, server)
    before = {d.id: d for d in engine.delegations.tree(chat)}
    # The outer layer's own turn may or may not have ended by now (its task is then
    # done, rightly); the deepest one hangs, so at least that turn is cut off.
    running = {d.chat for d in before.values() if engine.busy(d.chat or "")}
    assert before[engine.delegations.tree(chat)[-1].id].chat in running
    await engine.close()  # tuibot stops with work running

    engine = make_engine(server)
    cut_off = {t.chat for t in engine.recover_tasks()}
    assert running <= cut_off  # the tasks whose turns were running were still doing
    recovered = engine.delegations.recover()
    outer, inner = engine.delegations.tree(chat)
    assert [d.id for d in recovered] == [outer.id, inner.id]
    assert outer.status == inner.status == "paused"
    assert outer.pause and outer.pause.limit == "restart" and outer.pause.delegation is None
    assert inner.pause and inner.pause.delegation == outer.id
    assert outer.usage.steps == before[outer.id].usage.steps >= 1
    assert inner.usage.steps == before[inner.id].usage.steps
    await until(lambda: bool(engine.approvals.pending()))
    [request] = [r for r in engine.approvals.pending() if r.kind == "delegations.continue"]
    assert request.details["delegation"] == outer.id and request.details["limit"] == "restart"

    server.responder = None
    server.enqueue(text("Picking up again."), text("Inner picks up too."))
    engine.decide(request.id, Decision(True))
    await until(lambda: all(d.status != "paused" for d in engine.delegations.tree(chat)))
    restarted = [c for d in engine.delegations.tree(chat) for c in contents(engine, d.chat or "")]
    assert sum("tuibot was restarted" in c for c in restarted) == 2
    await engine.close()


async def test_the_same_tool_call_over_and_over_pauses_as_a_loop(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    same = tool_calls([("list_dir", '{"path": "."}', "same")])
    Script(
        server,
        [
            ("Loop please", delegate_call("List forever", TEN_MIN)),
            ("gives you this task", same),
            ("tuibot.toml", same),
            ('"status": "queued"', text("Delegated.")),
            ("was stopped", text("Stopped.")),
        ],
    )
    decider = Decider(engine, {"delegations.continue": Decision(False, reason="a loop")})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Loop please")
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert record.status == "cancelled"
    assert [r.details["limit"] for r in decider.seen] == ["loop"]
    assert record.usage.steps == 3  # three identical calls, then the pause
    await engine.close()


async def test_two_bots_giving_each_other_work_do_not_deadlock(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Ping", delegate_call("Ask back", TEN_MIN, bot="Coder", reason="ping")),
            (
                "gives you this task: Ask back",
                delegate_call("Answer", TEN_MIN, "c2", bot="Assistant", reason="pong"),
            ),
            ("gives you this task: Answer", text("42")),
            ('"status": "queued"', text("Waiting.")),
            ('"status": "authorizing"', text("Waiting.")),
            ("is done.", lambda body: text("Done: " + body["messages"][-1]["content"][-2:])),
        ],
    )
    Decider(engine, {"delegations.authorize": Decision(True)})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Ping")
    await settle(engine, chat)

    first, second = engine.delegations.tree(chat)
    assert (first.giver_bot, first.bot, second.giver_bot, second.bot) == (
        "Assistant",
        "Coder",
        "Coder",
        "Assistant",
    )
    assert first.status == second.status == "completed" and second.result == "42"
    await engine.close()


async def test_a_delegation_storm_is_stopped_by_the_live_caps(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server, delegation="max_live_total = 6\nmax_live_per_chat = 2")

    def fan_out(body: object) -> Reply:
        calls = [
            ("delegate", json.dumps({"task": f"Spread {i}", "limits": TEN_MIN}), f"s{i}")
            for i in range(3)
        ]
        return tool_calls(calls)

    Script(
        server,
        [
            ("Storm", fan_out),
            ("gives you this task: Spread", fan_out),
            ("live delegations", text("Capped.")),
            ('"status": "queued"', text("Spread.")),
            ("is done.", text("Result noted.")),
        ],
    )
    most = 0

    def count(event: object) -> None:
        nonlocal most
        if isinstance(event, DelegationChanged):
            most = max(most, sum(d.is_open for d in engine.delegations.journal.all()))

    engine.events.listen(count)
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Storm")
    await settle(engine, chat, timeout=30)

    everything = engine.delegations.journal.all()
    assert most == 6  # the total cap was reached and never passed
    assert all(not d.is_open for d in everything)
    per_chat: dict[str, int] = {}
    for d in everything:
        per_chat[d.parent.chat] = per_chat.get(d.parent.chat, 0) + 1
    assert max(per_chat.values()) <= 2 * 2  # two live at a time; a chat fans out twice at most
    refusals = [
        m["content"]
        for d in everything
        for m in messages_of(engine, d.chat or "")
        if m["role"] == "tool" and "live delegations" in (m.get("content") or "")
    ]
    assert refusals  # the caps said no, in words the bot can act on
    await engine.close()


async def test_a_chat_grant_answers_the_next_authorization_without_asking(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    Script(
        server,
        [
            ("Twice", delegate_call("Check", TEN_MIN, bot="Reviewer", reason="review")),
            ("gives you this task: Check", text("Fine.")),
            ('"status": "authorizing"', text("Asked.")),
            ("is done.", text("OK.")),
        ],
    )
    decider = Decider(engine, {"delegations.authorize": Decision(True, "chat", "for this chat")})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Twice")
    await settle(engine, chat)
    await ask(engine, chat, "Twice again")
    await settle(engine, chat)

    assert len(engine.delegations.given_by(chat)) == 2
    assert len(decider.seen) == 1  # the second was allowed by the grant
    assert all(d.status == "completed" for d in engine.delegations.given_by(chat))
    await engine.close()
