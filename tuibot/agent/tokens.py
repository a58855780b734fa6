"""How many tokens a request takes, known before it is sent.

Why not a tokenizer: each local model has its own, and loading one costs start-up time.
The server tells the truth after each call (``prompt_tokens``), so the count of the next
request is the previous call's reported size plus an estimate of what was added since,
and the characters-per-token ratio behind that estimate is learnt per model from those
same reports. Until a model has reported, a conservative ratio is assumed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tuibot.store.chat_message import ChatMessage

START_RATIO = 3.2
"""Characters per token assumed before a model has reported (English prose is ~4, code
and JSON ~3: erring low makes the estimate high, which is the safe side)."""
MESSAGE_OVERHEAD = 5
"""Tokens a chat template adds around each message (role markers, separators; measured
5–6 for ChatML against llama.cpp)."""
WIDE_WEIGHT = 1.75
"""Character-equivalents each UTF-8 byte beyond the first of a character adds. Byte-level
tokenizers spend more tokens on CJK than on English per character (measured: SmolLM2
1.3–1.4 tokens a CJK character against ~4 English characters a token; o200k about 1), so
a CJK character (3 bytes) counts as 4.5 characters: 1.2–1.4 tokens at 3.2–3.8 a token."""
MOST_CHARS_PER_TOKEN = 6.0
"""No tokenizer packs more than this; a report implying more counted part of the prompt
(Ollama's ``prompt_eval_count`` leaves out a cached prefix) and is not learnt from."""
IMAGE_TOKENS = 1024
"""What one image costs, estimated: vision encoders differ (OpenAI's 1024×1024 image in
high detail is 765 tokens, LLaVA-1.5's 576, Qwen2-VL's about 1,300 at that size), so a
round figure near the middle; see docs/context.md."""
IMAGE_CHARS = int(IMAGE_TOKENS * START_RATIO)
"""An image as characters, the unit the estimate works in."""
_IMAGE_PARTS = ("image_url", "tuibot_image", "input_image")
_SMOOTHING = 0.5
"""Weight of the newest report in the learnt ratio."""


def message_chars(message: ChatMessage | dict[str, Any]) -> int:
    """Characters of a message that reach the model: content and tool calls."""
    content = message.get("content")
    size = text_size(content) if isinstance(content, str) else _parts_chars(content)
    if isinstance(content, str):  # a stored message: its attachments are added when sent
        size += _attachments_chars(message.get("attachments"))
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):  # no framing: some templates render no calls at all
            size += len(str(function.get("name") or "")) + text_size(str(function.get("arguments")))
    return size


def text_size(text: str) -> int:
    """``text``'s length in character-equivalents: wide characters weigh more."""
    if text.isascii():
        return len(text)
    return len(text) + int((len(text.encode("utf-8", "surrogatepass")) - len(text)) * WIDE_WEIGHT)


def _parts_chars(content: Any) -> int:
    """Characters of list-shaped content: text parts, and images at their estimate."""
    if not isinstance(content, list):
        return 0
    size = 0
    for part in content:
        if isinstance(part, dict):
            image = part.get("type") in _IMAGE_PARTS
            size += IMAGE_CHARS if image else text_size(str(part.get("text", "")))
    return size


def _attachments_chars(refs: Any) -> int:
    """Characters the attachments of a stored message add once expanded for sending."""
    size = 0
    for ref in refs if isinstance(refs, list) else ():
        if not isinstance(ref, dict):
            continue
        if ref.get("kind") == "image":
            size += IMAGE_CHARS
        else:  # a text file or a transcript, fenced under a title line
            size += text_size(str(ref.get("text", ""))) + len(str(ref.get("name", ""))) + 40
    return size


def tools_chars(tools: Sequence[dict[str, Any]]) -> int:
    """Characters of the tool schemas as the server renders them into the prompt."""
    return len(json.dumps(list(tools), separators=(",", ":"))) if tools else 0


@dataclass
class _Anchor:
    """The last report of one chat: that many characters were that many tokens."""

    chars: int
    messages: int
    tokens: int


class TokenCounter:
    """Counts requests per model; one per process, fed every call's reported usage."""

    def __init__(self) -> None:
        self._ratios: dict[str, float] = {}
        self._anchors: dict[tuple[str, str], _Anchor] = {}

    def ratio(self, model: str) -> float:
        """Characters per token learnt for the model (the start ratio before any report)."""
        return self._ratios.get(model, START_RATIO)

    def tokens(self, model: str, chars: int, messages: int) -> int:
        """Tokens of ``chars`` characters over ``messages`` messages, estimated."""
        return int(chars / self.ratio(model)) + MESSAGE_OVERHEAD * messages

    def count(self, model: str, chat: str, chars: int, messages: int) -> int:
        """A request's size: the chat's last reported size plus an estimate of the rest.

        When the request is smaller than the last one (cut or compacted), the anchor
        says nothing about it and the plain estimate is used.
        """
        anchor = self._anchors.get((model, chat))
        if anchor is None or chars < anchor.chars or messages < anchor.messages:
            return self.tokens(model, chars, messages)
        return anchor.tokens + self.tokens(model, chars - anchor.chars, messages - anchor.messages)

    def report(self, model: str, chat: str, chars: int, messages: int, tokens: int) -> None:
        """The server counted ``tokens`` for a request of ``chars`` characters: learn."""
        if tokens <= 0 or chars <= 0:
            return
        text_tokens = max(tokens - MESSAGE_OVERHEAD * messages, 1)
        seen = chars / text_tokens
        if seen > MOST_CHARS_PER_TOKEN:
            return  # a count of only the uncached part (Ollama), not of the whole prompt
        seen = max(seen, 1.0)
        old = self._ratios.get(model)
        self._ratios[model] = seen if old is None else old + _SMOOTHING * (seen - old)
        self._anchors[(model, chat)] = _Anchor(chars, messages, tokens)

    def forget(self, model: str, chat: str) -> None:
        """Drop a chat's anchor (its last report was of a truncated prompt)."""
        self._anchors.pop((model, chat), None)
