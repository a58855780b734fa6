"""Which bot answers a message, when a chat is not pinned to one.

With one bot there is nothing to choose. With several, one short model call with a
single ``route(bot, confidence)`` tool, at temperature 0 and a small token cap, reads
the bots' descriptions and the last messages (assistant turns marked ``[Bot: name]`` so
it sees who has been answering) and names a bot. It is asked to stay with the bot that
answered last unless the message is clearly for another: a conversation should not
jump between bots on a whim. Anything unusable — an error, no call, an unknown name —
falls back to the default bot, because a message must always get an answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tuibot.bots import Bot
from tuibot.llm.errors import ModelError
from tuibot.llm.parts import ModelClient, ToolCallPart
from tuibot.store.chat_message import ChatMessage

RECENT_MESSAGES = 20
"""How much of the chat the classifier reads."""
MAX_TOKENS = 60
"""The answer is one small tool call."""
MESSAGE_CHARS = 600
"""Each message is clipped to this many characters for the classifier."""
ROOM_SHARE = 0.5
"""The share of the model's window the classifier's request may take (the rest is for
its answer and the estimate's error: a small window must not make routing fail)."""

ROUTE_TOOL = {
    "type": "function",
    "function": {
        "name": "route",
        "description": "Send the user's latest message to the bot that should answer it.",
        "parameters": {
            "type": "object",
            "properties": {
                "bot": {"type": "string", "description": "The bot's exact name."},
                "confidence": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "How sure you are, from 0 to 1.",
                },
            },
            "required": ["bot", "confidence"],
        },
    },
}

INSTRUCTIONS = """You route messages to bots. Call the route tool exactly once.

Bots:
{bots}

Rules:
- Choose the bot whose description fits the user's latest message best.
- {continuity}
- If no bot fits, choose {default}.
- Do not answer the message yourself."""


@dataclass(frozen=True)
class RouteChoice:
    """The bot chosen, how sure the classifier was, and why (for the trace and notices)."""

    bot: Bot
    confidence: float
    why: str
    """``only bot``, ``classifier``, or what went wrong before falling back."""


async def choose_bot(
    client: ModelClient,
    model: str,
    params: dict[str, Any],
    bots: Sequence[Bot],
    default: Bot,
    history: Sequence[ChatMessage],
    text: str,
    room: int | None = None,
) -> RouteChoice:
    """The bot for ``text``; never raises for model trouble (falls back to ``default``).

    ``room``: the most characters the request may take (the model's window); the
    oldest of the recent messages are left out until it fits.
    """
    if len(bots) <= 1:
        return RouteChoice(default, 1.0, "only bot")
    last = last_bot(history)
    system = _instructions(bots, default, last)
    latest = {"role": "user", "content": _clip(text)}
    recent = recent_messages(history)
    if room is not None:
        recent = within(recent, room - len(system) - len(latest["content"]))
    request = [{"role": "system", "content": system}, *recent, latest]
    call_params = {**params, "temperature": 0, "max_tokens": MAX_TOKENS}
    arguments = ""
    try:
        async for part in client.stream(model, request, [ROUTE_TOOL], call_params):
            if isinstance(part, ToolCallPart) and part.index == 0:
                arguments += part.arguments
    except ModelError as error:
        return RouteChoice(default, 0.0, f"the classifier failed: {error}")
    return _parse(arguments, bots, default)


def last_bot(history: Sequence[ChatMessage]) -> str | None:
    """The bot that wrote the latest assistant message, if the history says."""
    for message in reversed(history):
        if message.get("role") == "assistant" and message.get("bot"):
            return str(message["bot"])
    return None


def recent_messages(history: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """The last user and assistant messages as plain text, assistants marked by bot."""
    picked: list[dict[str, str]] = []
    for message in history:
        role = message.get("role")
        content = message.get("content")
        if role not in ("user", "assistant") or not isinstance(content, str) or not content:
            continue
        if role == "assistant":
            content = f"[Bot: {message.get('bot') or '?'}] {content}"
        picked.append({"role": role, "content": _clip(content)})
    return picked[-RECENT_MESSAGES:]


def within(messages: list[dict[str, str]], room: int) -> list[dict[str, str]]:
    """The newest of ``messages`` whose content fits ``room`` characters together."""
    kept: list[dict[str, str]] = []
    for message in reversed(messages):
        room -= len(message["content"]) + 16  # the role and the template's markers
        if room < 0:
            break
        kept.append(message)
    return kept[::-1]


def _instructions(bots: Sequence[Bot], default: Bot, last: str | None) -> str:
    listed = "\n".join(f"- {bot.name}: {bot.description or '(no description)'}" for bot in bots)
    continuity = (
        f"{last} answered last: keep {last} unless the message is clearly for another bot."
        if last
        else "This is the start of the conversation."
    )
    return INSTRUCTIONS.format(bots=listed, continuity=continuity, default=default.name)


def _parse(arguments: str, bots: Sequence[Bot], default: Bot) -> RouteChoice:
    if not arguments.strip():
        return RouteChoice(default, 0.0, "the classifier did not call route")
    try:
        data = json.loads(arguments)
    except ValueError:
        return RouteChoice(default, 0.0, "the classifier's route call was not JSON")
    name = data.get("bot") if isinstance(data, dict) else None
    by_name = {bot.name.casefold(): bot for bot in bots}
    bot = by_name.get(str(name).strip().casefold()) if isinstance(name, str) else None
    if bot is None:
        return RouteChoice(default, 0.0, f"the classifier named an unknown bot: {name!r}")
    confidence = data.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        confidence = 0.5
    return RouteChoice(bot, max(0.0, min(1.0, float(confidence))), "classifier")


def _clip(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " […]"
