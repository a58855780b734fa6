"""Make one request fit the model's window, never dropping the system prompt.

Why in this order: what is cut first is what the model misses least. A tool result
bigger than a share of the window is cut wherever it is; then old tool results (before
the last few turns) are cut to a head and a tail; then — when the caller could not
compact — the oldest turns are left out of the request; and last a single message still
too big is cut in the middle. Every cut says so in the text, and the chat file keeps the
whole message. Turns are left out only at a user message, so each tool call keeps its
result. Pure and quick: it runs before every model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tuibot.agent.messages import history_window, sanitize
from tuibot.agent.tokens import TokenCounter, message_chars, text_size, tools_chars
from tuibot.store.chat_message import ChatMessage

RESULT_SHARE = 0.4
"""The most of the prompt budget one tool result may take."""
KEEP_TURNS = 2
"""Recent turns (from a user message on) whose tool results are kept whole."""
OLD_RESULT_CHARS = 1200
"""What an old tool result is cut to: its head and tail."""
RESULT_MARKER = (
    "\n[… tuibot cut {cut} characters here to fit the model's context window; "
    "the full result is in the chat file …]\n"
)
MESSAGE_MARKER = "\n[… tuibot cut {cut} characters here to fit the model's context window …]\n"


Caps = tuple[int | None, int | None]
"""(most characters of any tool result, of a tool result before the protected turns)."""
_NO_CAPS: Caps = (None, None)


@dataclass(frozen=True)
class Measure:
    """Counts tokens for one model in one chat (the counter's anchor and ratio)."""

    counter: TokenCounter
    model: str
    chat: str

    def tokens(self, chars: int, messages: int) -> int:
        """The request's size in tokens (anchored on the chat's last report)."""
        return self.counter.count(self.model, self.chat, chars, messages)

    def chars_for(self, tokens: int) -> int:
        """About how many characters fit in ``tokens``."""
        return max(int(tokens * self.counter.ratio(self.model)), 0)


@dataclass
class Fitted:
    """A request that fits, and what had to be done to it."""

    messages: list[dict[str, Any]]
    tokens: int
    chars: int
    cut_results: int = 0
    dropped: int = 0
    """Messages of old turns left out of this request (the file keeps them)."""
    cut_messages: int = 0
    over: bool = False
    """Cutting results was not enough: the history had to lose turns (or would have)."""

    @property
    def changed(self) -> bool:
        """Whether anything was cut or left out to make the request fit."""
        return bool(self.over or self.cut_results or self.cut_messages)


def fit_request(
    system_prompt: str,
    tools: Sequence[dict[str, Any]],
    history: Sequence[ChatMessage],
    limit: int,
    budget: int,
    measure: Measure,
    placeholder: bool = False,
) -> Fitted:
    """The system prompt and as much history as fits ``budget`` tokens (see module doc).

    Walks back from the newest message and stops once the budget is spent, so the cost
    follows what is sent, not how long the chat is.
    """
    window = history_window(history, limit)
    fixed = text_size(system_prompt) + tools_chars(tools)
    share = measure.chars_for(int(budget * RESULT_SHARE))
    protected = _protected_start(window)
    start, caps = 0, _NO_CAPS
    choices: tuple[Caps, ...] = ((None, None), (share, None), (share, OLD_RESULT_CHARS))
    for caps in choices:
        start = _first_kept(window, fixed, budget, measure, caps, protected)
        if start == 0:
            break
    fitted = Fitted([], 0, 0, over=start > 0)
    kept = [sanitize(message, placeholder) for message in window[start:]]
    fitted.dropped = start
    _apply_caps(kept, caps, protected - start, fitted)
    sizes = [message_chars(message) for message in kept]
    fitted.chars = fixed + sum(sizes)
    fitted.tokens = measure.tokens(fitted.chars, len(kept) + 1)
    if fitted.tokens > budget:
        _cut_biggest(kept, sizes, measure.chars_for(fitted.tokens - budget), fitted)
        fitted.chars = fixed + sum(sizes)
        fitted.tokens = measure.tokens(fitted.chars, len(kept) + 1)
    fitted.messages = [{"role": "system", "content": system_prompt}, *kept]
    return fitted


def _capped(message: ChatMessage, size: int, caps: Caps, old: bool) -> int:
    """A message's size once the caps are applied to it."""
    if message.get("role") != "tool":
        return size
    share, old_cap = caps
    if share is not None:
        size = min(size, share + len(RESULT_MARKER) + 8)
    if old and old_cap is not None:
        size = min(size, old_cap + len(RESULT_MARKER) + 8)
    return size


def _first_kept(
    window: Sequence[ChatMessage],
    fixed: int,
    budget: int,
    measure: Measure,
    caps: Caps,
    protected: int,
) -> int:
    """Where the request must start for the rest to fit (0: everything fits).

    A start is always a user message, so no tool result loses its call; when even the
    last turn does not fit, it is the last turn's start (its messages get cut instead).
    """
    chars, count = fixed, 1
    for index in range(len(window) - 1, -1, -1):
        message = window[index]
        chars += _capped(message, message_chars(message), caps, index < protected)
        count += 1
        if measure.tokens(chars, count) > budget:
            return _next_user(window, index + 1)
    return 0


def _next_user(window: Sequence[ChatMessage], index: int) -> int:
    """The first user message at or after ``index`` (else the last one: keep a turn)."""
    for at in range(index, len(window)):
        if window[at].get("role") == "user":
            return at
    for at in range(min(index, len(window)) - 1, -1, -1):
        if window[at].get("role") == "user":
            return at
    return max(len(window) - 1, 0)


def _apply_caps(kept: list[dict[str, Any]], caps: Caps, protected: int, fitted: Fitted) -> None:
    """Cut the tool results the caps say are too long, to their head and tail."""
    share, old_cap = caps
    for index, message in enumerate(kept):
        content = message.get("content")
        if message.get("role") != "tool" or not isinstance(content, str):
            continue
        keep = share if share is not None else len(content)
        if index < protected and old_cap is not None:
            keep = min(keep, old_cap)
        if len(content) > keep:
            kept[index] = {**message, "content": cut_middle(content, keep, RESULT_MARKER)}
            fitted.cut_results += 1


def _protected_start(window: Sequence[ChatMessage]) -> int:
    """Index of the user message that opens the last ``KEEP_TURNS`` turns."""
    seen = 0
    for index in range(len(window) - 1, -1, -1):
        if window[index].get("role") == "user":
            seen += 1
            if seen == KEEP_TURNS:
                return index
    return 0


def _cut_biggest(
    window: list[dict[str, Any]], sizes: list[int], excess: int, fitted: Fitted
) -> None:
    """Cut ``excess`` characters from the biggest messages of what is left."""
    for index in sorted(range(len(window)), key=lambda i: -sizes[i]):
        if excess <= 0:
            return
        content = window[index].get("content")
        if not isinstance(content, str) or len(content) < 400:
            continue
        keep = max(len(content) - excess - len(MESSAGE_MARKER) - 16, 200)
        marker = RESULT_MARKER if window[index].get("role") == "tool" else MESSAGE_MARKER
        window[index] = {**window[index], "content": cut_middle(content, keep, marker)}
        excess -= sizes[index] - message_chars(window[index])
        sizes[index] = message_chars(window[index])
        fitted.cut_messages += 1


def cut_middle(text: str, keep: int, marker: str = MESSAGE_MARKER) -> str:
    """``text`` with its middle replaced by ``marker`` so about ``keep`` characters stay.

    Two thirds of what stays is the head (where results say what they are), a third the
    tail (where errors and totals usually are).
    """
    if len(text) <= keep:
        return text
    head = keep * 2 // 3
    tail = keep - head
    cut = len(text) - head - tail
    return text[:head] + marker.format(cut=cut) + (text[-tail:] if tail else "")
