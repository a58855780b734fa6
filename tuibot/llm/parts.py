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
    parts: list[StreamPart] = []
    for choice in chunk.choices or ():
        delta = choice.delta
        if delta is not None:
            reasoning = getattr(delta, "reasoning_content", None) or getattr(
                delta, "reasoning", None
            )
            if isinstance(reasoning, str) and reasoning:
                parts.append(ReasoningPart(reasoning))
            if delta.content:
                parts.append(TextPart(delta.content))
            for call in delta.tool_calls or ():
                function = call.function
                parts.append(
                    ToolCallPart(
                        index=call.index if call.index is not None else 0,
                        id=call.id or None,
                        name=(function.name or None) if function else None,
                        arguments=(function.arguments or "") if function else "",
                    )
                )
        if choice.finish_reason:
            parts.append(FinishPart(str(choice.finish_reason)))
    usage = getattr(chunk, "usage", None)
    if usage is not None and (usage.prompt_tokens or usage.completion_tokens):
        parts.append(UsagePart(usage.prompt_tokens or 0, usage.completion_tokens or 0))
    return parts
