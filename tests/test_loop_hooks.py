"""The loop's hooks for limits: before each model call, and after each call's usage."""

from __future__ import annotations

import asyncio
from typing import Any

from engine_helpers import make_engine, sent_messages
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer

from tuibot.agent.loop import Turn, run_turn
from tuibot.events import Usage


async def _turn(server: ScriptedServer) -> tuple[Any, Turn]:
    engine = make_engine(server)
    chat = engine.new_chat().id
    return engine, await engine.turns.prepare(chat, "t_hooks", "list the folder")


async def test_before_step_runs_before_every_call_and_its_messages_are_sent(
    server: ScriptedServer,
) -> None:
    engine, turn = await _turn(server)
    server.enqueue(tool_calls([("list_dir", "{}")]), text("done"))
    seen_lengths: list[int] = []

    async def before(current: Turn) -> list[dict[str, Any]]:
        seen_lengths.append(len(current.history))
        if len(seen_lengths) == 2:
            return [{"role": "user", "content": "also: be brief"}]
        return []

    usages: list[Usage] = []
    turn.before_step = before
    turn.on_usage = usages.append

    outcome = await run_turn(turn)

    assert outcome.status == "completed"
    assert seen_lengths == [1, 3]  # user; then user, assistant call, tool result
    second = sent_messages(server, 1)
    assert second[-1] == {"role": "user", "content": "also: be brief"}
    assert [u.prompt_tokens for u in usages] == [10, 10] and len(usages) == 2
    await engine.close()


async def test_a_waiting_before_step_holds_the_call_until_released(
    server: ScriptedServer,
) -> None:
    engine, turn = await _turn(server)
    server.enqueue(text("after the pause"))
    release = asyncio.Event()

    async def before(current: Turn) -> list[dict[str, Any]]:
        await release.wait()
        return []

    turn.before_step = before
    task = asyncio.create_task(run_turn(turn))
    await asyncio.sleep(0.2)
    assert not [r for r in server.requests if r.path.endswith("/chat/completions")]
    release.set()
    outcome = await task
    assert outcome.text == "after the pause"
    await engine.close()


async def test_cancelling_while_held_sends_nothing(server: ScriptedServer) -> None:
    engine, turn = await _turn(server)
    server.enqueue(text("never"))

    async def before(current: Turn) -> list[dict[str, Any]]:
        await asyncio.Event().wait()
        return []

    turn.before_step = before
    task = asyncio.create_task(run_turn(turn))
    await asyncio.sleep(0.1)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    assert not [r for r in server.requests if r.path.endswith("/chat/completions")]
    await engine.close()
