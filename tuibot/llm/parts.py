"""The pieces a streamed model answer is made of, independent of the provider."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class TextPart:
    """A piece of answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    """A piece of reasoning (``reasoning_content`` or ``reasoning`` on the delta)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """A fragment of a tool call; fragments with one ``index`` form one call."""

    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class UsagePart:
    """Token counts, usually in the stream's last chunk."""

    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True, slots=True)
class FinishPart:
    """Why the model stopped (``stop``, ``tool_calls``, ``length``, ...)."""

    reason: str


StreamPart = TextPart | ReasoningPart | ToolCallPart | UsagePart | FinishPart


class ModelClient(Protocol):
    """What the agent loop needs from a provider."""

    def stream(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        params: dict[str, Any],
    ) -> AsyncIterator[StreamPart]:
        """Stream one chat completion; raises ModelError on failure."""
        ...

    async def list_models(self) -> list[str]:
        """The model ids the server offers (a short probe for ``doctor``)."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


def parts_from_chunk(chunk: Any) -> list[StreamPart]:
    """Turn one OpenAI-shaped chunk (from either library) into parts.

    Reasoning arrives under ``reasoning_content`` (DeepSeek, vLLM, litellm) or
    ``reasoning`` (Ollama, OpenRouter); the SDK keeps such unknown fields as attributes.
    """
    try:
        return _parts(chunk)
    except (AttributeError, TypeError) as error:
        raise ValueError(f"malformed chunk: {error}") from error


def _parts(chunk: Any) -> list[StreamPart]:
    """The parts of one chunk; a field of the wrong type is a TypeError."""
    parts: list[StreamPart] = []
    for choice in chunk.choices or ():
        delta = choice.delta
        if delta is not None:
            reasoning = _reasoning(delta)
            if reasoning:
                parts.append(ReasoningPart(_text(reasoning)))
            if delta.content:
                parts.append(TextPart(_text(delta.content)))
            for call in delta.tool_calls or ():
                function = call.function
                parts.append(
                    ToolCallPart(
                        index=_count(call.index) if call.index is not None else 0,
                        id=_text(call.id) if call.id else None,
                        name=_text(function.name) if function and function.name else None,
                        arguments=_text(function.arguments or "") if function else "",
                    )
                )
        if choice.finish_reason:
            parts.append(FinishPart(_text(choice.finish_reason)))
    usage = getattr(chunk, "usage", None)
    if usage is not None and (usage.prompt_tokens or usage.completion_tokens):
        parts.append(
            UsagePart(_count(usage.prompt_tokens or 0), _count(usage.completion_tokens or 0))
        )
    return parts


def _reasoning(delta: Any) -> Any:
    """The delta's reasoning field, if any, read without a failed attribute lookup.

    On the SDK's pydantic models a field the server did not send is a missing attribute,
    and ``getattr(…, default)`` pays for raising and catching AttributeError: two per
    chunk were the dearest part of tuibot's per-token path (~10 µs each). Declared fields
    are in the instance ``__dict__``, unknown ones in ``__pydantic_extra__``; other chunk
    objects (litellm's, tests' fakes) are asked the plain way.
    """
    extra = getattr(delta, "__pydantic_extra__", None)
    if not isinstance(extra, dict):
        return getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
    declared = getattr(delta, "__dict__", {})
    for name in ("reasoning_content", "reasoning"):
        value = declared.get(name) or extra.get(name)
        if value:
            return value
    return None


def _text(value: Any) -> str:
    """A field that must be a string (servers that answer garbage send anything)."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _count(value: Any) -> int:
    """A field that must be a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"expected a count, got {value!r}")
    return value
