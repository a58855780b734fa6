"""Chat history as the model receives it: only allowed keys, a capped window.

Stored messages carry tuibot's own keys (reasoning, status, turn, usage, bot). Those are
for people and the TUI; providers reject unknown keys and must never see reasoning.
Attachments on a user message become part of its content here (see
:mod:`tuibot.attachments.request`; images are resolved just before sending). A tool
message's kept images ride along under ``TOOL_IMAGES`` until then.
What is sent must also parse on the server's side: null content only beside tool calls,
and every replayed call's arguments a JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from tuibot.agent.calls import parse_arguments
from tuibot.attachments.request import TOOL_IMAGES, content_with
from tuibot.store.chat_message import ChatMessage

ProviderKey = Literal["role", "content", "tool_calls", "tool_call_id", "name"]
ALLOWED_KEYS: tuple[ProviderKey, ...] = ("role", "content", "tool_calls", "tool_call_id", "name")
EMPTY = "(empty)"


def sanitize(message: ChatMessage, placeholder: bool = False) -> dict[str, Any]:
    """The message with only provider keys, and its content fit to send.

    An assistant message that only calls tools goes with ``content: null`` (OpenAI's
    schema; a placeholder would read to the model as something it said), or with
    ``EMPTY`` when ``placeholder`` is set for a server that rejects null. Any other empty
    content becomes ``EMPTY``, and every call's arguments are a JSON object text.
    """
    clean: dict[str, Any] = {key: message[key] for key in ALLOWED_KEYS if key in message}
    if message.get("attachments") and isinstance(clean.get("content"), str):
        if clean.get("role") == "tool":  # a tool message's content must stay text
            clean[TOOL_IMAGES] = message["attachments"]
        else:
            clean["content"] = content_with(clean["content"], message["attachments"])  # type: ignore[arg-type]
    if clean.get("tool_calls"):
        clean["tool_calls"] = [_replayable(call) for call in clean["tool_calls"]]
    else:
        clean.pop("tool_calls", None)
    content = clean.get("content")
    if content is None or content == "" or content == []:
        only_calls = clean.get("role") == "assistant" and "tool_calls" in clean
        clean["content"] = None if only_calls and not placeholder else EMPTY
    if clean.get("role") != "tool":
        clean.pop("tool_call_id", None)
    return clean


def _replayable(call: Any) -> Any:
    """A stored call whose arguments a server will parse (chats older than this rule)."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return call
    arguments = function.get("arguments")
    text = arguments if isinstance(arguments, str) else ""
    try:
        if isinstance(json.loads(text), dict):
            return call
    except ValueError:
        pass
    return {**call, "function": {**function, "arguments": parse_arguments(text).replay}}


def history_window(messages: Sequence[ChatMessage], limit: int) -> list[ChatMessage]:
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


def for_model(
    system_prompt: str,
    history: Sequence[ChatMessage],
    limit: int,
    placeholder: bool = False,
) -> list[dict[str, Any]]:
    """The request's message list: system prompt, then the sanitized history window."""
    return [{"role": "system", "content": system_prompt}] + [
        sanitize(message, placeholder) for message in history_window(history, limit)
    ]
