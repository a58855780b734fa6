"""Collaborators see the engine only through narrow protocols; a fake host is enough.

mypy checks that the engine fits each protocol (``tuibot/engine/host_fit.py``); these tests
check the same against a live engine, and drive the delegation manager's limits,
clock and pauses with a small fake host and a hand-moved clock — no engine, no model,
no sleeping through a time limit.
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
from delegation_fakes import HandClock, fake_manager, fake_turn
from delegation_helpers import until

from tuibot.approvals import Decision
from tuibot.delegation.host import DelegationHost
from tuibot.delegation.manager import CONTINUE_KIND
from tuibot.delegation.records import Limits
from tuibot.engine import Engine
from tuibot.jobs.host import JobsHost, RunDelegations
from tuibot.settings import load_settings
from tuibot.toolkit.services import ToolServices


def members(protocol: type) -> set[str]:
    """The names a protocol declares (its own methods and properties)."""
    return {
        name
        for name, value in vars(protocol).items()
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))
    }


@pytest.mark.parametrize(
    ("protocol", "count"), [(DelegationHost, 10), (JobsHost, 9), (ToolServices, 5)]
)
def test_the_engine_has_every_member_a_host_protocol_names(protocol: type, count: int) -> None:
    engine = Engine(load_settings(None, env={}))
    names = members(protocol)
    assert len(names) == count
    assert [name for name in sorted(names) if not hasattr(engine, name)] == []


def test_the_delegation_manager_fits_what_job_runs_use_of_it() -> None:
    engine = Engine(load_settings(None, env={}))
    assert [n for n in sorted(members(RunDelegations)) if not hasattr(engine.delegations, n)] == []


async def test_a_time_limit_pauses_on_the_injected_clock_and_allow_resumes(
    tmp_path: Path,
) -> None:
    clock = HandClock()
    manager, host = fake_manager(tmp_path, clock)
    chat = host.chats.create(kind="direct", bot=host.bots.default.name).id
    answer = manager.delegate(
        chat=chat,
        turn="t_1",
        giver=host.bots.default.name,
        task="Count the files",
        limits=Limits(time_ms=60_000),
        bot=None,
        reason="",
        continues=None,
    )
    record = manager.get(answer["delegation"])
    assert record is not None and record.status == "running" and record.chat
    first = f"[tuibot] {record.giver_bot} gives you this task: Count the files"
    assert host.posts == [(record.chat, first)]

    clock.advance(59)
    await until(lambda: clock.sleeping == 1)  # the deadline waits for the rest
    assert (manager.get(record.id) or record).status == "running"

    clock.advance(1)
    await until(lambda: bool(host.approvals.pending()))
    paused = manager.get(record.id)
    assert paused is not None and paused.status == "paused"
    assert paused.pause is not None and paused.pause.limit == "time"
    assert paused.usage.time_ms == 60_000  # the hand clock's time, not the real one
    [request] = host.approvals.pending()
    assert request.kind == CONTINUE_KIND and request.chat == chat

    host.approvals.decide(request.id, Decision(True, reason="take another minute"))
    await until(lambda: (manager.get(record.id) or record).status == "running")
    resumed = manager.get(record.id)
    assert resumed is not None and resumed.window.time_ms == 60_000  # limits restart now
    assert host.posts[-1] == (record.chat, "[tuibot] You may continue. take another minute")
    await manager.close()


async def test_a_step_limit_holds_the_next_model_call_until_a_person_allows(
    tmp_path: Path,
) -> None:
    manager, host = fake_manager(tmp_path, HandClock())
    chat = host.chats.create(kind="direct", bot=host.bots.default.name).id
    answer = manager.delegate(
        chat=chat,
        turn="t_1",
        giver=host.bots.default.name,
        task="One step only",
        limits=Limits(time_ms=60_000, steps=1),
        bot=None,
        reason="",
        continues=None,
    )
    record = manager.get(answer["delegation"])
    assert record is not None and record.chat
    before_step, _, _ = manager.hooks_for(record.chat)
    assert before_step is not None

    assert await before_step(fake_turn(record.chat)) == []  # the one step it may take
    second = asyncio.ensure_future(before_step(fake_turn(record.chat)))
    await until(lambda: bool(host.approvals.pending()))
    held = manager.get(record.id)
    assert held is not None and held.status == "paused" and held.usage.steps == 1
    assert held.pause is not None and held.pause.limit == "steps"
    assert not second.done()  # no model call while paused

    [request] = host.approvals.pending()
    host.approvals.decide(request.id, Decision(True))
    assert await second == []
    ran = manager.get(record.id)
    assert ran is not None and ran.status == "running" and ran.usage.steps == 2
    await manager.close()
