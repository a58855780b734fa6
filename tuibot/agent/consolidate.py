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
from tuibot.agent.fit import cut_middle
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
MIN_ROOM = 500
"""Fewer characters for the transcript than this is no use: consolidation waits."""


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
    return "\n\n".join(_line(message) for message in messages)


def _line(message: ChatMessage) -> str:
    """One message of the transcript."""
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
    return f"[{label}] {text}".rstrip()


def transcript_room(window: int, reserve: int, chars_per_token: float, memory: str) -> int:
    """Characters the transcript may take so the request fits ``window`` tokens.

    The answer is the whole new memory, so the reply room is the larger of the reserve
    and the current memory (plus growth), at most half the window. Raises
    ConsolidationError when the memory alone leaves no room (nothing is changed).
    """
    reply = min(max(reserve, int(len(memory) / chars_per_token) + 256), window // 2)
    fixed = len(INSTRUCTIONS) + len(memory) + 200  # the framing words and the bot's name
    room = int((window - reply) * chars_per_token) - fixed
    if room < MIN_ROOM:
        raise ConsolidationError(
            f"the memory ({len(memory)} characters) leaves no room in the model's "
            f"context window of {window} tokens"
        )
    return room


def fold_end(messages: Sequence[ChatMessage], start: int, upto: int, room: int) -> int:
    """How far to fold this time so the transcript fits ``room`` characters.

    At most ``upto``, just before a user message (a tool call stays with its results);
    when even the first turn is bigger, that one turn (its transcript is cut to fit).
    The rest is folded by the next consolidation.
    """
    size, end = 0, start
    for index in range(start, upto):
        size += len(_line(messages[index])) + 2
        if size > room:
            break
        end = index + 1
    while start < end < upto and messages[end].get("role") != "user":
        end -= 1
    if end > start:
        return end
    later = (i for i in range(start + 1, upto) if messages[i].get("role") == "user")
    return next(later, upto)


async def consolidate(
    client: ModelClient,
    model: str,
    params: dict[str, Any],
    *,
    bot: str,
    memory: str,
    messages: Sequence[ChatMessage],
    room: int | None = None,
) -> str:
    """The new memory text written by the model; raises ConsolidationError.

    ``room``: the most characters the transcript may take (see :func:`transcript_room`);
    a longer one is cut in the middle with a marker.
    """
    text = transcript(messages)
    if room is not None:
        text = cut_middle(text, room)
    request = [
        {"role": "system", "content": INSTRUCTIONS.format(bot=bot)},
        {
            "role": "user",
            "content": f"Current memory:\n\n{memory.strip() or '(empty)'}\n\n"
            f"Conversation to fold in:\n\n{text}",
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
