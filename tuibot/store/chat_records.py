"""What a chat file holds, record by record: ids, the header, the checks on each line.

:mod:`tuibot.store.chats` reads and writes the files; this module says what a valid id,
header and record are, so the store, search and the CLI read them the same way.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from tuibot.store.chat_message import ChatMessage
from tuibot.store.jsonl import Check, LineProblem

CHAT_ID = re.compile(r"c_[0-9A-Za-z][0-9A-Za-z_-]{0,79}")
"""Chat ids are file names: no dots or separators, so no id can leave the chats folder."""


class ChatNotFound(Exception):
    """No chat has this id, or a prefix matches none or several (the message says which)."""


class InvalidChatId(ChatNotFound, ValueError):
    """The id cannot be a chat id (for example ``../x``); no file is ever touched."""


@dataclass(frozen=True)
class ChatMeta:
    """What a chat list shows, read from the header line and the file's mtime."""

    id: str
    kind: str
    """``direct`` for a person's chat, ``task`` for delegated work."""
    bot: str
    title: str
    created: float
    updated: float
    """The file's modification time: the last append or rewrite."""
    parent: dict[str, Any] | None = None
    """For task chats, ``{"chat": …, "delegation": …}``."""
    pinned: bool = False
    """The user fixed the chat to ``bot``; routing is skipped (task chats are always)."""
    model: str = ""
    """The model this chat's turns use (``/model``); "" = the bot's."""
    provider: str = ""
    """The provider this chat's turns use (``/provider``); "" = the bot's."""


@dataclass
class Chat:
    """A loaded chat: the history ready for a provider and what loading had to fix."""

    meta: ChatMeta
    messages: list[ChatMessage]
    problems: list[LineProblem]
    """Lines set aside while loading, for the caller to report."""
    repaired: int
    """Synthetic "interrupted" tool results added by this load."""
    consolidated: int = 0
    """How many leading messages were folded into the bot's memory (see ``mark_consolidated``)."""
    compactions: list[dict[str, Any]] = field(default_factory=list)
    """The ``compaction`` records, oldest first (see ``add_compaction``)."""

    @property
    def compaction(self) -> dict[str, Any] | None:
        """The latest compaction: its ``summary`` stands for the first ``upto`` messages in
        the model's history; None when the chat was never compacted."""
        return self.compactions[-1] if self.compactions else None


def new_chat_id(now: float | None = None) -> str:
    """``c_`` + UTC time (sorts by creation) + a random suffix (two chats in one second)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"c_{stamp}_{os.urandom(2).hex()}"


def validate_chat_id(chat_id: object) -> str:
    """``chat_id`` itself if it is a well-formed id, else :class:`InvalidChatId`."""
    if not isinstance(chat_id, str) or not CHAT_ID.fullmatch(chat_id):
        expected = "'c_' then letters, digits, '_' or '-'"
        raise InvalidChatId(f"invalid chat id {chat_id!r}: expected {expected}")
    return chat_id


def _created_from_id(chat_id: str) -> float | None:
    """The creation time encoded in a generated id, to rebuild a lost header."""
    try:
        created = datetime.strptime(chat_id[2:17], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None
    return created.timestamp()


def check_messages(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Refuse a batch with a non-message before writing any of it."""
    checked = list(messages)
    for index, message in enumerate(checked):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError(f"message {index} is not a chat message (a dict with a 'role')")
    return checked


def record_checker() -> Check:
    """A ``read_lines`` check: one header, message records with a role, nothing else."""
    seen_header = False

    def check(record: dict[str, Any]) -> str | None:
        nonlocal seen_header
        kind = record.get("type")
        if kind == "message":  # nearly every line: first
            message = record.get("message")
            if not isinstance(message, dict):
                return "message record without a message object"
            role = message.get("role")
            return None if isinstance(role, str) and role else 'message without a "role"'
        if kind == "chat":
            if seen_header:
                return "a second chat header"
            seen_header = True
            return None
        if kind == "consolidated":
            upto = record.get("upto")
            ok = isinstance(upto, int) and not isinstance(upto, bool) and upto >= 0
            return None if ok else "consolidated record without a whole-number 'upto'"
        if kind == "compaction":
            upto, summary = record.get("upto"), record.get("summary")
            ok = isinstance(upto, int) and not isinstance(upto, bool) and upto >= 0
            ok = ok and isinstance(summary, str) and bool(summary)
            return None if ok else "compaction record without an 'upto' and a 'summary'"
        return f"unknown record type {kind!r}"

    return check


def by_type(
    records: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The consolidation marks, compactions and messages of a chat file, each in order.

    One pass: a long chat is loaded at every turn.
    """
    found: dict[Any, list[dict[str, Any]]] = {"consolidated": [], "compaction": [], "message": []}
    for record in records:
        kind = found.get(record.get("type"))
        if kind is not None:
            kind.append(record)
    return found["consolidated"], found["compaction"], found["message"]


def meta_from_header(chat_id: str, header: dict[str, Any], updated: float) -> ChatMeta:
    """Meta from a header, tolerating missing or mistyped fields (the id is the file's)."""
    defaults = {"kind": "direct", "bot": "Assistant", "title": ""}
    text: dict[str, str] = {}
    for key, default in defaults.items():
        value = header.get(key)
        text[key] = value if isinstance(value, str) else default
    created = header.get("created")
    if not isinstance(created, int | float) or isinstance(created, bool):
        created = _created_from_id(chat_id) or updated
    parent = header.get("parent")
    parent = parent if isinstance(parent, dict) else None
    pinned = header.get("pinned") is True
    choice = {key: header[key] for key in ("model", "provider") if isinstance(header.get(key), str)}
    return ChatMeta(
        chat_id,
        **text,
        created=float(created),
        updated=updated,
        parent=parent,
        pinned=pinned,
        **choice,
    )


def header_record(meta: ChatMeta) -> dict[str, Any]:
    """The first line of a chat file: the meta without ``updated`` (that is the mtime)."""
    fields = {k: v for k, v in asdict(meta).items() if k != "updated"}
    for key in ("model", "provider"):  # written only once a person chose one
        if not fields[key]:
            del fields[key]
    return {"type": "chat", **fields}


def is_header(record: dict[str, Any] | None) -> bool:
    return isinstance(record, dict) and record.get("type") == "chat"
