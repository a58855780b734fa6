"""Shared set-up for delegation tests: a config with bots and prices, and a responder.

Delegated work runs concurrently, so the scripted server cannot answer from a fixed
queue; :class:`Script` answers each request by the text of its last message instead.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripted_server import Reply, ScriptedServer
from trust_helpers import trust_file

from tuibot.approvals import Decision
from tuibot.delegation.errors import DelegationRefused
from tuibot.delegation.records import Limits
from tuibot.engine import Engine
from tuibot.events import ApprovalRequested, Event, TurnFinished
from tuibot.settings import load_settings

AGENT_CONFIG = """\
[agent]
name = "Assistant"
model = "test-model"
max_rounds = 30

[providers.local]
base_url = "{url}"
max_retries = 0
price_input = {price}
price_output = 0
"""
"""The agent on the scripted server, priced per prompt token: the head of every config here
and in :mod:`job_helpers`."""

CONFIG = (
    AGENT_CONFIG
    + """
[delegation]
approval_timeout = {approval_timeout}
{delegation}

[[bots]]
name = "Coder"
description = "Writes code"

[[bots]]
name = "Reviewer"
description = "Reviews code"
"""
)


def make_engine(
    server: ScriptedServer,
    *,
    price: float = 0,
    approval_timeout: float = 30,
    delegation: str = "",
) -> Engine:
    """An engine over the scripted server, with three bots and a price per prompt token."""
    return engine_from(
        CONFIG.format(
            url=server.url, price=price, approval_timeout=approval_timeout, delegation=delegation
        )
    )


def engine_from(config: str) -> Engine:
    """An engine read from ``config``, written as ``tuibot.toml`` in the working folder
    (the hermetic fixture's), with its tools loaded."""
    Path("tuibot.toml").write_text(config, encoding="utf-8")
    trust_file()
    engine = Engine(load_settings(None, env={}))
    engine.load_tools()
    return engine


def last_text(body: dict[str, Any]) -> str:
    """The content of the request's last message (a user input or a tool result)."""
    content = body["messages"][-1].get("content")
    return content if isinstance(content, str) else ""


def system_text(body: dict[str, Any]) -> str:
    return str(body["messages"][0].get("content", ""))


Rule = tuple[str, Callable[[dict[str, Any]], Reply] | Reply]


class Script:
    """Answers each chat request with the reply of the first rule whose text is in its
    last message; the classifier's route calls name the bot given by ``route``."""

    def __init__(self, server: ScriptedServer, rules: list[Rule], route: str = "Assistant"):
        self.rules = rules
        self.route = route
        self.unmatched: list[str] = []
        server.responder = self

    def __call__(self, body: dict[str, Any]) -> Reply:
        from scripted_server import text, tool_calls

        if any(t["function"]["name"] == "route" for t in body.get("tools") or []):
            return tool_calls([("route", json.dumps({"bot": self.route, "confidence": 1}))])
        last = last_text(body)
        for needle, reply in self.rules:
            if needle in last:
                return reply(body) if callable(reply) else reply
        self.unmatched.append(last)
        return text(f"(no rule for: {last[:60]})")


def delegate_call(
    task: str, limits: dict[str, int], call_id: str = "call_d", **extra: str
) -> Reply:
    from scripted_server import tool_calls

    arguments = {"task": task, "limits": limits, **extra}
    return tool_calls([("delegate", json.dumps(arguments), call_id)])


class Decider:
    """Answers approval requests of some kinds with a fixed decision, and records them."""

    def __init__(self, engine: Engine, decisions: dict[str, Decision]) -> None:
        self.engine = engine
        self.decisions = decisions
        self.seen: list[ApprovalRequested] = []
        engine.events.listen(self)

    def __call__(self, event: Event) -> None:
        if isinstance(event, ApprovalRequested):
            self.seen.append(event)
            decision = self.decisions.get(event.kind)
            if decision is not None:
                loop = asyncio.get_running_loop()
                loop.call_soon(self.engine.decide, event.request_id, decision)


async def settle(engine: Engine, chat: str, timeout: float = 15) -> None:
    """Wait until the chat has no open work left."""
    await asyncio.wait_for(engine.delegations.wait_until_settled(chat), timeout)


def messages_of(engine: Engine, chat: str) -> list[dict[str, Any]]:
    return engine.chats.load(chat, readonly=True).messages


def contents(engine: Engine, chat: str, role: str = "user") -> list[str]:
    return [m.get("content") or "" for m in messages_of(engine, chat) if m["role"] == role]


async def until(condition: Callable[[], bool], timeout: float = 10) -> None:
    """Wait until ``condition()`` holds (work runs concurrently); fail after ``timeout``."""

    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)


def two_delegate_calls(first: str, second: str, limits: dict[str, int]) -> Reply:
    """One answer giving two tasks at once (its two tools run side by side)."""
    from scripted_server import tool_calls

    return tool_calls(
        [
            ("delegate", json.dumps({"task": first, "limits": limits}), "c_first"),
            ("delegate", json.dumps({"task": second, "limits": limits}), "c_second"),
        ]
    )


def held(gate: threading.Event, reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A reply the server holds until ``gate`` opens: a model call still in flight."""

    def respond(body: dict[str, Any]) -> Reply:
        gate.wait(10)
        return reply

    return respond


class LateDelegate:
    """A ``delegate`` call that lands in the middle of a cancel.

    ``chats`` are two task chats whose turns wait on the model. When the first of them
    is stopped, the other one's answer arrives: a ``delegate`` call, made here through
    the manager as the tool makes it, at exactly that moment (the cascade has listed
    the work below and is stopping it chat by chat).
    """

    def __init__(self, engine: Engine, chats: list[str]) -> None:
        self.engine, self.chats = engine, chats
        self.outcome: list[dict[str, Any] | DelegationRefused] = []
        engine.events.listen(self)

    def __call__(self, event: Event) -> None:
        if not isinstance(event, TurnFinished) or event.chat not in self.chats or self.outcome:
            return
        [other] = [chat for chat in self.chats if chat != event.chat]
        try:
            answer = self.engine.delegations.delegate(
                chat=other,
                turn="t_late",
                giver="Assistant",
                task="Late",
                limits=Limits(600_000),
                bot=None,
                reason="",
                continues=None,
            )
        except DelegationRefused as error:
            self.outcome.append(error)
        else:
            self.outcome.append(answer)

    def refused(self) -> bool:
        """The call came, and was refused."""
        return bool(self.outcome) and isinstance(self.outcome[0], DelegationRefused)
