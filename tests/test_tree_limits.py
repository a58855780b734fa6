"""Limits that bind a whole delegation tree: a storm of self-delegation is bounded.

The attacker is the model: it answers every request with a ``delegate`` call to itself,
so each helper hands work to a fresh helper of its own. Run through the real
``tuibot ask``, the run must end at ``--max-steps`` counted over every chat of the tree,
with exit 4 and the limit named.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from pathlib import Path
from typing import Any

from ask_helpers import run_ask
from delegation_helpers import (
    LateDelegate,
    Script,
    delegate_call,
    held,
    make_engine,
    settle,
    two_delegate_calls,
    until,
)
from scripted_server import Reply, ScriptedServer, text

from tuibot.approvals import Decision
from tuibot.engine import Engine
from tuibot.events import ApprovalRequested, DelegationChanged, Event, Notice

STORM_LIMITS = {"timeMs": 600_000}
OPEN_CAP = 32
"""``delegation.max_open_per_tree``'s default: the most open work below one chat, so the
most model calls that can be in flight when the tree's limit is reached."""
TREE_KIND = "delegations.tree_limit"


def storm(server: ScriptedServer) -> Script:
    """Every request, whatever it says, is answered with a delegation to the bot itself,
    each with another task so the identical-call guard never sees a loop."""
    count = itertools.count()

    def again(body: dict[str, Any]) -> Reply:
        n = next(count)
        return delegate_call(f"Do it again ({n}).", STORM_LIMITS, call_id=f"call_{n}")

    return Script(server, [("", again)])


def model_calls(server: ScriptedServer) -> int:
    return len([r for r in server.requests if r.path.endswith("/chat/completions")])


def test_a_self_delegation_storm_stops_at_max_steps_over_the_whole_tree(
    server: ScriptedServer, hermetic: Path
) -> None:
    storm(server)
    ran = run_ask(server, "--max-steps", "100", "--max-time", "30", "Start the storm")
    calls = model_calls(server)
    assert calls <= 100 + OPEN_CAP, calls
    assert ran.code == 4, ran.stderr
    assert "--max-steps was reached" in ran.stderr
    assert "--max-time" not in ran.stderr


class Answers:
    """Answers tree-bound requests with the given decisions, in order; records them all."""

    def __init__(self, engine: Engine, *decisions: Decision) -> None:
        self.engine, self.decisions = engine, list(decisions)
        self.seen: list[ApprovalRequested] = []
        self.notices: list[str] = []
        self.other: list[ApprovalRequested] = []
        """Every other request (none expected: a cancel asks nothing more)."""
        engine.events.listen(self)

    def __call__(self, event: Event) -> None:
        if isinstance(event, Notice):
            self.notices.append(event.message)
        if isinstance(event, ApprovalRequested) and event.kind != TREE_KIND:
            self.other.append(event)
        if isinstance(event, ApprovalRequested) and event.kind == TREE_KIND:
            self.seen.append(event)
            decision = self.decisions.pop(0) if self.decisions else Decision(False)
            asyncio.get_running_loop().call_soon(self.engine.decide, event.request_id, decision)


def app_engine(server: ScriptedServer, settings: str) -> Engine:
    """An engine with the app's tree bounds from ``[delegation]`` (no ``ask`` flags)."""
    return make_engine(server, delegation=settings)


async def test_the_apps_tree_bound_asks_the_person_and_a_denial_stops_the_whole_tree(
    server: ScriptedServer, hermetic: Path
) -> None:
    storm(server)
    engine = app_engine(server, "tree_steps = 20")
    answers = Answers(engine, Decision(False, reason="enough"))
    chat = engine.new_chat(bot="Assistant").id
    await engine.send(chat, "Start the storm")
    await settle(engine, chat, timeout=30)

    assert model_calls(server) <= 20
    [request] = answers.seen
    assert request.chat == chat and request.details["limit"] == "steps"
    assert request.details["setting"] == "delegation.tree_steps"
    assert "tree_steps" in request.summary
    # Settled means the cancel has recorded every layer: no grace period (a delegate call
    # that landed during the cascade once left work open below it).
    records = engine.delegations.tree(chat)
    assert records and all(r.status == "cancelled" for r in records), [r.status for r in records]
    assert any("delegation.tree_steps" in notice for notice in answers.notices)
    # Notice turns in chats the cancel had not reached once re-counted a delegate answer
    # as a loop and asked whether to go on.
    assert [(r.kind, r.details.get("limit")) for r in answers.other] == []
    await engine.close()


async def test_allowing_at_the_tree_bound_restarts_its_count(
    server: ScriptedServer, hermetic: Path
) -> None:
    storm(server)
    engine = app_engine(server, "tree_steps = 10")
    answers = Answers(engine, Decision(True, reason="go on"), Decision(False))
    chat = engine.new_chat(bot="Assistant").id
    await engine.send(chat, "Start the storm")
    await settle(engine, chat, timeout=30)

    assert [r.details["limit"] for r in answers.seen] == ["steps", "steps"]
    assert 10 < model_calls(server) <= 20
    await engine.close()


async def test_the_open_delegation_cap_bounds_a_storms_fan_out(
    server: ScriptedServer, hermetic: Path
) -> None:
    storm(server)
    engine = app_engine(server, "tree_steps = 60\nmax_open_per_tree = 4")
    Answers(engine, Decision(False))
    most: list[int] = [0]

    def count(event: Event) -> None:
        if isinstance(event, DelegationChanged):
            open_now = sum(1 for r in engine.delegations.journal.all() if r.is_open)
            most[0] = max(most[0], open_now)

    engine.events.listen(count)
    chat = engine.new_chat(bot="Assistant").id
    await engine.send(chat, "Start the storm")
    await settle(engine, chat, timeout=30)
    assert most[0] == 4
    await engine.close()


async def test_a_tree_budget_counts_the_cost_of_every_chat_below(
    server: ScriptedServer, hermetic: Path
) -> None:
    storm(server)
    engine = make_engine(server, price=1.0, delegation="tree_budget_micros = 1")
    answers = Answers(engine, Decision(False))
    chat = engine.new_chat(bot="Assistant").id
    await engine.send(chat, "Start the storm")
    await settle(engine, chat, timeout=30)
    assert [r.details["limit"] for r in answers.seen] == ["budget"]
    await engine.close()


async def test_a_delegate_call_landing_after_a_denial_is_refused_before_its_chat_is_stopped(
    server: ScriptedServer, hermetic: Path
) -> None:
    """The person said no at the tree's bound: the cancel works through the tree one
    chat at a time, and a chat it has not reached yet may still get a ``delegate`` call
    back. The tree takes no new work from then on, wherever the call comes from."""
    gate = threading.Event()
    Script(
        server,
        [
            ("Start", two_delegate_calls("Left", "Right", STORM_LIMITS)),
            ("gives you this task: Left", held(gate, text("left done"))),
            ("gives you this task: Right", held(gate, text("right done"))),
            ('"status": "queued"', text("Waiting.")),
        ],
    )
    engine = app_engine(server, "tree_steps = 3")  # the fourth of four steps is held
    answers = Answers(engine, Decision(False, reason="enough"))
    chat = engine.new_chat(bot="Assistant").id
    await engine.send(chat, "Start")
    await until(lambda: len(engine.delegations.tree(chat)) == 2)
    late = LateDelegate(engine, [r.chat or "" for r in engine.delegations.tree(chat)])
    await until(lambda: bool(answers.seen))

    await settle(engine, chat)
    gate.set()
    assert late.refused(), late.outcome
    records = engine.delegations.tree(chat)
    assert [r.status for r in records] == ["cancelled", "cancelled"]
    await engine.close()
