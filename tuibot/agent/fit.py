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
from tuibot.agent.tokens import TokenCounter, message_chars, tools_chars

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
    history: Sequence[dict[str, Any]],
    limit: int,
    budget: int,
    measure: Measure,
    placeholder: bool = False,
) -> Fitted:
    """The system prompt and as much history as fits ``budget`` tokens (see module doc)."""
    window = [sanitize(message, placeholder) for message in history_window(history, limit)]
    fixed = len(system_prompt) + tools_chars(tools)
    sizes = [message_chars(message) for message in window]
    fitted = Fitted(window, 0, 0)

    def size() -> int:
        fitted.chars = fixed + sum(sizes)
        fitted.tokens = measure.tokens(fitted.chars, len(window) + 1)
        return fitted.tokens

    if size() > budget:
        _cut_results(window, sizes, measure.chars_for(int(budget * RESULT_SHARE)), 0, fitted)
    if size() > budget:
        protected = _protected_start(window)
        _cut_results(window, sizes, OLD_RESULT_CHARS, 0, fitted, only_before=protected)
    if size() > budget:
        fitted.over = True
        while size() > budget and (start := _next_turn(window)):
            fitted.dropped += start
            del window[:start], sizes[:start]
    if size() > budget:
        _cut_biggest(window, sizes, measure.chars_for(size() - budget), fitted)
        size()
    fitted.messages = [{"role": "system", "content": system_prompt}, *window]
    return fitted


def _protected_start(window: list[dict[str, Any]]) -> int:
    """Index of the user message that opens the last ``KEEP_TURNS`` turns."""
    users = [i for i, message in enumerate(window) if message.get("role") == "user"]
    return users[-KEEP_TURNS] if len(users) >= KEEP_TURNS else 0


def _cut_results(
    window: list[dict[str, Any]],
    sizes: list[int],
    keep: int,
    start: int,
    fitted: Fitted,
    only_before: int | None = None,
) -> None:
    """Cut tool results longer than ``keep`` characters to their head and tail."""
    end = len(window) if only_before is None else only_before
    for index in range(start, end):
        message = window[index]
        content = message.get("content")
        if message.get("role") != "tool" or not isinstance(content, str) or len(content) <= keep:
            continue
        window[index] = {**message, "content": cut_middle(content, keep, RESULT_MARKER)}
        sizes[index] = message_chars(window[index])
        fitted.cut_results += 1


def _next_turn(window: list[dict[str, Any]]) -> int:
    """Where the second turn starts (0 when only one turn is left: nothing to drop)."""
    for index, message in enumerate(window[1:], start=1):
        if message.get("role") == "user":
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
