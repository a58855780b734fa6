"""History repair and titles: the pure rules applied to a chat's messages.

Kept apart from :mod:`tuibot.store.chats` (files, ids, headers) because these rules touch
no file: they decide what a loaded history must gain before a provider accepts it, and
what a chat is called, so they can be tested on plain lists.

- A provider refuses a history with a tool call that has no result. A crash between the
  call and its result leaves one behind, so :func:`repair_records` gives each a synthetic
  "interrupted" result, right after the results the call's block did get.
- A chat created without a title is named after its first user message with text
  (:func:`auto_title`); a title set by hand is cleaned to one line (:func:`clean_title`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tuibot.store.chat_message import ChatMessage

INTERRUPTED_RESULT = "Error: interrupted — tuibot stopped before this tool returned a result."
"""The content of the synthetic result given to a tool call a crash left unanswered."""
TITLE_LENGTH = 60
"""Longest automatic title (the first line of the first user message)."""


def content_text(content: object) -> str:
    """The text of a message's content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def clean_title(text: str, limit: int | None = None) -> str:
    """The first non-blank line of ``text``, trimmed, cut to ``limit`` with an ellipsis."""
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    line = " ".join(line.split())
    if limit is not None and len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def auto_title(messages: Sequence[ChatMessage]) -> str:
    """The title a chat gets from its first user message with text ("" if none yet)."""
    for message in messages:
        if message.get("role") == "user":
            title = clean_title(content_text(message.get("content")), TITLE_LENGTH)
            if title:
                return title
    return ""


def _tool_calls(message: dict[str, Any]) -> list[tuple[str, str]]:
    """``(id, function name)`` of an assistant message's tool calls, without duplicates."""
    calls = message.get("tool_calls") if message.get("role") == "assistant" else None
    found: dict[str, str] = {}
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            function = call.get("function")
            name = function.get("name") if isinstance(function, dict) else None
            found.setdefault(call["id"], name if isinstance(name, str) else "")
    return list(found.items())


def interrupted_result(call_id: str, name: str) -> ChatMessage:
    """The result a tool call gets when tuibot stopped before the tool answered."""
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "name": name,
        "content": INTERRUPTED_RESULT,
        "status": "interrupted",
    }


def repair_records(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int, bool]:
    """Give every unanswered tool call a synthetic result after its block of results.

    Returns the repaired records, how many were added, and whether all of them are at the
    end (then appending them is enough; otherwise the file must be rewritten).
    """
    out: list[dict[str, Any]] = []
    added, at_end, i = 0, True, 0
    while i < len(records):
        out.append(records[i])
        message = records[i]["message"]
        calls = _tool_calls(message) if message.get("tool_calls") else []  # most have none
        i += 1
        answered = set()
        while calls and i < len(records) and records[i]["message"].get("role") == "tool":
            answered.add(records[i]["message"].get("tool_call_id"))
            out.append(records[i])
            i += 1
        missing = [(cid, name) for cid, name in calls if cid not in answered]
        if missing:
            at_end = at_end and i == len(records)
            ts = out[-1].get("ts")
            out.extend(
                {"type": "message", "ts": ts, "message": interrupted_result(cid, name)}
                for cid, name in missing
            )
            added += len(missing)
    return out, added, at_end
