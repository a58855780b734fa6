"""The loop guard of delegated work counts each of the model's answers once.

Work that repeats the same tool call round after round pauses as a ``loop`` (see
``test_the_same_tool_call_over_and_over_pauses_as_a_loop``). The guard reads the last
answer in the history before every step; an answer that is not new (a turn that starts
with a notice after a turn cut off right after its tool calls, a step checked again
after a wait) must not count again. Work in a tree a bound has stopped asks nothing more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from delegation_helpers import (
    Decider,
    Script,
    delegate_call,
    held,
    make_engine,
    settle,
    two_delegate_calls,
    until,
)
from engine_helpers import ask
from scripted_server import Reply, ScriptedServer, error, text, tool_calls

from tuibot.approvals import Decision
from tuibot.delegation.tree_limits import TreeLimits

TEN_MIN = {"timeMs": 600_000}


def model_calls(server: ScriptedServer) -> int:
    return len([r for r in server.requests if r.path.endswith("/chat/completions")])


def in_task(name: str, inside: Reply, outside: Reply) -> Callable[[dict[str, Any]], Reply]:
    """``inside`` for a request of the task chat given task ``name``, else ``outside``."""

    def respond(body: dict[str, Any]) -> Reply:
        given = f"gives you this task: {name}"
        chat = " ".join(str(m.get("content") or "") for m in body["messages"])
        return inside if given in chat else outside

    return respond


async def test_notice_turns_after_a_cut_off_delegate_round_are_no_loop(
    server: ScriptedServer, hermetic: Path
) -> None:
    """The task chat gives two tasks, then its model call fails: its last answer stays
    the ``delegate`` round. Each result then starts a notice turn there, and each of
    those turns once counted that same answer again; three counts paused the work as a
    ``loop`` and asked the person, though the model had made the call once."""
    Script(
        server,
        [
            ("Delegate please", delegate_call("Parent", TEN_MIN)),
            ("gives you this task: Parent", two_delegate_calls("Left", "Right", TEN_MIN)),
            ("gives you this task: Left", text("left done")),
            ("gives you this task: Right", text("right done")),
            ('"status": "queued"', in_task("Parent", error(500), text("Delegated."))),
            ("is done", in_task("Parent", error(500), text("Noted."))),
            ("has failed", text("Noted.")),
        ],
    )
    engine = make_engine(server)
    decider = Decider(engine, {"delegations.continue": Decision(False, reason="a loop")})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Delegate please")
    await settle(engine, chat)

    [parent] = engine.delegations.given_by(chat)
    children = engine.delegations.given_by(parent.chat or "")
    assert [c.status for c in children] == ["completed", "completed"]
    assert [(r.kind, r.details.get("limit")) for r in decider.seen] == []
    assert parent.status == "failed", parent.result
    await engine.close()


async def test_a_step_held_at_the_trees_bound_counts_its_answer_once(
    server: ScriptedServer, hermetic: Path
) -> None:
    """The task repeats one call twice (one short of a loop). The step after the first
    waits at the tree's bound; once allowed, that step is checked again, and the check
    once counted the same answer a second time: two calls looked like three."""
    same = tool_calls([("list_dir", '{"path": "."}', "same")])
    listed = iter([same, text("Looked twice.")])
    Script(
        server,
        [
            ("Look please", delegate_call("Look", TEN_MIN)),
            ("gives you this task: Look", same),
            ("tuibot.toml", lambda body: next(listed)),
            ('"status": "queued"', text("Delegated.")),
            ("is done", text("Noted.")),
        ],
    )
    engine = make_engine(server, delegation="tree_steps = 3")  # the task's 2nd step waits
    allow = Decision(True, reason="go on")
    decider = Decider(engine, {"delegations.tree_limit": allow, "delegations.continue": allow})
    chat = engine.new_chat(bot="Assistant").id
    await ask(engine, chat, "Look please")
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert "delegations.tree_limit" in [r.kind for r in decider.seen]
    assert [
        r.details.get("limit") for r in decider.seen if r.kind != "delegations.tree_limit"
    ] == []
    assert record.status == "completed", record.result
    assert record.result == "Looked twice."
    await engine.close()


async def test_work_at_its_own_limit_in_a_stopped_tree_asks_nothing(
    server: ScriptedServer, hermetic: Path
) -> None:
    """A bound stopped the tree (a denial, or ``ask``'s limit) and its cancel has not
    reached this task yet. The task's next step is past its own step limit: it once
    paused there and asked the person whether to go on, in the middle of the cancel."""
    gate = threading.Event()
    Script(
        server,
        [
            ("Look please", delegate_call("Look", {**TEN_MIN, "steps": 1})),
            ("gives you this task: Look", held(gate, tool_calls([("list_dir", "{}")]))),
            ('"status": "queued"', text("Delegated.")),
            ("tuibot.toml", text("Looked.")),
            ("was stopped", text("Noted.")),
        ],
    )
    engine = make_engine(server)
    decider = Decider(engine, {"delegations.continue": Decision(False, reason="no")})
    chat = engine.new_chat(bot="Assistant").id
    bound = TreeLimits(steps=None, budget_micros=None)
    engine.delegations.trees.set(chat, bound)
    await ask(engine, chat, "Look please")
    await until(lambda: model_calls(server) >= 3)  # the task's first model call is held
    bound.stopped = True  # what a bound reached does first; its cancel follows
    gate.set()
    await settle(engine, chat)

    [record] = engine.delegations.given_by(chat)
    assert [r.details.get("limit") for r in decider.seen] == []
    assert record.status == "cancelled", record.result
    await engine.close()
