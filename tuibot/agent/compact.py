"""Compaction: older turns of a chat summarised by the model into one summary.

Why: when a chat outgrows the window, leaving old turns out makes the model forget them
without a trace; a summary keeps what mattered. The summary goes into the request after
the system prompt; the chat file keeps every original message and gains a
``compaction`` record saying where the summary starts (see ``ChatStore.add_compaction``).
A failed summary changes nothing: the caller stores only a finished one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from tuibot.agent.fit import KEEP_TURNS, cut_middle
from tuibot.attachments import AttachmentRef
from tuibot.attachments.request import content_with
from tuibot.llm.errors import ModelError
from tuibot.llm.parts import ModelClient, TextPart, UsagePart
from tuibot.store.chat_message import ChatMessage

SUMMARY_PROMPT = (
    "You compact a conversation between a user and an AI assistant that uses tools. "
    "Write a concise summary the assistant can continue from: the user's goals and "
    "requests, decisions made, facts and file names learnt, what tools found, what is "
    "done and what is still open. Write it in plain prose and short lists, in the "
    "conversation's language. Do not call tools; do not add anything not in the text."
)
SUMMARY_HEADING = "## Summary of the earlier conversation (compacted by tuibot)"
_RESULT_CHARS = 2000
"""How much of each tool result the summariser reads."""


class CompactionError(Exception):
    """The summary could not be made; ``str`` says why, fit to show a person."""


@dataclass(frozen=True)
class Summary:
    """A finished compaction: the summary of ``history[:upto]``."""

    text: str
    upto: int
    """How many leading messages of the given history it replaces."""
    prompt_tokens: int
    completion_tokens: int


def split_point(history: Sequence[ChatMessage], keep_turns: int = KEEP_TURNS) -> int:
    """Where the kept turns start: the user message opening the last ``keep_turns``.

    0 means there is nothing older to compact. Starting at a user message keeps every
    tool call with its result on one side.
    """
    users = [i for i, message in enumerate(history) if message.get("role") == "user"]
    return users[-keep_turns] if len(users) > keep_turns else 0


def with_summary(system_prompt: str, summary: str) -> str:
    """The system prompt followed by the chat's summary (no second system message:
    several local servers' chat templates reject one)."""
    return f"{system_prompt}\n\n{SUMMARY_HEADING}\n\n{summary}" if summary else system_prompt


def transcript(messages: Sequence[ChatMessage], earlier: str, budget_chars: int) -> str:
    """The messages as plain text for the summariser, cut to ``budget_chars``."""
    lines = [f"Summary of what came before:\n{earlier}\n"] if earlier else []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if role == "tool":
            name = message.get("name") or "tool"
            lines.append(f"[{name} result]\n{cut_middle(text, _RESULT_CHARS)}")
        elif role == "assistant":
            calls = [
                f"{c['function'].get('name')}({c['function'].get('arguments')})"
                for c in message.get("tool_calls") or ()
                if isinstance(c, dict) and isinstance(c.get("function"), dict)
            ]
            said = text + ("\n[called: " + "; ".join(calls) + "]" if calls else "")
            lines.append(f"Assistant: {said}")
        elif role == "user":
            lines.append(f"User: {text}{attached_text(message)}")
    return cut_middle("\n\n".join(lines), max(budget_chars, 1000))


def attached_text(message: ChatMessage) -> str:
    """The attachments as the model read them (text, transcripts), each cut like a tool
    result; images by name only (the summariser may take no images). Consolidation reads
    them the same way."""
    shown = []
    for ref in message.get("attachments") or ():
        if ref.get("kind") == "image":
            shown.append(f"[attached image {ref.get('name')}]")
        else:
            shown.append(
                cut_middle(str(content_with("", [cast(AttachmentRef, ref)])), _RESULT_CHARS)
            )
    return "".join(f"\n\n{block}" for block in shown)


async def summarise(
    client: ModelClient,
    model: str,
    params: dict[str, Any],
    text: str,
    instructions: str = "",
) -> tuple[str, int, int]:
    """Ask the model for the summary of ``text``: (summary, prompt, completion tokens)."""
    ask = SUMMARY_PROMPT + (f"\nThe user asks you to: {instructions}" if instructions else "")
    messages = [{"role": "system", "content": ask}, {"role": "user", "content": text}]
    kept = {k: v for k, v in params.items() if k in ("temperature", "max_tokens", "top_p")}
    pieces: list[str] = []
    usage = (0, 0)
    try:
        async for part in client.stream(model, messages, [], kept):
            if isinstance(part, TextPart):
                pieces.append(part.text)
            elif isinstance(part, UsagePart):
                usage = (part.prompt_tokens, part.completion_tokens)
    except ModelError as error:
        raise CompactionError(f"the summary failed: {error}") from error
    summary = "".join(pieces).strip()
    if not summary:
        raise CompactionError("the model returned an empty summary")
    return summary, *usage
