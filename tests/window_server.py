"""Scripted servers with a small context window, answering over-long requests the way
real local servers do: llama.cpp refuses (a 400 naming the window, or — streamed through
llama-cpp-python — a 200 with no events), Ollama cuts the prompt and reports the window
as ``prompt_tokens``. A request's size is its JSON's characters / 4, so tests can reason
about it; summary requests (no tools, the compaction prompt) are answered with a summary.
"""

from __future__ import annotations

import json
from typing import Any

from scripted_server import Reply, ScriptedServer, error, raw, text

from tuibot.agent.compact import SUMMARY_PROMPT

OVERFLOW = (
    "This model's maximum context length is {window} tokens. However, you requested "
    "{asked} tokens ({asked} in the messages, 0 in the completion). Please reduce the "
    "length of the messages or completion."
)


def request_tokens(body: dict[str, Any]) -> int:
    """The scripted count of a request: characters of messages and tools over four."""
    return len(json.dumps(body.get("messages")) + json.dumps(body.get("tools") or [])) // 4


def is_summary(body: dict[str, Any]) -> bool:
    """Whether the request is tuibot asking for a compaction summary."""
    messages = body.get("messages") or [{}]
    return str(messages[0].get("content", "")).startswith(SUMMARY_PROMPT[:40])


def windowed(
    server: ScriptedServer,
    window: int,
    style: str,
    answer: str = "Fine.",
    summary: Reply | None = None,
) -> list[int]:
    """Make ``server`` a ``style`` server (``refuse``, ``empty``, ``drop``, ``hangup``,
    ``truncate``)
    with ``window``.

    Returns the list of request sizes it saw, appended as requests arrive.
    """
    sizes: list[int] = []

    def respond(body: dict[str, Any]) -> Reply:
        asked = request_tokens(body)
        sizes.append(asked)
        if is_summary(body):
            return summary or text("The user asked about a big file; it was read.")
        if asked <= window:
            return text(answer, usage=(asked, 5))
        if style == "refuse":
            message = OVERFLOW.format(window=window, asked=asked)
            body_json = {"error": {"code": "context_length_exceeded", "message": message}}
            return error(400, body=body_json)
        if style == "empty":
            return raw([], done=False)
        if style == "drop":  # llama-cpp-python, measured: 200, then the body breaks off
            return Reply(items=(), ending="cut")
        if style == "hangup":  # the connection closes before any answer (status line)
            return Reply(items=(), ending="hangup")
        return text(answer, usage=(window, 5))  # truncate: Ollama cuts and says nothing

    server.responder = respond
    return sizes
