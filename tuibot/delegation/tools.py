"""The tools every bot has for working with other bots.

They are built into tuibot rather than plugins, because they reach the engine's
delegation manager (through the turn's ``ToolScope``) and must not be replaced by a user
file of the same name. Each returns JSON the model can read back, or an ``Error: …``
line that says what to change.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from tuibot.bots import BotError
from tuibot.delegation.journal import DelegationStorageError
from tuibot.delegation.manager import DelegationManager, DelegationRefused
from tuibot.toolkit.decorator import ToolSpec
from tuibot.toolkit.decorator import tool as tool_decorator
from tuibot.toolkit.scope import ToolScope, current_scope
from tuibot.toolkit.services import ToolServices, services_of

LIMITS_SCHEMA = {
    "type": "object",
    "description": (
        'Limits of the work, e.g. {"timeMs": 600000, "steps": 20}. timeMs is required '
        "(1000 to 2592000000); steps (model calls) and budgetMicros (micro-USD, this "
        "work and all it delegates) are optional."
    ),
    "properties": {
        "timeMs": {"type": "integer", "minimum": 1000, "maximum": 2_592_000_000},
        "steps": {"type": "integer", "minimum": 1},
        "budgetMicros": {"type": "integer", "minimum": 1},
    },
    "required": ["timeMs"],
    "additionalProperties": False,
}


def _context() -> tuple[ToolScope, ToolServices]:
    scope = current_scope()
    services = services_of(scope)
    if scope is None or services is None or not scope.chat:
        raise DelegationRefused("delegation tools work only inside a bot's turn")
    return scope, services


def _manager() -> tuple[ToolScope, DelegationManager]:
    scope, engine = _context()
    return scope, engine.delegations


def _answer(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def _refusals(func: Any) -> Any:
    """Turn the expected refusals into ``Error: …`` results (the registry adds the hint)."""

    async def wrapper(**arguments: Any) -> str:
        from tuibot.delegation.records import LimitsError  # on a call, not at tool loading

        try:
            text: str = await func(**arguments)
            return text
        except (DelegationRefused, BotError, LimitsError, DelegationStorageError) as error:
            return f"Error: {error}"

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    wrapper.__annotations__ = func.__annotations__
    wrapper.__wrapped__ = func  # type: ignore[attr-defined]
    return wrapper


async def list_bots() -> str:
    """List the bots you can give work to, with what each is for."""
    scope, engine = _context()
    bots = []
    for bot in engine.bots.all():
        relation = (
            "you"
            if bot.name == scope.bot
            else ("yours" if engine.bots.owns(scope.bot, bot.name) else "other (needs a reason)")
        )
        bots.append({"name": bot.name, "description": bot.description, "relation": relation})
    return _answer(bots)


async def bot_details(bot: str) -> str:
    """Read a bot's role, instructions, model and tools.

    Args:
        bot: The bot's name (see list_bots).
    """
    _, engine = _context()
    return _answer(engine.bots.require(bot).as_json())


async def delegate(
    task: str,
    limits: dict[str, int],
    bot: str = "",
    reason: str = "",
    delegation: str = "",
) -> str:
    """Give a task to a bot (or, without bot, to a fresh helper like you). Returns at once.

    The other bot does not see this chat: put everything the work needs into task. The
    result comes back to this chat as a message by itself; do not wait for it.

    Args:
        task: What to do, with every detail and file the work needs.
        limits: The work's limits.
        bot: The bot to give it to; leave empty to give it to a helper like yourself.
        reason: Why; required for a bot you do not own (a person reads it).
        delegation: The id of earlier work of this chat to add this task to.
    """
    from tuibot.delegation.records import Limits

    scope, manager = _manager()
    answer = manager.delegate(
        chat=scope.chat,
        turn=scope.turn,
        giver=scope.bot,
        task=task,
        limits=Limits.parse(limits),
        bot=bot or None,
        reason=reason,
        continues=delegation or None,
        tool_call=scope.call_id or None,
    )
    return _answer(answer)


async def cancel_delegation(delegation: str, reason: str = "") -> str:
    """Stop work this chat gave, and everything it gave in turn.

    Args:
        delegation: The id delegate returned.
        reason: Why it is stopped (kept in the record).
    """
    scope, manager = _manager()
    record = manager.get(delegation)
    if record is None or record.parent.chat != scope.chat:
        raise DelegationRefused(f"no delegation {delegation} was given by this chat")
    final = await manager.cancel(delegation, by="bot", why=reason or "cancelled by its giver")
    return _answer({"delegation": final.id, "status": final.status})


async def create_bot(
    name: str, description: str, instructions: str, model: str = "", tools: str = ""
) -> str:
    """Create a new bot that you own; you can then give it work without asking anyone.

    Args:
        name: The new bot's name.
        description: What it is for.
        instructions: Its standing instructions (its role).
        model: The model it calls; empty for yours.
        tools: Comma-separated tool names it may use; empty for yours.
    """
    scope, engine = _context()
    names = [t.strip() for t in tools.split(",") if t.strip()] if tools else None
    bot = engine.bots.create(
        name=name,
        description=description,
        instructions=instructions,
        owner=scope.bot,
        model=model,
        tools=names,
    )
    return _answer(bot.as_json())


BUILTIN_TOOLS = ("list_bots", "bot_details", "delegate", "cancel_delegation", "create_bot")
"""Tools every bot has, whatever its ``tools`` list says."""


def delegation_tools() -> list[ToolSpec]:
    """The built-in specs, source ``builtin``; ``delegate``'s limits get a full schema."""
    specs = []
    for func in (list_bots, bot_details, delegate, cancel_delegation, create_bot):
        decorated = tool_decorator(_refusals(func))
        spec: ToolSpec = decorated.__tool_meta__
        if spec.name == "delegate":
            parameters = json.loads(json.dumps(spec.parameters))
            parameters["properties"]["limits"] = LIMITS_SCHEMA
            spec = dataclasses.replace(spec, parameters=parameters)
        specs.append(dataclasses.replace(spec, source="builtin"))
    return specs
