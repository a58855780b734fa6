"""Before each model call: learn the window, count the request, fit it, compact if needed.

Why a module of its own: the loop and the model call stay about streaming and tools;
everything about the model's context window — where it comes from, when to ask the
server, when to compact, what to learn from a report or a refusal — happens here, on the
:class:`TurnContext` the engine gives each turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tuibot.agent.compact import CompactionError, split_point, summarise, transcript, with_summary
from tuibot.agent.fit import Fitted, Measure, fit_request
from tuibot.agent.tokens import TokenCounter
from tuibot.events import ContextMeasured, Notice, Usage
from tuibot.llm.pricing import cost_micros
from tuibot.llm.windows import NATIVE_KINDS, Window, WindowBook, is_overflow, overflow_window
from tuibot.store.chat_message import ChatMessage
from tuibot.system.secrets import redact

if TYPE_CHECKING:
    from tuibot.agent.loop import Turn
    from tuibot.llm.errors import ModelError

log = logging.getLogger("tuibot.agent")

NEAR_WINDOW = 0.5
"""An empty answer to a request at least this share of the window counts as overflow."""
RETRY_BUDGET = 0.8
"""After a refusal for size the count was too low: the retry aims this much lower."""

StoreCompaction = Callable[[int, str, dict[str, Any]], None]
"""(upto in the chat's messages, summary, facts) -> None: persists a compaction record."""


@dataclass
class TurnContext:
    """What a turn knows about its chat's context; the engine builds one per turn."""

    windows: WindowBook
    counter: TokenCounter
    reserve: int
    auto_compact: bool = True
    summary: str = ""
    """The chat's compaction summary, sent after the system prompt."""
    offset: int = 0
    """How many of the chat's stored messages come before ``turn.history[0]``."""
    store: StoreCompaction | None = None
    window: Window | None = None
    last: Fitted | None = None
    shrink: float = 1.0
    compact_failed: bool = False

    def usage(self) -> dict[str, int] | None:
        """``{"used", "window"}`` of the last request, for ``ask --json``."""
        if self.last is None or self.window is None:
            return None
        return {"used": self.last.tokens, "window": self.window.tokens}


def reply_room(turn: Turn, window: Window) -> int:
    """Tokens kept for the answer: ``max_tokens`` or the reserve, at most a quarter."""
    context = turn.context
    assert context is not None
    asked = turn.params.get("max_tokens") or turn.params.get("max_completion_tokens")
    reserve = asked if isinstance(asked, int) and asked > 0 else context.reserve
    return min(reserve, window.tokens // 4)


def budget(turn: Turn, window: Window) -> int:
    """Tokens the prompt may take: the window less the reply reserve."""
    context = turn.context
    assert context is not None
    return int((window.tokens - reply_room(turn, window)) * context.shrink)


def plan_context(turn: Turn) -> None:
    """Tell a client that sizes the server's window per request (Ollama's ``num_ctx``)
    how many tokens the fitted request and its answer need."""
    plan = getattr(turn.client, "plan_context", None)
    context = turn.context
    if plan is None or context is None or context.last is None or context.window is None:
        return
    window = context.window
    plan(turn.route.model, context.last.tokens + reply_room(turn, window), window.tokens)


def _fit(turn: Turn, window: Window, tools: list[dict[str, Any]], placeholder: bool) -> Fitted:
    """Fit the turn's history to the window as it is known now."""
    context = turn.context
    assert context is not None
    return fit_request(
        with_summary(turn.system_prompt, context.summary),
        tools,
        turn.history,
        turn.history_limit,
        budget(turn, window),
        Measure(context.counter, turn.route.model, turn.chat),
        placeholder,
    )


async def prepare(turn: Turn, tools: list[dict[str, Any]], placeholder: bool) -> Fitted:
    """The next request's messages, fitted (see module docstring)."""
    context = turn.context
    assert context is not None
    provider, model = turn.route.provider, turn.route.model
    window = context.windows.lookup(provider, model)
    fitted = _fit(turn, window, tools, placeholder)
    native = provider.kind in NATIVE_KINDS  # the client knows it: asking costs nothing
    if not window.known and (fitted.changed or native):  # only now does the window matter
        window = await context.windows.discover(provider, model)
        if not window.known and context.windows.first_default(provider, model):
            _say_default(turn, window)
        fitted = _fit(turn, window, tools, placeholder)
    compacting = fitted.over and context.auto_compact and not context.compact_failed
    if compacting and await compact(turn, window):
        fitted = _fit(turn, window, tools, placeholder)
    context.window, context.last = window, fitted
    turn.emit(ContextMeasured(turn.chat, fitted.tokens, window.tokens, window.known))
    return fitted


def _say_default(turn: Turn, window: Window) -> None:
    """Say, once per model, that its window is assumed."""
    name = turn.route.provider.name
    turn.emit(
        Notice(
            turn.chat,
            "info",
            f"The context window of model {turn.route.model!r} is unknown (the server does "
            f"not report it); tuibot assumes {window.tokens} tokens. Set "
            f"providers.{name}.context_window to the real size.",
        )
    )


@dataclass
class CompactTarget:
    """What compaction needs of a turn, for ``/compact`` between turns (a Turn has it all)."""

    chat: str
    route: Any
    client: Any
    params: dict[str, Any]
    history: list[ChatMessage]
    context: TurnContext
    emit: Callable[[Any], None]
    on_usage: Callable[[Usage], None] | None = None


async def compact_now(target: CompactTarget, instructions: str) -> tuple[bool, str]:
    """``/compact``: summarise all but the last turns now; (done, what to tell a person)."""
    context = target.context
    window = await context.windows.discover(target.route.provider, target.route.model)
    context.auto_compact = True
    if not await compact(target, window, instructions):  # type: ignore[arg-type]
        if context.compact_failed:
            return False, "Compaction failed; the chat is unchanged (see the warning)."
        return False, "Nothing to compact yet: the chat has only its last turns."
    return True, "Compacted the chat; the model now sees a summary of the older turns."


async def compact(turn: Turn, window: Window, instructions: str = "") -> bool:
    """Summarise the older turns into the chat's summary; False (and no change) on failure."""
    context = turn.context
    assert context is not None
    upto = split_point(turn.history)
    if upto == 0:
        return False
    measure = Measure(context.counter, turn.route.model, turn.chat)
    room = measure.chars_for(budget(turn, window)) - 2000
    text = transcript(turn.history[:upto], context.summary, room)
    try:
        summary, prompt, completion = await summarise(
            turn.client, turn.route.model, turn.params, text, instructions
        )
        facts = {"messages": upto, "prompt_tokens": prompt, "completion_tokens": completion}
        if context.store is not None:
            context.store(context.offset + upto, summary, facts)
    except (CompactionError, OSError) as error:  # StorageError is an OSError too
        context.compact_failed = True
        message = f"Compaction failed and the chat is unchanged: {redact(str(error))}"
        turn.emit(Notice(turn.chat, "warning", message))
        return False
    del turn.history[:upto]
    context.offset += upto
    context.summary = summary
    cost = cost_micros(turn.route.provider, turn.route.model, prompt, completion)
    if turn.on_usage is not None:
        turn.on_usage(Usage(prompt, completion, cost))
    turn.emit(
        Notice(
            turn.chat,
            "info",
            f"Compacted {upto} earlier messages into a summary to fit the model's context "
            f"window ({window.tokens} tokens); the summary took {prompt} + {completion} "
            "tokens. The chat file keeps every message.",
        )
    )
    return True


def learn_from_usage(turn: Turn, prompt_tokens: int) -> None:
    """Calibrate the count from the server's report, or catch a silently cut prompt.

    Ollama's OpenAI endpoint cuts an over-long prompt to its window and reports the
    window as ``prompt_tokens``: a round number far below what was sent. That is
    learnt as the window instead of as a ratio.
    """
    context = turn.context
    if context is None or context.last is None or prompt_tokens <= 0:
        return
    sent = context.last
    model = turn.route.model
    if prompt_tokens % 256 == 0 and prompt_tokens >= 1024 and sent.tokens >= 1.3 * prompt_tokens:
        context.counter.forget(model, turn.chat)
        context.window = context.windows.learn(
            turn.route.provider, model, prompt_tokens, "truncation"
        )
        turn.emit(
            Notice(
                turn.chat,
                "warning",
                f"The server cut the prompt (about {sent.tokens} tokens) to {prompt_tokens} "
                "tokens without an error, so the model may have missed the start of the chat. "
                f"tuibot now fits requests to a window of {prompt_tokens} tokens.",
            )
        )
        return
    messages = len(sent.messages)
    context.counter.report(model, turn.chat, sent.chars, messages, prompt_tokens)


def overflowed(turn: Turn, error: ModelError | None, had_output: bool) -> bool:
    """Whether a failed call was the server refusing the request's size."""
    context = turn.context
    if context is None or had_output or context.last is None or context.window is None:
        return False
    if error is not None and not error.empty:
        return error.kind == "rejected" and is_overflow(str(error))
    return context.last.tokens >= context.window.tokens * NEAR_WINDOW  # an empty answer


def learn_overflow(turn: Turn, error: ModelError | None) -> Window:
    """Learn the window from a refusal (or halve the assumed one) and aim lower."""
    context = turn.context
    assert context is not None and context.window is not None
    named = overflow_window(str(error)) if error is not None else None
    tokens = named or max(
        min(context.window.tokens, context.last.tokens if context.last else 0) // 2, 512
    )
    context.shrink = RETRY_BUDGET
    context.window = context.windows.learn(turn.route.provider, turn.route.model, tokens, "error")
    return context.window


def overflow_message(turn: Turn, error: ModelError | None) -> str:
    """What to tell a person when even the retry was too big."""
    context = turn.context
    where = getattr(turn.client, "where", "the model server")
    used = context.last.tokens if context and context.last else 0
    window = context.window.tokens if context and context.window else 0
    said = "refused the request" if error is not None else "sent an empty answer to the request"
    detail = f" ({redact(str(error))})" if error is not None else ""
    return (
        f"The model server at {where} {said}: about {used} tokens, too long for the "
        f"model's context window of {window} tokens{detail}. tuibot fitted the chat to the "
        "window and tried again, and it failed again. Try /compact, a new chat, or set "
        f"providers.{turn.route.provider.name}.context_window to the server's real window."
    )


def context_for(
    loaded: Any,
    windows: WindowBook,
    counter: TokenCounter,
    settings: Any,
    store: StoreCompaction,
) -> TurnContext:
    """A turn's context for a loaded chat: its history starts after consolidation and
    after its latest compaction, whose summary the requests carry."""
    compaction = loaded.compaction
    upto = compaction["upto"] if compaction else 0
    return TurnContext(
        windows,
        counter,
        settings.reply_reserve,
        settings.auto_compact,
        summary=compaction["summary"] if compaction else "",
        offset=max(loaded.consolidated, upto),
        store=store,
    )
