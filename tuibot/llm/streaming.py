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
        hung_up = not started and mapped.kind == "unreachable" and closed_unanswered(error)
        if (opened or hung_up) and not started and mapped.kind == "unreachable":
            mapped = ModelError(
                f"The model server at {where} took the request, then closed the stream "
                "without an answer.",
                "interrupted",
                empty=True,
            )
        raise mapped from error


def closed_unanswered(error: BaseException) -> bool:
    """Whether the server read the request and then closed the connection without an
    answer (llama-cpp-python does that to an over-window stream), rather than never
    being reached: the connection had been made, so it is no "cannot reach".

    By class name: the SDK's transport is ``httpx`` or its fork ``httpx2``.
    """
    cause: BaseException | None = error
    while cause is not None:
        name = type(cause).__name__
        if name in ("RemoteProtocolError", "ReadError"):
            return True
        if name in ("ConnectError", "ConnectTimeout"):
            return False
        cause = cause.__cause__ or cause.__context__
    return False
