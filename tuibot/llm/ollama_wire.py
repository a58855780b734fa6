"""Ollama's native ``/api/chat`` shapes: OpenAI-style requests in, tuibot's parts out.

Why not the OpenAI-compatible endpoint: it ignores ``num_ctx`` and silently cuts every
prompt to the server's default window (4096), dropping the system prompt and the tools.
The native API takes ``options.num_ctx`` per request. Its shapes differ in small ways —
tool-call arguments are JSON objects, not strings; a tool result names its tool; images
are bare base64 on the message; the stream is NDJSON with counts on the last line — and
this module is only those differences, kept free of I/O so it is tested on its own.
"""

from __future__ import annotations

import json
from typing import Any

from tuibot.llm.parts import (
    FinishPart,
    ReasoningPart,
    StreamPart,
    TextPart,
    ToolCallPart,
    UsagePart,
)

TOP_LEVEL = ("format", "keep_alive", "think")
"""Request fields Ollama takes beside ``options``; every other parameter is an option."""
RENAMED = {"max_tokens": "num_predict", "max_completion_tokens": "num_predict"}
"""OpenAI parameter names and the Ollama option each one is."""
_DATA_URL = "data:"


def chat_body(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    params: dict[str, Any],
    num_ctx: int | None,
) -> dict[str, Any]:
    """The ``/api/chat`` body; ``num_ctx`` wins over a configured one only when larger."""
    body: dict[str, Any] = {"model": model, "messages": ollama_messages(messages), "stream": True}
    options: dict[str, Any] = {}
    for key, value in params.items():
        if key in TOP_LEVEL:
            body[key] = value
        elif key not in ("stream", "stream_options", "model", "messages", "tools"):
            options[RENAMED.get(key, key)] = value
    if options:
        body["options"] = options
    if tools:
        body["tools"] = tools
    if num_ctx:
        set_num_ctx(body, num_ctx)
    return body


def set_num_ctx(body: dict[str, Any], num_ctx: int) -> None:
    """``options.num_ctx`` of ``body``: a configured one wins only when larger."""
    options = body.setdefault("options", {})
    configured = options.get("num_ctx")
    if not (isinstance(configured, int) and configured >= num_ctx):
        options["num_ctx"] = num_ctx


def ollama_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-shaped history as Ollama's messages (see module docstring)."""
    names: dict[str, str] = {}
    converted = []
    for message in messages:
        out: dict[str, Any] = {"role": message.get("role", "user")}
        text, images = _content(message.get("content"))
        out["content"] = text
        if images:
            out["images"] = images
        calls = [_call(call, names) for call in message.get("tool_calls") or ()]
        if calls:
            out["tool_calls"] = calls
        if out["role"] == "tool":
            name = names.get(str(message.get("tool_call_id")), message.get("name"))
            if name:
                out["tool_name"] = name
        converted.append(out)
    return converted


def _content(content: Any) -> tuple[str, list[str]]:
    """Text and base64 images of a message's content (a string or a list of parts)."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return "", []
    texts, images = [], []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            url = part.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str) and url.startswith(_DATA_URL) and "," in url:
                images.append(url.split(",", 1)[1])  # Ollama wants the bare base64
            elif isinstance(url, str):
                texts.append(f"[image: {url}]")  # Ollama cannot fetch a URL itself
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts), images


def _call(call: Any, names: dict[str, str]) -> dict[str, Any]:
    """One OpenAI tool call as Ollama's (arguments as an object); remembers its name."""
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    name = str(function.get("name") or "")
    if isinstance(call, dict) and isinstance(call.get("id"), str):
        names[call["id"]] = name
    raw = function.get("arguments")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        arguments = {} if raw in (None, "") else {"arguments": raw}
    return {"function": {"name": name, "arguments": arguments}}


class LineReader:
    """Turns one stream's NDJSON lines into parts, numbering tool calls across lines."""

    def __init__(self) -> None:
        self.calls = 0
        self.done = False

    def parts(self, line: dict[str, Any]) -> list[StreamPart]:
        """The parts of one line; a field of the wrong type is a ValueError."""
        if not isinstance(line, dict):
            raise ValueError("a stream line is not a JSON object")
        parts: list[StreamPart] = []
        message = line.get("message") or {}
        if not isinstance(message, dict):
            raise ValueError("message is not an object")
        if message.get("thinking"):
            parts.append(ReasoningPart(_text(message["thinking"])))
        if message.get("content"):
            parts.append(TextPart(_text(message["content"])))
        for call in message.get("tool_calls") or ():
            parts.append(self._tool_call(call))
        if line.get("done"):
            self.done = True
            reason = str(line.get("done_reason") or "stop")
            parts.append(FinishPart("tool_calls" if self.calls and reason == "stop" else reason))
            prompt, completion = line.get("prompt_eval_count"), line.get("eval_count")
            if _count(prompt) or _count(completion):
                parts.append(UsagePart(_count(prompt), _count(completion)))
        return parts

    def _tool_call(self, call: Any) -> ToolCallPart:
        """A whole call (Ollama never splits one across lines) as one fragment."""
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise ValueError("a tool call has no function")
        arguments = function.get("arguments")
        text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        self.calls += 1
        call_id = call.get("id")
        return ToolCallPart(
            index=self.calls - 1,
            id=call_id if isinstance(call_id, str) and call_id else None,
            name=_text(function.get("name")),
            arguments=text,
        )


def _text(value: Any) -> str:
    """A field that must be a string."""
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _count(value: Any) -> int:
    """A token count (0 for anything that is not a non-negative integer)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else 0
