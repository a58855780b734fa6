"""Deterministic scenes for snapshot tests: a frozen clock, fixed ids, scripted events.

The Pilot tests drive real turns through the scripted server; a snapshot must instead
look the same on every run, so durations, ages and ids cannot come from the machine.
A scene therefore publishes frozen engine events with fixed values on the real engine's
stream: they pass through the real bridge into the real panes, and the real task board
and approval queue react to them as they would to a live turn.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot

from tuibot.delegation.records import Delegation, Limits, Parent, Pause, Usage
from tuibot.engine import Engine
from tuibot.events import (
    DelegationChanged,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from tuibot.events import Usage as TurnUsage
from tuibot.tui import clock

NOW = 1_796_284_800.0
"""2026-12-03 08:00 UTC: the time every snapshot is taken at (shown in UTC)."""


def dlg(number: int) -> str:
    """The scene's ``number``-th delegation id (ids are counters, in the real format)."""
    return f"dlg_{number:016x}"


def freeze(monkeypatch: pytest.MonkeyPatch) -> None:
    """Freeze wall time (in UTC, whatever the machine's zone) and make ids counters."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(time, "time", lambda: NOW)
    clock.freeze(NOW)
    chats, delegations, tasks = (itertools.count(1) for _ in range(3))
    monkeypatch.setattr(
        "tuibot.store.chats.new_chat_id", lambda now=None: f"c_20261203T0800_{next(chats):02d}"
    )
    monkeypatch.setattr(
        "tuibot.delegation.records.new_delegation_id", lambda: dlg(next(delegations))
    )
    monkeypatch.setattr("tuibot.tasks.board.new_task_id", lambda: f"task_{next(tasks):012x}")


def thaw() -> None:
    """Undo :func:`freeze` (monkeypatch restores TZ; the C library needs telling)."""
    clock.freeze(None)


async def settle(pilot: Pilot[Any]) -> None:
    """Let the bridge deliver (one frame) and the panes render."""
    await pilot.pause(0.1)
    await pilot.pause()


def turn(engine: Engine, chat: str, turn_id: str, text: str, *, bot: str = "Assistant") -> None:
    """A whole answered turn, as events: the user's input, reasoning, a tool, the answer."""
    publish = engine.events.publish
    engine.chats.append(chat, [{"role": "user", "content": text}])
    publish(TurnStarted(chat, turn_id, bot, "test-model", input=text))
    publish(ReasoningDelta(chat, turn_id, "The user wants the files listed. I will call list_dir."))
    arguments = {"path": "docs"}
    publish(ToolStarted(chat, turn_id, f"call_{turn_id}", "list_dir", arguments))
    output = "approvals.md\nask.md\ndelegation.md\ntui.md"
    publish(ToolFinished(chat, turn_id, f"call_{turn_id}", "list_dir", True, output, 0.042))
    answer = "The **docs** folder has four pages:\n\n- approvals.md\n- ask.md\n"
    answer += "- delegation.md\n- tui.md\n\n```sh\ntuibot ask --help\n```\n"
    publish(TextDelta(chat, turn_id, answer))
    publish(TurnFinished(chat, turn_id, "completed", answer, TurnUsage(1200, 85, 0), rounds=2))


def delegation(
    giver_chat: str, task_chat: str, bot: str, task: str, status: str, **changes: Any
) -> Delegation:
    """A delegation record as the manager would store it."""
    record = Delegation.new(
        parent=Parent(giver_chat, "t_1", "call_1"),
        giver_bot="Assistant",
        bot=bot,
        task=task,
        reason="needs a specialist",
        limits=Limits(600_000, 20, 2_000_000),
        now=NOW - 300,
    )
    return replace(record, chat=task_chat, status=status, updated=NOW - 10, **changes)  # type: ignore[arg-type]


def work_scene(engine: Engine) -> None:
    """A chat that gave three pieces of work: running, paused at a limit, and done."""
    giver = engine.new_chat(title="Release checklist").id
    turn(engine, giver, "t_1", "What is in docs/?")
    publish = engine.events.publish
    records = []
    for bot, task, status, extra in (
        ("Coder", "Add a --verbose flag to ask", "running", {"usage": Usage(95_000, 7, 0)}),
        (
            "Reviewer",
            "Review the approvals pane",
            "paused",
            {
                "usage": Usage(120_000, 20, 450_000),
                "pause": Pause("steps", "req_9", None, NOW - 30),
            },
        ),
        ("Coder", "Write the theme docs", "completed", {"usage": Usage(40_000, 4, 0)}),
    ):
        task_chat = engine.chats.create(
            kind="task",
            bot=bot,
            title=task,
            parent={"chat": giver, "delegation": dlg(len(records) + 1)},
        ).id
        record = delegation(giver, task_chat, bot, task, status, **extra)
        records.append(record)
        publish(DelegationChanged(giver, record.to_json()))
        publish(TurnStarted(task_chat, f"t_task{len(records)}", bot, "test-model", input=task))
        if status == "completed":
            publish(TurnFinished(task_chat, f"t_task{len(records)}", "completed", "Done."))
    publish(Notice("", "error", "tool skipped: tools/broken.py:3: SyntaxError: invalid syntax"))


def exec_request(engine: Engine, chat: str, command: str) -> Coroutine[Any, Any, Any]:
    """An exec confirmation, with the details and summary the engine builds for one."""
    from tuibot.approvals.permissions import exec_permission, permission_details, request_summary

    arguments = {"command": command}
    permission = exec_permission(command, "/home/me/project").checked(arguments)
    return engine.approvals.ask(
        chat,
        "tool",
        request_summary("exec", arguments, permission),
        {
            "tool": "exec",
            "arguments": arguments,
            "prompt": permission.question,
            "bot": "Assistant",
            "permission": permission_details(permission),
        },
        grant_key=permission.grant_key,
    )


def tool_request(engine: Engine, chat: str, tool: str, arguments: dict[str, Any]) -> Any:
    """A confirmation of a bundled tool, built by the tool's own rule as the engine does,
    in a fixed workspace (``/home/me/project``) so the picture does not vary."""
    from tuibot.approvals.permissions import permission_details, request_summary
    from tuibot.toolkit.workspace import use_workspace

    spec = engine.tools.get(tool)
    assert spec is not None
    with use_workspace("/home/me/project"):
        permission = spec.permission(arguments)
    assert permission is not None, f"{tool} {arguments} would not ask"
    return engine.approvals.ask(
        chat,
        "tool",
        request_summary(tool, arguments, permission),
        {
            "tool": tool,
            "arguments": arguments,
            "prompt": permission.question,
            "bot": "Assistant",
            "permission": permission_details(permission),
        },
        grant_key=permission.grant_key,
    )


def ask_approvals(engine: Engine, chat: str) -> list[asyncio.Task[Any]]:
    """Three pending requests of the three kinds, oldest first."""
    approvals = engine.approvals
    asks = [
        exec_request(engine, chat, "git push --force origin main"),
        approvals.ask(
            chat,
            "delegations.authorize",
            "Assistant wants to give work to Coder",
            {
                "delegation": dlg(1),
                "giver": "Assistant",
                "bot": "Coder",
                "task": "Add a --verbose flag to ask",
                "reason": "Coder writes the code",
                "limits": {"timeMs": 600_000, "steps": 20},
            },
        ),
        approvals.ask(
            chat,
            "delegations.continue",
            "Review the approvals pane reached its steps limit. Continue?",
            {
                "delegation": dlg(2),
                "bot": "Reviewer",
                "limit": "steps",
                "limits": {"timeMs": 600_000, "steps": 20, "budgetMicros": 2_000_000},
                "usage": {"timeMs": 120_000, "steps": 20, "costMicros": 450_000},
                "used": {"timeMs": 120_000, "steps": 20, "costMicros": 450_000},
                "task": "Review the approvals pane",
            },
        ),
    ]
    loop = asyncio.get_running_loop()
    return [loop.create_task(coro) for coro in asks]
