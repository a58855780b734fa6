"""What both clients do the same way: the request body, and chunks to parts with errors mapped."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from tuibot.llm.errors import ModelError, from_openai_error
from tuibot.llm.parts import StreamPart, parts_from_chunk


def chat_request(
    model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], params: dict[str, Any]
) -> dict[str, Any]:
    """A streaming chat-completions body; params cannot switch streaming off."""
    request: dict[str, Any] = {
        **params,
        "model": model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if tools:
        request["tools"] = tools
    return request


async def stream_parts(
    open_stream: Callable[[], Awaitable[Any]], where: str
) -> AsyncIterator[StreamPart]:
    """Open a stream and yield its parts; every failure becomes a ModelError.

    Whether any part had arrived decides between "unreachable" and "interrupted".
    """
    started = opened = False
    try:
        stream = await open_stream()
        opened = True
        async for chunk in stream:
            for part in parts_from_chunk(chunk):
                started = True
                yield part
    except ModelError:
        raise
    except Exception as error:
        mapped = from_openai_error(error, where, started)
        if opened and not started and mapped.kind == "unreachable":
            mapped = ModelError(
                f"The model server at {where} took the request, then closed the stream "
                "without an answer.",
                "interrupted",
                empty=True,
            )
        raise mapped from error
