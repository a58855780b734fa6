"""Anthropic-style prompt caching: mark the stable prefix of every request.

The system prompt and the tool list rarely change within a chat, so providers that
support ``cache_control`` (Anthropic, OpenRouter) can skip re-processing them.
"""

from __future__ import annotations

import copy
from typing import Any

EPHEMERAL = {"type": "ephemeral"}


def apply_cache_control(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of ``messages`` and ``tools`` with the system prompt and last tool marked."""
    marked_messages = list(messages)
    if marked_messages and marked_messages[0].get("role") == "system":
        system = dict(marked_messages[0])
        content = system.get("content")
        if isinstance(content, str):
            system["content"] = [{"type": "text", "text": content, "cache_control": EPHEMERAL}]
        elif isinstance(content, list) and content:
            blocks = copy.deepcopy(content)
            blocks[-1]["cache_control"] = EPHEMERAL
            system["content"] = blocks
        marked_messages[0] = system
    marked_tools = list(tools)
    if marked_tools:
        marked_tools[-1] = {**marked_tools[-1], "cache_control": EPHEMERAL}
    return marked_messages, marked_tools
