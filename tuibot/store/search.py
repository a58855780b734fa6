"""Search across every chat's title and text, fast enough to run on each key typed.

A chat matches when each word of the query (case-insensitive) is in its title or in the
text of its messages. Parsing every line of every chat each time would be far too slow
for a thousand long chats, so each file's raw text is kept lower-cased (refreshed when
its size or mtime changes) and a file is only parsed when every word is in that raw
text; parsing then decides for real (a word may be only in a JSON key) and finds the
line to show.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from tuibot.store.chats import ChatMeta, ChatStore
from tuibot.store.history import content_text

SNIPPET = 80
"""Characters of context shown around the first match."""


@dataclass(frozen=True)
class SearchHit:
    """One matching chat and where the first word was found."""

    meta: ChatMeta
    snippet: str
    """The matching line, cut around the match; the title when only the title matched."""
    message: int | None
    """Index of the message the snippet is from (None: the title)."""


def words_of(query: str) -> list[str]:
    """The query's words, lower-cased; an empty query has none (and matches nothing)."""
    return query.casefold().split()


class ChatSearch:
    """Searches one :class:`ChatStore`; keep one instance so its cache is reused."""

    def __init__(self, store: ChatStore) -> None:
        self.store = store
        self._raw: dict[str, tuple[tuple[int, int], str]] = {}
        """Chat id → ((mtime_ns, size), the file's text lower-cased)."""

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Chats matching every word of ``query``, most recently updated first."""
        words = words_of(query)
        if not words:
            return []
        escaped = [json.dumps(word, ensure_ascii=False)[1:-1] for word in words]
        hits: list[SearchHit] = []
        for meta in self.store.list():
            raw = self._text(meta.id)
            if raw is None or not all(word in raw for word in escaped):
                continue
            hit = _match(meta, self.store.path(meta.id).read_bytes(), words)
            if hit is not None:
                hits.append(hit)
                if len(hits) >= limit:
                    break
        return hits

    def _text(self, chat_id: str) -> str | None:
        """The chat file's lower-cased text, from the cache while the file is unchanged."""
        path = self.store.path(chat_id)
        try:
            stat = os.stat(path)
            stamp = (stat.st_mtime_ns, stat.st_size)
            cached = self._raw.get(chat_id)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            text = path.read_bytes().decode("utf-8", "replace").casefold()
        except OSError:
            self._raw.pop(chat_id, None)
            return None
        self._raw[chat_id] = (stamp, text)
        return text


def _match(meta: ChatMeta, data: bytes, words: list[str]) -> SearchHit | None:
    """A hit if every word is in the title or the messages' text; else None."""
    texts = [meta.title]  # then one entry per message, in order
    for line in data.decode("utf-8", "replace").splitlines()[1:]:
        text = _line_text(line)
        if text is not None:
            texts.append(text)
    folded = [text.casefold() for text in texts]
    if not all(any(word in text for text in folded) for word in words):
        return None
    first = next(i for i, text in enumerate(folded) if words[0] in text)
    shown = texts[first] if len(texts[first]) == len(folded[first]) else folded[first]
    snippet = _snippet(shown, folded[first].index(words[0]))
    return SearchHit(meta, snippet, None if first == 0 else first - 1)


def _line_text(line: str) -> str | None:
    """The text of a stored message line; None for other records and bad lines."""
    try:
        record: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("type") != "message":
        return None
    message = record.get("message")
    return content_text(message.get("content")) if isinstance(message, dict) else None


def _snippet(text: str, at: int) -> str:
    """The line holding position ``at``, cut to about ``SNIPPET`` characters around it."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)]
    at -= start
    if len(line) <= SNIPPET:
        return line.strip()
    left = max(0, at - SNIPPET // 3)
    cut = line[left : left + SNIPPET].strip()
    return ("…" if left else "") + cut + ("…" if left + SNIPPET < len(line) else "")
