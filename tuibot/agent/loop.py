"""One turn of the agent loop: stream, run the requested tools, feed results back, repeat.

Everything the loop touches arrives in a :class:`Turn`, so it runs the same under the
TUI, ``ask`` and tests. Durability is the caller's ``persist``: the loop calls it with
each assistant message and each tool result before the next model call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.agent.calls import PendingCall, parse_arguments
from tuibot.agent.model_call import RoundResult, model_round
from tuibot.agent.repeats import REFUSED, STOPPED, RepeatGuard
from tuibot.events import (
    Event,
    Notice,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStatus,
    Usage,
)
from tuibot.llm.parts import ModelClient
from tuibot.llm.select import Route
from tuibot.llm.tool_refusals import ToolRefusals
from tuibot.store.chat_message import ChatMessage
from tuibot.store.history import INTERRUPTED_RESULT, interrupted_result
from tuibot.system.secrets import redact
from tuibot.toolkit.registry import ERROR_HINT, ToolRegistry, ToolResult
from tuibot.toolkit.scope import ToolScope, use_scope
from tuibot.toolkit.validate import validate_arguments

if TYPE_CHECKING:
    from tuibot.agent.prepare import TurnContext
    from tuibot.approvals.permissions import Permission

ROUND_LIMIT = (
    "I've reached my limit of {rounds} model calls for this turn. "
    "Tell me to continue, or simplify the request."
)
CUT_OFF_CALL = "Error: the answer hit the token limit before this call's arguments were complete."

DENIED_HINT = "Do not retry this call unless the user asks for it."

Approver = Callable[[str, str, dict[str, Any], "Permission"], Awaitable[tuple[bool, str]]]
"""(call id, tool name, arguments, what is asked) -> (allowed, reason)."""
"""(call_id, tool name, arguments, prompt) -> (allowed, reason)."""


StepHook = Callable[["Turn"], Awaitable[list[ChatMessage]]]
"""Runs before every model call. It may wait (work paused at a limit, until a human
decides) and returns messages that arrived for this chat meanwhile, already stored, for
the loop to add to the history the call sees. To stop the turn, cancel its task."""

ToolsHook = Callable[["Turn"], Awaitable[None]]
"""Runs before the tool calls of an answer run. It may wait: an answer that came back
while the work was paused is used only once a person allows it to go on."""

UsageHook = Callable[[Usage], None]
"""Told the usage (tokens, cost) of each finished model call, for limits and budgets."""


@dataclass
class Turn:
    """All a turn needs; built by the engine for each input."""

    chat: str
    turn_id: str
    bot: str
    route: Route
    client: ModelClient
    params: dict[str, Any]
    system_prompt: str
    history: list[ChatMessage]
    """Repaired history including the user's new message; the loop appends to it."""
    tools: ToolRegistry
    allowed_tools: list[str] | None
    max_rounds: int
    history_limit: int
    scope: ToolScope
    """Workspace and policy the turn's tools run under."""
    persist: Callable[[list[ChatMessage]], None]
    emit: Callable[[Event], None]
    approve: Approver
    trace: dict[str, Any] = field(default_factory=dict)
    before_step: StepHook | None = None
    on_usage: UsageHook | None = None
    before_tools: ToolsHook | None = None
    partial: str = ""
    """Answer text of the round now streaming (kept if the turn is cancelled)."""
    partial_reasoning: str = ""
    answer: str = ""
    """Everything the model said this turn, across finished rounds (kept on cancel)."""
    rounds: int = 0
    """Model calls started so far (read it for a turn that was cancelled)."""
    repeats: RepeatGuard | None = None
    """The identical-call guard of a chat with no delegated work to pause (None: off)."""
    kept: Path | None = None
    """tuibot's folder of images tools returned; their references are read only there."""
    sees_images: Callable[[], Awaitable[bool]] | None = None
    """Whether the model takes images when the config does not say (its server's word)."""
    context: TurnContext | None = None
    """The chat's context window, counting and compaction; None sends the plain history
    window (``history_limit`` messages) as older code did."""
    prompt_tools: ToolRefusals = field(default_factory=ToolRefusals)
    """Servers found to refuse native ``tools``: their tools go in the prompt. The engine
    shares one book with every turn and keeps it on disk, so a server is switched once."""


async def run_turn(turn: Turn) -> TurnFinished:
    """Run the loop to an answer, an error, or the round limit (cancellation propagates)."""
    total = Usage()
    turn.trace.setdefault("model_calls", [])
    turn.trace.setdefault("tool_calls", [])
    try:
        for _ in range(turn.max_rounds):
            if turn.before_step is not None:
                turn.history.extend(await turn.before_step(turn))
            turn.rounds += 1
            result = await model_round(turn)
            total += result.usage
            if turn.on_usage is not None:
                turn.on_usage(result.usage)
            if result.error is not None or result.finish is None:
                return _interrupted(turn, result, total, turn.answer + result.text)
            turn.answer += result.text
            message = _assistant_message(turn, result)
            turn.partial = turn.partial_reasoning = ""
            _keep(turn, message)
            if not result.calls:
                if result.finish == "length":
                    turn.emit(Notice(turn.chat, "warning", "The answer hit the token limit."))
                return TurnFinished(
                    turn.chat,
                    turn.turn_id,
                    "completed",
                    turn.answer,
                    total,
                    rounds=turn.rounds,
                    context=_context(turn),
                )
            verdict = turn.repeats.check(result.calls) if turn.repeats is not None else "run"
            if verdict == "stop":
                return _stopped_repeating(turn, result.calls, total)
            if verdict == "refuse":
                _refuse_repeats(turn, result.calls)
                continue
            if turn.before_tools is not None:
                await turn.before_tools(turn)
            await _run_calls(turn, result.calls, cut_off=result.finish == "length")
    except asyncio.CancelledError:
        _keep_partial(turn, "interrupted")
        raise
    text = ROUND_LIMIT.format(rounds=turn.max_rounds)
    _keep(turn, _tagged(turn, {"role": "assistant", "content": text, "status": "round_limit"}))
    turn.emit(TextDelta(turn.chat, turn.turn_id, text))
    return TurnFinished(
        turn.chat,
        turn.turn_id,
        "round_limit",
        turn.answer + text,
        total,
        error=text,
        rounds=turn.rounds,
        context=_context(turn),
    )


def _refuse_repeats(turn: Turn, calls: list[PendingCall]) -> None:
    """Answer repeated calls without running them, so the model sees it repeats itself."""
    assert turn.repeats is not None
    text = REFUSED.format(count=turn.repeats.count)
    for call in calls:
        arguments = parse_arguments(call.arguments).value or {}
        turn.emit(ToolStarted(turn.chat, turn.turn_id, call.id, call.name, arguments))
        _keep(turn, _tagged(turn, _tool_message(call, text)))
        turn.emit(ToolFinished(turn.chat, turn.turn_id, call.id, call.name, False, text, 0.0))


def _stopped_repeating(turn: Turn, calls: list[PendingCall], total: Usage) -> TurnFinished:
    """End the turn: the model sent the refused calls once more."""
    names = ", ".join(sorted({call.name for call in calls}))
    for call in calls:  # every call gets its result, so the history stays well formed
        _keep(turn, _tagged(turn, _tool_message(call, "Not run: the turn was stopped.")))
    text = STOPPED.format(names=names)
    turn.emit(Notice(turn.chat, "warning", f"stopped a loop: the same {names} call again"))
    _keep(turn, _tagged(turn, {"role": "assistant", "content": text, "status": "loop"}))
    turn.emit(TextDelta(turn.chat, turn.turn_id, text))
    return TurnFinished(
        turn.chat, turn.turn_id, "round_limit", turn.answer + text, total,
        error=text, rounds=turn.rounds, context=_context(turn),
    )  # fmt: skip


def _tool_message(call: PendingCall, content: str, images: tuple[Any, ...] = ()) -> ChatMessage:
    message: ChatMessage = {"role": "tool", "tool_call_id": call.id, "name": call.name}
    message["content"] = content
    if images:  # references to kept images (never base64), see attachments/kept.py
        message["attachments"] = [dict(ref) for ref in images]
    return message


def _context(turn: Turn) -> dict[str, int] | None:
    """The last request's size against the window, when the turn measured it."""
    return turn.context.usage() if turn.context is not None else None


def _tagged(turn: Turn, message: ChatMessage) -> ChatMessage:
    """A message stamped with its turn and bot (stored, never sent)."""
    return {**message, "turn": turn.turn_id, "bot": turn.bot}


def _keep(turn: Turn, message: ChatMessage) -> None:
    """Make a message durable, then add it to the history the next call sees."""
    turn.persist([message])
    turn.history.append(message)


def _assistant_message(turn: Turn, result: RoundResult) -> ChatMessage:
    """The stored form of a finished model call."""
    message: ChatMessage = {"role": "assistant", "content": result.text}
    if result.reasoning:
        message["reasoning"] = result.reasoning
    if result.calls:
        calls: list[dict[str, Any]] = []
        raw: dict[str, str] = {}
        for call in result.calls:  # the JSON that runs is what is stored and replayed
            parsed = parse_arguments(call.arguments)
            function = {"name": call.name, "arguments": parsed.replay}
            calls.append({"id": call.id, "type": "function", "function": function})
            if parsed.repaired or parsed.value is None:
                raw[call.id] = call.arguments
        message["tool_calls"] = calls
        if raw:
            message["raw_arguments"] = raw  # what the model sent, for people; never sent
    message["usage"] = result.usage.as_dict()
    return _tagged(turn, message)


def _keep_partial(turn: Turn, status: str) -> None:
    """Store what streamed before an interruption, marked, with no tool calls."""
    if turn.partial or turn.partial_reasoning:
        message: ChatMessage = {"role": "assistant", "content": turn.partial, "status": status}
        if turn.partial_reasoning:
            message["reasoning"] = turn.partial_reasoning
        _keep(turn, _tagged(turn, message))


def _interrupted(turn: Turn, result: RoundResult, total: Usage, answer: str) -> TurnFinished:
    """End the turn after a failed or cut stream; partial text is kept, no tool runs."""
    error = result.error
    kind = error.kind if error else "interrupted"
    had_output = bool(result.text or result.reasoning or result.calls)
    _keep_partial(turn, "interrupted")
    if result.overflow is not None:
        message = result.overflow
    elif error is None and not had_output:
        where = getattr(turn.client, "where", "the model server")
        message = (
            f"{where} sent no answer tuibot can read "
            "(is base_url an OpenAI-compatible …/v1 endpoint?)"
        )
    elif error is None:
        message = "The model's answer stopped before it was complete."
    elif kind == "interrupted" or had_output:
        message = f"{error} The partial answer was kept."
    else:
        message = str(error)
    message = redact(message)  # a server may echo the key it rejected
    error_kind = kind if kind in ("unreachable", "rejected") and not had_output else None
    if kind == "timeout" and not had_output:
        error_kind = "unreachable"
    status: TurnStatus = "interrupted" if had_output or kind == "interrupted" else "failed"
    if result.overflow is not None:
        status, error_kind = "failed", "rejected"
    turn.emit(Notice(turn.chat, "error", message))
    return TurnFinished(
        turn.chat,
        turn.turn_id,
        status,
        answer,
        total,
        error=message,
        error_kind=error_kind,
        rounds=turn.rounds,
        context=_context(turn),
    )


async def _run_calls(turn: Turn, calls: list[PendingCall], *, cut_off: bool) -> None:
    """Run the calls: in parallel, or one by one when any needs confirmation."""
    if len(calls) == 1 or any(_may_ask(turn, call) for call in calls):
        for call in calls:
            await _run_call(turn, call, cut_off)
    else:  # a TaskGroup: if one fails, none keeps writing after the turn has ended
        async with asyncio.TaskGroup() as group:
            for call in calls:
                group.create_task(_run_call(turn, call, cut_off))


def _may_ask(turn: Turn, call: PendingCall) -> bool:
    """Whether this call could stop for a human's approval."""
    spec = turn.tools.get(call.name)
    if spec is None or not spec.needs_confirmation:
        return False
    arguments = parse_arguments(call.arguments).value
    if arguments is None or validate_arguments(arguments, spec.parameters):
        return False  # refused without asking
    with use_scope(turn.scope):  # a path rule must resolve where the tool will run
        return spec.permission(arguments) is not None


@dataclass
class _RunTime:
    """A call's duration: since it started, less the time it waited for a person."""

    started: float = field(default_factory=time.monotonic)
    waited: float = 0.0

    def seconds(self) -> float:
        """How long the call ran (the tool log shows this, not the wait for approval)."""
        return time.monotonic() - self.started - self.waited


async def _run_call(turn: Turn, call: PendingCall, cut_off: bool) -> None:
    """Parse, confirm, run and record one call; every failure becomes a result."""
    parsed = parse_arguments(call.arguments)
    arguments = parsed.value if parsed.value is not None else {"_raw": call.arguments}
    turn.emit(ToolStarted(turn.chat, turn.turn_id, call.id, call.name, arguments))
    clock = _RunTime()
    try:
        if cut_off:
            result = ToolResult(False, f"{CUT_OFF_CALL}\n\n{ERROR_HINT}")
        elif parsed.value is None:
            result = ToolResult(False, f"Error: {parsed.error}\n\n{ERROR_HINT}")
        else:
            result = await _confirmed_execute(turn, call, parsed.value, clock)
    except asyncio.CancelledError:  # the call gets its result now, not at the next load
        record = interrupted_result(call.id, call.name)
        _keep(turn, _tagged(turn, record))
        turn.emit(
            ToolFinished(
                turn.chat,
                turn.turn_id,
                call.id,
                call.name,
                False,
                INTERRUPTED_RESULT,
                clock.seconds(),
            )
        )
        raise
    result = replace(result, output=redact(result.output))  # a tool may read a key from disk
    duration = clock.seconds()
    _keep(turn, _tagged(turn, _tool_message(call, result.output, result.images)))
    turn.emit(
        ToolFinished(
            turn.chat, turn.turn_id, call.id, call.name, result.ok, result.output, duration
        )
    )
    turn.trace["tool_calls"].append(
        {
            "id": call.id,
            "name": call.name,
            "arguments": arguments,
            "repaired": parsed.repaired,
            "cut": parsed.cut,
            "ok": result.ok,
            "duration_s": round(duration, 4),
            "output_chars": len(result.output),
        }
    )


async def _confirmed_execute(
    turn: Turn, call: PendingCall, arguments: dict[str, Any], clock: _RunTime
) -> ToolResult:
    """Ask for approval when the tool wants it, then run it in the turn's workspace."""
    spec = turn.tools.runnable(call.name)  # disabled or gated: refused, never asked
    valid = spec is not None and not validate_arguments(arguments, spec.parameters)
    # An invalid call is refused by execute; never ask a person to approve it first.
    with use_scope(turn.scope):
        permission = spec.permission(arguments) if spec is not None and valid else None
    if permission is not None:
        asked = time.monotonic()
        try:
            allowed, reason = await turn.approve(call.id, call.name, arguments, permission)
        finally:
            clock.waited += time.monotonic() - asked
        if not allowed:
            return ToolResult(False, f"Denied by the user: {reason}. {DENIED_HINT}")
    with use_scope(replace(turn.scope, call_id=call.id)):
        return await turn.tools.execute(call.name, arguments)
