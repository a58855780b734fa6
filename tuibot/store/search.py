"""Search across every chat's title and text, fast enough to run as the person types.

A chat matches when each word of the query (case-insensitive) is in its title or in the
text of its messages. Parsing every chat file per search is far too slow for a thousand
long chats, so each file is read once and kept until it changes (another inode, size or
mtime: an append, a rename, a rewrite). What a search scans is each chat's vocabulary:
its distinct whitespace-separated pieces, case-folded, one per line. A query word has no
whitespace, so it is in the text exactly when it is inside one of those pieces, and the
vocabulary is several times smaller than the text.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from typing import Any

from tuibot.store.chats import (
    ChatMeta,
    ChatStore,
    InvalidChatId,
    meta_from_header,
    validate_chat_id,
)
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
    """Index of the stored message the snippet is from (None: the title)."""


@dataclass(frozen=True)
class _Entry:
    """What one chat file holds, extracted once per version of the file."""

    stamp: tuple[int, int, int]
    """(inode, size, mtime_ns) of the file it was read from."""
    meta: ChatMeta
    texts: list[str]
    """Each stored message's text, for the snippet."""
    vocabulary: str
    """The distinct case-folded pieces of all the texts, one per line."""


def words_of(query: str) -> list[str]:
    """The query's words, case-folded; an empty query has none (and matches nothing)."""
    return query.casefold().split()


class ChatSearch:
    """Searches one :class:`ChatStore`; keep one instance so its cache is reused."""

    def __init__(self, store: ChatStore) -> None:
        self.store = store
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        """Searches may run in threads (the app's): one at a time updates the cache."""

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Chats matching every word of ``query``, most recently updated first.

        Every call brings the cache up to date, so an empty query warms it.
        """
        words = words_of(query)
        with self._lock:
            current = self._current()
        if not words:
            return []
        hits: list[SearchHit] = []
        for entry in sorted(current, key=lambda e: e.stamp[2], reverse=True):
            hit = _match(entry, words)
            if hit is not None:
                hits.append(hit)
                if len(hits) >= limit:
                    break
        return hits

    def _current(self) -> list[_Entry]:
        """An entry per chat file now in the folder, re-read where the file changed."""
        try:
            found = list(os.scandir(self.store.root))
        except FileNotFoundError:
            return []
        entries, seen = [], set()
        for item in found:
            chat_id = item.name.removesuffix(".jsonl")
            if chat_id == item.name or not _is_id(chat_id):
                continue
            try:
                stat = item.stat()
                stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
                entry = self._entries.get(chat_id)
                if entry is None or entry.stamp != stamp:
                    entry = _read(chat_id, item.path, stamp, stat.st_mtime)
            except OSError:
                continue  # deleted or unreadable while searching: not a match
            self._entries[chat_id] = entry
            entries.append(entry)
            seen.add(chat_id)
        for gone in set(self._entries) - seen:
            del self._entries[gone]
        return entries


def _is_id(name: str) -> bool:
    try:
        validate_chat_id(name)
    except InvalidChatId:
        return False
    return True


def _read(chat_id: str, path: str, stamp: tuple[int, int, int], updated: float) -> _Entry:
    """Extract a chat file's header and message texts (bad lines are skipped, not fatal)."""
    with open(path, "rb") as handle:
        lines = handle.read().decode("utf-8", "replace").splitlines()
    header: dict[str, Any] = {}
    texts: list[str] = []
    for index, line in enumerate(lines):
        try:
            record: Any = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if index == 0 and record.get("type") == "chat":
            header = record
        elif record.get("type") == "message" and isinstance(record.get("message"), dict):
            texts.append(content_text(record["message"].get("content")))
    pieces = {piece for text in texts for piece in text.casefold().split()}
    meta = meta_from_header(chat_id, header, updated)
    return _Entry(stamp, meta, texts, "\n".join(pieces))


def _match(entry: _Entry, words: list[str]) -> SearchHit | None:
    """A hit if every word is in the title or the messages' text; else None."""
    title = entry.meta.title.casefold()
    if not all(word in title or word in entry.vocabulary for word in words):
        return None
    first = words[0]
    if first in title:
        return SearchHit(entry.meta, entry.meta.title, None)
    for index, text in enumerate(entry.texts):
        folded = text.casefold()
        offset = folded.find(first)
        if offset >= 0:
            shown = text if len(text) == len(folded) else folded
            return SearchHit(entry.meta, _snippet(shown, offset), index)
    return None  # not reached: the vocabulary came from these texts


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
