"""The replies a :class:`scripted_server.ScriptedServer` can be scripted to give.

A test builds each answer with a small function (``text``, ``tool_calls``, ``cut``,
``error`` …) that returns a frozen :class:`Reply`; the server only plays replies back.
Keeping the builders apart from the HTTP plumbing means a reply's shape (how OpenAI splits
content and tool-call arguments across deltas) is defined in one place, and the server can
turn the same reply into a stream or into the complete message a non-streaming client gets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

Ending = Literal["done", "no_done", "cut", "silent", "hangup"]
REASONING_FIELDS = ("reasoning_content", "reasoning")
TOOL_CALL_MODES = ("split", "whole", "interleaved")


@dataclass(frozen=True)
class Reply:
    """One scripted answer to one chat request. Build it with the functions below."""

    items: tuple[dict[str, Any], ...] = ()
    """In order: bare deltas, choice dicts (with ``delta``) or whole chunks (with ``choices``)."""
    usage: tuple[int, int] | None = None
    """(prompt_tokens, completion_tokens), sent as the usage chunk and in the full reply."""
    delay: float = 0.0
    """Seconds to wait between stream frames."""
    ending: Ending = "done"
    """How the stream ends: [DONE], no [DONE], connection cut, or silence then a cut."""
    status: int = 200
    """HTTP status; anything but 200 sends ``error_body`` as JSON."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (``Retry-After`` …)."""
    error_body: dict[str, Any] | None = None
    """The JSON body of an error reply."""
    silence: float = 0.0
    """Seconds of silence for a ``silent`` reply."""


def _split(content: str, pieces: int | None) -> list[str]:
    """Cut ``content`` into ``pieces`` near-equal parts (None: about four characters each)."""
    if pieces is not None and pieces < 1:
        raise ValueError(f"pieces must be at least 1, got {pieces}")
    if not content:
        return []
    count = min(pieces or math.ceil(len(content) / 4), len(content))
    size, extra = divmod(len(content), count)
    parts, pos = [], 0
    for i in range(count):
        step = size + (1 if i < extra else 0)
        parts.append(content[pos : pos + step])
        pos += step
    return parts


def _finish(deltas: list[dict[str, Any]], finish_reason: str) -> tuple[dict[str, Any], ...]:
    """The deltas as choices, closed by an empty delta carrying ``finish_reason``."""
    return (*({"delta": d} for d in deltas), {"delta": {}, "finish_reason": finish_reason})


def _content_deltas(content: str, pieces: int | None = None) -> list[dict[str, Any]]:
    """OpenAI's opening role delta followed by the content, piece by piece."""
    return [{"role": "assistant", "content": ""}] + [
        {"content": p} for p in _split(content, pieces)
    ]


def text(
    content: str,
    *,
    pieces: int | None = None,
    reasoning: str | None = None,
    reasoning_field: str = "reasoning_content",
    usage: tuple[int, int] | None = (10, 5),
    finish_reason: str = "stop",
    delay: float = 0.0,
) -> Reply:
    """A streamed text answer; reasoning (if any) streams first, in ``reasoning_field``."""
    if reasoning_field not in REASONING_FIELDS:
        raise ValueError(f"reasoning_field must be one of {REASONING_FIELDS}")
    deltas = _content_deltas("")
    if reasoning:
        deltas += [{reasoning_field: p} for p in _split(reasoning, None)]
    deltas += [{"content": p} for p in _split(content, pieces)]
    return Reply(items=_finish(deltas, finish_reason), usage=usage, delay=delay)


def length(content: str) -> Reply:
    """A text answer cut short by the token limit (``finish_reason`` "length")."""
    return text(content, finish_reason="length")


def _call_deltas(index: int, name: str, arguments: str, call_id: str) -> list[dict[str, Any]]:
    """One tool call as OpenAI streams it: a header, then the arguments in three or more parts."""
    header = {"index": index, "id": call_id, "type": "function"}
    first = {**header, "function": {"name": name, "arguments": ""}}
    parts = _split(arguments, max(3, math.ceil(len(arguments) / 8)))
    parts += [""] * (3 - len(parts))
    rest = [{"index": index, "function": {"arguments": p}} for p in parts]
    return [{"tool_calls": [d]} for d in (first, *rest)]


def tool_calls(
    calls: list[tuple[str, str]] | list[tuple[str, str, str]],
    *,
    mode: str = "split",
    content: str = "",
    usage: tuple[int, int] | None = (10, 5),
) -> Reply:
    """Tool calls (name, arguments[, id]) streamed "split", "whole" or "interleaved".

    Arguments are sent verbatim, so a test can script malformed JSON.
    """
    if mode not in TOOL_CALL_MODES:
        raise ValueError(f"mode must be one of {TOOL_CALL_MODES}, got {mode!r}")
    if not calls:
        raise ValueError("tool_calls needs at least one call")
    named = [(c[0], c[1], c[2] if len(c) > 2 else f"call_{i + 1}") for i, c in enumerate(calls)]
    streams = [_call_deltas(i, name, args, cid) for i, (name, args, cid) in enumerate(named)]
    if mode == "whole":
        whole = [
            {"index": i, "id": cid, "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a, cid) in enumerate(named)
        ]
        call_deltas: list[dict[str, Any]] = [{"tool_calls": whole}]
    elif mode == "split":
        call_deltas = [d for stream in streams for d in stream]
    else:
        rounds = max(len(s) for s in streams)
        call_deltas = [s[r] for r in range(rounds) for s in streams if r < len(s)]
    if content:
        deltas = _content_deltas(content) + call_deltas
    else:
        deltas = [{"role": "assistant", "content": None, **call_deltas[0]}, *call_deltas[1:]]
    return Reply(items=_finish(deltas, "tool_calls"), usage=usage)


def raw(chunks: list[dict[str, Any]], *, done: bool = True) -> Reply:
    """Arbitrary frames: a bare delta, a choice (has ``delta``) or a whole chunk (``choices``).

    Missing chunk fields are filled in; no role, finish or usage chunk is added.
    ``done=False`` leaves out ``[DONE]`` but still ends the response cleanly.
    """
    return Reply(items=tuple(chunks), ending="done" if done else "no_done")


def cut(content: str, *, after: int) -> Reply:
    """The role delta and ``after`` content deltas, then the connection drops mid-stream."""
    deltas = _content_deltas(content)
    return Reply(items=tuple({"delta": d} for d in deltas[: after + 1]), ending="cut")


def error(
    status: int,
    *,
    message: str = "scripted error",
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
) -> Reply:
    """An HTTP error with an OpenAI-style JSON body (or ``body`` verbatim)."""
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}
    kind[429] = "rate_limit_error"
    payload = body or {
        "error": {
            "message": message,
            "type": kind.get(status, "server_error"),
            "param": None,
            "code": None,
        }
    }
    return Reply(status=status, headers=dict(headers or {}), error_body=payload)


def silent(seconds: float) -> Reply:
    """200 and stream headers, then nothing for ``seconds``, then the connection closes."""
    return Reply(ending="silent", silence=seconds)


def as_chunk(base: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """Wrap a delta or choice dict as a full ``chat.completion.chunk``."""
    if "choices" in item:
        return {**base, **item}
    given = item if "delta" in item else {"delta": item}
    choice = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": None, **given}
    return {**base, "choices": [choice]}


def usage_fields(usage: tuple[int, int]) -> dict[str, int]:
    """The ``usage`` object of a chunk or reply, from (prompt, completion) token counts."""
    prompt, completion = usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _merge_call(calls: dict[int, dict[str, Any]], delta: dict[str, Any]) -> None:
    """Fold one streamed tool-call delta into the calls assembled so far."""
    call = calls.setdefault(
        delta.get("index", 0),
        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
    )
    for key in ("id", "type"):
        if delta.get(key):
            call[key] = delta[key]
    function = delta.get("function") or {}
    call["function"]["name"] += function.get("name") or ""
    call["function"]["arguments"] += function.get("arguments") or ""


def whole_message(reply: Reply) -> tuple[dict[str, Any], str | None]:
    """The complete assistant message (and finish reason) a stream of ``reply`` adds up to."""
    content: list[str] | None = None
    reasoning: dict[str, str] = {}
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    for item in reply.items:
        choices = item.get("choices", []) if "choices" in item else [item]
        for choice in choices:
            delta = choice.get("delta", {}) if "delta" in choice else choice
            if delta.get("content") is not None:
                content = [*(content or []), delta["content"]]
            for key in REASONING_FIELDS:
                if delta.get(key) is not None:
                    reasoning[key] = reasoning.get(key, "") + delta[key]
            for call in delta.get("tool_calls") or []:
                _merge_call(calls, call)
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if content is None else "".join(content),
    }
    message.update(reasoning)
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message, finish
