"""One model call of a turn: the request, the stream, and the tool calls it produced.

Kept apart from :mod:`tuibot.agent.loop` (rounds, tools, results) because what one call
sends and reads is its own set of rules: the history as servers accept it, the tools
natively or — for a server that refuses them — in the prompt, call ids unique in the chat,
calls written as text, and one trace record per call.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tuibot.agent.calls import CallAccumulator, PendingCall, new_call_id
from tuibot.agent.messages import for_model
from tuibot.agent.prepare import (
    learn_from_usage,
    learn_overflow,
    overflow_message,
    overflowed,
    plan_context,
    prepare,
)
from tuibot.attachments.request import has_images, resolve_images, takes_images
from tuibot.events import Notice, ReasoningDelta, TextDelta, Usage
from tuibot.llm.caching import apply_cache_control
from tuibot.llm.errors import ModelError
from tuibot.llm.parts import FinishPart, ReasoningPart, TextPart, ToolCallPart, UsagePart
from tuibot.llm.pricing import cost_micros
from tuibot.llm.prompt_tools import refuses_tools, tools_in_prompt
from tuibot.llm.text_tools import TextCallStream, offered_tools
from tuibot.store.chat_message import ChatMessage
from tuibot.system.secrets import redact

if TYPE_CHECKING:
    from tuibot.agent.loop import Turn

EMPTY_RETRIES = 3
"""Retries after an overflow. A refusal that names the window is retried once; an empty
answer names nothing, so the assumed window is halved up to this many times."""
SMALLEST_GUESS = 512
"""Below this window, halving again would not help: the error is said instead."""

log = logging.getLogger("tuibot.agent")


@dataclass
class RoundResult:
    """What one model call produced."""

    text: str = ""
    reasoning: str = ""
    calls: list[PendingCall] = field(default_factory=list)
    finish: str | None = None
    usage: Usage = field(default_factory=Usage)
    error: ModelError | None = None
    overflow: str | None = None
    """Set when the request was too big for the window even after fitting it again."""


async def model_round(turn: Turn) -> RoundResult:
    """One model call; a server that refuses ``tools`` is asked again with them in the prompt.

    A server that refuses the request's size (or answers it with nothing) is asked once
    more, after the window is learnt from its error and the chat fitted to it.
    """
    prompted = turn.prompt_tools.refused(turn.route.provider, turn.route.model)
    result = await _stream_round(turn, prompted)
    if result.error is not None and not prompted and refuses_tools(result.error):
        _switch_to_prompt_tools(turn, result.error)
        result = await _stream_round(turn, prompted=True)
    if overflowed(turn, result.error, _had_output(result)):
        error = result.error
        for attempt in range(EMPTY_RETRIES):
            window = learn_overflow(turn, error)
            log.warning("request too big for the window; retrying with %s tokens", window.tokens)
            result = await _stream_round(turn, prompted)
            if not _too_big(turn, result):
                return result
            named = error is not None and not error.empty  # the refusal said the window
            if named or attempt == EMPTY_RETRIES - 1 or window.tokens <= SMALLEST_GUESS:
                break
            error = result.error if result.error is not None else error
        result.overflow = overflow_message(turn, result.error or error)
    return result


def _too_big(turn: Turn, result: RoundResult) -> bool:
    """Whether a retry after an overflow failed for size again: refused, or (the server
    said no number) answered with nothing at all."""
    if _had_output(result):
        return False
    if overflowed(turn, result.error, False):
        return True
    return result.error is None or result.error.empty


def _had_output(result: RoundResult) -> bool:
    """Whether the call produced anything (then it was no refusal for size)."""
    return bool(result.text or result.reasoning or result.calls or result.finish)


async def _request(turn: Turn, prompted: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages and tools of the next call (tools in the prompt when ``prompted``)."""
    provider = turn.route.provider
    placeholder = provider.tool_call_placeholder and not prompted
    tools = turn.tools.definitions(turn.allowed_tools)
    if turn.context is None:
        messages = for_model(turn.system_prompt, turn.history, turn.history_limit, placeholder)
    else:
        messages = (await prepare(turn, tools, placeholder)).messages
    vision = takes_images(provider.vision, provider.vision_models, turn.route.model)
    if not vision and turn.sees_images is not None and has_images(messages):
        vision = await turn.sees_images()  # asked only when an image would be sent
    messages = resolve_images(messages, turn.scope.workspace, vision, turn.route.model, turn.kept)
    if prompted:
        messages, tools = tools_in_prompt(messages, tools), []
    if provider.prompt_caching:
        messages, tools = apply_cache_control(messages, tools)
    return messages, tools


def _switch_to_prompt_tools(turn: Turn, error: ModelError) -> None:
    """Remember that the provider takes no ``tools`` field, and say so once."""
    name = turn.route.provider.name
    log.warning("provider %s refused native tools: %s", name, error)
    if not turn.prompt_tools.remember(turn.route.provider, turn.route.model):
        return  # another chat switched it meanwhile and said so
    message = (
        f"{redact(str(error))}\nThe server takes no native tool calls, so from now on (for "
        f"a day) tuibot describes the tools to model '{turn.route.model}' on provider "
        f"'{name}' in the prompt and reads "
        "the calls from the answer text."
    )
    turn.emit(Notice(turn.chat, "warning", message))


async def _stream_round(turn: Turn, prompted: bool) -> RoundResult:
    """Stream one model call, emitting deltas as they arrive."""
    messages, tools = await _request(turn, prompted)
    plan_context(turn)
    params = dict(turn.params)
    result, calls = RoundResult(), CallAccumulator()
    reads_text = turn.route.provider.text_tool_calls or prompted
    offered = offered_tools(turn.tools.definitions(turn.allowed_tools)) if reads_text else {}
    texts = TextCallStream(offered) if reads_text else None
    started = time.monotonic()
    first_token: float | None = None
    try:
        async for part in turn.client.stream(turn.route.model, messages, tools, params):
            if isinstance(part, TextPart):
                first_token = first_token or time.monotonic()
                turn.partial += part.text
                _show(turn, texts.feed(part.text) if texts else part.text)
            elif isinstance(part, ReasoningPart):
                first_token = first_token or time.monotonic()
                turn.partial_reasoning += part.text
                turn.emit(ReasoningDelta(turn.chat, turn.turn_id, part.text))
            elif isinstance(part, ToolCallPart):
                calls.add(part)
            elif isinstance(part, UsagePart):
                result.usage = _priced(turn, part)
                learn_from_usage(turn, part.prompt_tokens)
            elif isinstance(part, FinishPart):
                result.finish = part.reason
    except ModelError as error:
        log.warning("model call failed: %s", error, exc_info=error.__cause__ or error)
        result.error = error
    result.text, result.reasoning = turn.partial, turn.partial_reasoning
    result.calls = calls.finish(taken=_call_ids(turn.history))
    if texts is not None:
        _show(turn, texts.finish())
        if not result.calls and result.finish:
            result.text = texts.prose
            result.calls = [PendingCall(new_call_id(), c.name, c.arguments) for c in texts.calls]
    _trace_model_call(turn, result, started, first_token)
    return result


def _show(turn: Turn, text: str) -> None:
    """Emit answer text, unless there is none to show yet (held back as a possible call)."""
    if text:
        turn.emit(TextDelta(turn.chat, turn.turn_id, text))


def _call_ids(history: list[ChatMessage]) -> set[str]:
    """The ids of every tool call already in the history (a new call must not reuse one)."""
    return {
        call["id"]
        for message in history
        for call in message.get("tool_calls") or ()
        if isinstance(call, dict) and isinstance(call.get("id"), str)
    }


def _trace_model_call(
    turn: Turn, result: RoundResult, started: float, first_token: float | None
) -> None:
    """One model call's record in the turn's trace."""
    turn.trace["model_calls"].append(
        {
            "model": turn.route.model,
            "provider": turn.route.provider.name,
            "duration_s": round(time.monotonic() - started, 4),
            "first_token_s": round(first_token - started, 4) if first_token else None,
            "finish_reason": result.finish,
            "usage": result.usage.as_dict(),
            "error": str(result.error) if result.error else None,
        }
    )


def _priced(turn: Turn, part: UsagePart) -> Usage:
    """Usage with its cost from the provider's price."""
    cost = cost_micros(
        turn.route.provider, turn.route.model, part.prompt_tokens, part.completion_tokens
    )
    return Usage(part.prompt_tokens, part.completion_tokens, cost)
