"""A tool call's duration is the time it ran, not the time it waited for a person.

The tool log and the conversation show each call's duration; a command that ran in
milliseconds after a minute's wait for approval must not read "60 s".
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from engine_helpers import Recorder, ask, make_engine
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer

from tuibot.approvals import Decision
from tuibot.events import ApprovalRequested, ToolFinished

WAIT_S = 2.0
"""How long the test leaves the approval request open."""


async def test_the_wait_for_approval_is_not_part_of_the_duration(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    asked: list[float] = []
    decided: list[float] = []

    def answer_later(event: object) -> None:
        if isinstance(event, ApprovalRequested):
            asked.append(time.monotonic())

            def decide() -> None:
                decided.append(time.monotonic())
                engine.decide(event.request_id, Decision(True, reason="test"))

            asyncio.get_running_loop().call_later(WAIT_S, decide)

    engine.events.listen(answer_later)
    server.enqueue(tool_calls([("exec", json.dumps({"command": "echo quick"}))]), text("ok"))
    await ask(engine, engine.new_chat().id, "run it")

    [finished] = seen.of(ToolFinished)
    assert finished.ok
    waited = decided[0] - asked[0]
    assert waited >= WAIT_S
    assert finished.duration_s < waited, "the duration counts only the run, not the wait"
    await engine.close()
