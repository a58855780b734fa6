"""Consolidation: fold a long chat's old turns into the bot's memory.

A chat that runs for weeks would otherwise send ever more history (or lose its start to
the history window). Once a chat has more than ``agent.consolidate_after`` messages the
model has not yet folded in, the engine asks the model, in the background, to rewrite the
bot's memory so it keeps what matters from those messages; the chat then records how many
messages are folded in, and the model's history starts after them. Anything going wrong —
the model fails, answers nothing, is cut off, or the memory changed meanwhile — leaves
memory and chat exactly as they were, and the next turn tries again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tuibot.agent.compact import attached_text
from tuibot.llm.errors import ModelError
from tuibot.llm.parts import FinishPart, ModelClient, TextPart
from tuibot.store.chat_message import ChatMessage

INSTRUCTIONS = """You maintain the long-term memory of an AI assistant called {bot}.
You get its current memory (Markdown notes) and a stretch of an older conversation.
Write the complete new memory: keep every note that still holds, add what the
conversation shows is worth remembering later (facts about the user, preferences,
decisions, open tasks, names, paths), drop what it shows is no longer true, and merge
duplicates. Be brief: short bullet points under "## " headings. Do not record secrets
(passwords, keys, tokens). Answer with the new memory only, no preamble."""

MAX_MESSAGE_CHARS = 4000
"""Each old message is cut to this much in the request (tool output can be huge)."""


class ConsolidationError(Exception):
    """Consolidation did not happen; nothing was changed."""


def pick(
    messages: Sequence[ChatMessage], upto: int, threshold: int, keep_recent: int
) -> int | None:
    """The new ``upto`` when consolidation is due, else None.

    Due when more than ``threshold`` messages follow ``upto``. The last ``keep_recent``
    stay out, and the cut is moved back to just before a user message, so a tool call is
    never separated from its results and the remaining history starts like a chat does.
    """
    if threshold <= 0 or len(messages) - upto <= threshold:
        return None
    end = len(messages) - keep_recent
    while end > upto and messages[end].get("role") != "user":
        end -= 1
    return end if end > upto else None


def transcript(messages: Sequence[ChatMessage]) -> str:
    """The messages as plain text for the request: role, tool names, content (clipped),
    and attached files as the model read them."""
    lines = []
    for message in messages:
        role = message.get("role", "?")
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS] + " […]"
        text += attached_text(message)  # what the model read, not only the typed @path
        calls = message.get("tool_calls") or []
        names = ", ".join(c.get("function", {}).get("name", "?") for c in calls)
        label = f"{role} (calls {names})" if names else role
        if role == "tool":
            label = f"tool result ({message.get('name', '?')})"
        lines.append(f"[{label}] {text}".rstrip())
    return "\n\n".join(lines)


async def consolidate(
    client: ModelClient,
    model: str,
    params: dict[str, Any],
    *,
    bot: str,
    memory: str,
    messages: Sequence[ChatMessage],
) -> str:
    """The new memory text written by the model; raises ConsolidationError."""
    request = [
        {"role": "system", "content": INSTRUCTIONS.format(bot=bot)},
        {
            "role": "user",
            "content": f"Current memory:\n\n{memory.strip() or '(empty)'}\n\n"
            f"Conversation to fold in:\n\n{transcript(messages)}",
        },
    ]
    pieces: list[str] = []
    finish: str | None = None
    try:
        async for part in client.stream(model, request, [], {**params, "temperature": 0}):
            if isinstance(part, TextPart):
                pieces.append(part.text)
            elif isinstance(part, FinishPart):
                finish = part.reason
    except ModelError as error:
        raise ConsolidationError(f"the model call failed: {error}") from error
    text = "".join(pieces).strip()
    if finish is None:
        raise ConsolidationError("the model's answer stopped before it was complete")
    if finish == "length":
        raise ConsolidationError("the model's answer hit the token limit")
    if not text:
        raise ConsolidationError("the model answered with an empty memory")
    return text
