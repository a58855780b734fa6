"""Chat history as the model receives it: only allowed keys, a capped window.

Stored messages carry tuibot's own keys (reasoning, status, turn, usage, bot). Those are
for people and the TUI; providers reject unknown keys and must never see reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ALLOWED_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
EMPTY = "(empty)"


def sanitize(message: dict[str, Any]) -> dict[str, Any]:
    """The message with only provider keys, and empty content replaced."""
    clean = {key: message[key] for key in ALLOWED_KEYS if key in message}
    content = clean.get("content")
    if content is None or content == "" or content == []:
        clean["content"] = EMPTY
    if not clean.get("tool_calls"):
        clean.pop("tool_calls", None)
    if clean.get("role") != "tool":
        clean.pop("tool_call_id", None)
    return clean


def history_window(messages: Sequence[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The last ``limit`` messages, starting at a user message.

    Cutting inside a tool exchange would leave tool results without their call, which
    providers reject, so the window moves forward to the next user message (or, inside
    one long exchange, past any leading tool results).
    """
    window = list(messages[-limit:]) if limit > 0 else []
    if len(window) == len(messages):
        return window
    for start, message in enumerate(window):
        if message.get("role") == "user":
            return window[start:]
    # One long tool exchange fills the window: at least never open with orphaned results.
    for start, message in enumerate(window):
        if message.get("role") != "tool":
            return window[start:]
    return []


def for_model(system_prompt: str, history: Sequence[dict[str, Any]], limit: int) -> list[dict]:
    """The request's message list: system prompt, then the sanitized history window."""
    return [{"role": "system", "content": system_prompt}] + [
        sanitize(message) for message in history_window(history, limit)
    ]
