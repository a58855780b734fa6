"""Chats on disk: one JSONL file per chat, a header line, then one line per message.

The engine saves each message as it happens, so a crash loses nothing that was said.
Loading gives back a history a provider accepts: bad lines are set aside (see
:mod:`tuibot.store.jsonl`) and tool calls a crash left unanswered get a synthetic
"interrupted" result (see :mod:`tuibot.store.history`), saved so the repair happens once.

Layout of ``<root>/<id>.jsonl``::

    {"type":"chat","id":"c_…","kind":"direct","bot":"Assistant","title":"…","created":…,"parent":null}
    {"type":"message","ts":1764704701.2,"message":{"role":"user","content":"…"}}

The title lives in the header. When a chat is created without one, the header is
rewritten once, when the first user message with text arrives, so :meth:`ChatStore.list`
reads one line per file and never a history.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tuibot.store.chat_lock import lock_path
from tuibot.store.chat_message import ChatMessage
from tuibot.store.history import (
    INTERRUPTED_RESULT,
    TITLE_LENGTH,
    auto_title,
    clean_title,
    interrupted_result,
    repair_records,
)
from tuibot.store.jsonl import (
    Check,
    LineProblem,
    StorageError,
    append_lines,
    create_lines,
    read_head,
    read_lines,
    rewrite_head,
    rewrite_lines,
    sidecar_path,
)

__all__ = [
    "INTERRUPTED_RESULT",
    "TITLE_LENGTH",
    "Chat",
    "ChatMeta",
    "ChatNotFound",
    "ChatStore",
    "InvalidChatId",
    "auto_title",
    "clean_title",
    "interrupted_result",
    "meta_from_header",
    "new_chat_id",
    "repair_records",
    "validate_chat_id",
]

_ID = re.compile(r"c_[0-9A-Za-z][0-9A-Za-z_-]{0,79}")
"""Chat ids are file names: no dots or separators, so no id can leave the chats folder."""
_PREFIX = re.compile(r"[0-9A-Za-z_-]{1,82}")


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
    if not isinstance(chat_id, str) or not _ID.fullmatch(chat_id):
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


def _check_messages(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Refuse a batch with a non-message before writing any of it."""
    checked = list(messages)
    for index, message in enumerate(checked):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError(f"message {index} is not a chat message (a dict with a 'role')")
    return checked


def _record_checker() -> Check:
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


def _by_type(
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


def _header(meta: ChatMeta) -> dict[str, Any]:
    """The first line of a chat file: the meta without ``updated`` (that is the mtime)."""
    fields = {k: v for k, v in asdict(meta).items() if k != "updated"}
    for key in ("model", "provider"):  # written only once a person chose one
        if not fields[key]:
            del fields[key]
    return {"type": "chat", **fields}


def _is_header(record: dict[str, Any] | None) -> bool:
    return isinstance(record, dict) and record.get("type") == "chat"


def _read_header(path: Path) -> dict[str, Any] | None:
    head = read_head(path)
    return head if _is_header(head) else None


@contextmanager
def _failing(action: str, chat_id: str) -> Iterator[None]:
    """Re-word storage trouble for a person: ``could not save chat c_… to /path: …``."""
    try:
        yield
    except (StorageError, OSError) as exc:
        if isinstance(exc, StorageError):
            where, reason = exc.path, exc.reason
            if action == "load" and exc.action not in ("read", "open", ""):
                action = "repair"  # reading worked; saving what loading fixed did not
        else:
            where, reason = exc.filename, exc.strerror or str(exc)
        word = {"save": "to", "load": "from"}.get(action, "at")
        message = f"could not {action} chat {chat_id} {word} {where}: {reason}"
        path = Path(where) if where else None
        raise StorageError(message, path=path, reason=reason, errno=exc.errno) from exc


class ChatStore:
    """Every chat under one folder (``DataPaths.chats``).

    One writer per chat at a time (the engine's per-chat lock); readers elsewhere, such as
    ``tuibot chats show``, use ``load(readonly=True)``, which changes nothing.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._titled: set[str] = set()
        """Chats whose header already has a title: appends skip reading the header."""

    def path(self, chat_id: str) -> Path:
        """The file of ``chat_id`` (validated, so always inside :attr:`root`)."""
        return self.root / f"{validate_chat_id(chat_id)}.jsonl"

    def _existing(self, chat_id: str) -> Path:
        path = self.path(chat_id)
        if not path.is_file():
            raise ChatNotFound(f"no chat {chat_id} in {self.root}")
        return path

    def create(
        self,
        *,
        kind: str = "direct",
        bot: str = "Assistant",
        title: str = "",
        parent: dict[str, Any] | None = None,
        pinned: bool = False,
    ) -> ChatMeta:
        """Start an empty chat; its file exists (durably) when this returns."""
        if not (isinstance(kind, str) and kind and isinstance(bot, str) and bot):
            raise ValueError("a chat needs a non-empty kind and bot")
        if parent is not None and not isinstance(parent, dict):
            raise ValueError("a chat's parent must be a dict or None")
        now = time.time()
        for _ in range(100):  # a taken id (same second, same suffix) just draws again
            meta = ChatMeta(
                new_chat_id(now), kind, bot, clean_title(title), now, now, parent, pinned
            )
            with _failing("create", meta.id), suppress(FileExistsError):
                create_lines(self.path(meta.id), [_header(meta)])
                if meta.title:
                    self._titled.add(meta.id)
                return meta
        raise StorageError(f"could not create a chat in {self.root}: no free id", path=self.root)

    def exists(self, chat_id: str) -> bool:
        """Whether ``chat_id`` is a valid id with a file (never raises for a bad id)."""
        try:
            return self.path(chat_id).is_file()
        except InvalidChatId:
            return False

    def _ids(self) -> list[str]:
        """Ids of the chat files, from the folder listing alone."""
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        except OSError as exc:
            message = f"could not list chats in {self.root}: {exc.strerror}"
            raise StorageError(message, path=self.root, reason=exc.strerror or "") from exc
        ids = (name[: -len(".jsonl")] for name in names if name.endswith(".jsonl"))
        return [chat_id for chat_id in ids if _ID.fullmatch(chat_id)]

    def resolve(self, prefix: str) -> str:
        """The one chat whose id starts with ``prefix`` (``c_`` may be left out)."""
        wanted = prefix.strip() if isinstance(prefix, str) else ""
        if not _PREFIX.fullmatch(wanted):
            raise InvalidChatId(f"invalid chat id {prefix!r}")
        ids = self._ids()
        if wanted in ids:
            return wanted
        starts = (wanted,) if wanted.startswith("c_") else (wanted, f"c_{wanted}")
        found = sorted(i for i in ids if i.startswith(starts))
        if len(found) == 1:
            return found[0]
        if not found:
            raise ChatNotFound(f"no chat matches {prefix!r}")
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise ChatNotFound(f"chat id {prefix!r} is ambiguous: it matches {shown}")

    def meta(self, chat_id: str) -> ChatMeta:
        """One chat's meta from its header line alone; ``ChatNotFound`` if there is none."""
        path = self._existing(validate_chat_id(chat_id))
        return meta_from_header(chat_id, _read_header(path) or {}, path.stat().st_mtime)

    def list(self) -> list[ChatMeta]:
        """Every chat, most recently updated first; reads one line per file."""
        metas = []
        for chat_id in self._ids():
            path = self.root / f"{chat_id}.jsonl"
            try:
                updated = path.stat().st_mtime
            except OSError:
                continue  # deleted while listing
            metas.append(meta_from_header(chat_id, _read_header(path) or {}, updated))
        metas.sort(key=lambda m: (m.updated, m.id), reverse=True)
        return metas

    def latest(self, kind: str = "direct") -> ChatMeta | None:
        """The most recently updated chat of ``kind`` (what ``ask -c`` and the app reopen)."""
        return next((meta for meta in self.list() if meta.kind == kind), None)

    def load(self, chat_id: str, *, readonly: bool = False) -> Chat:
        """The chat's history, repaired, with the problems found on the way.

        Bad lines are set aside and repairs saved, so loading again finds nothing to fix;
        ``readonly`` does the same repairs in memory only and writes nothing.
        """
        path = self._existing(chat_id)
        with _failing("load", chat_id):
            result = read_lines(path, set_aside=not readonly, check=_record_checker())
            header = next((r for r in result.records if _is_header(r)), None)
            in_place = bool(result.records) and result.records[0] is header
            problems = list(result.problems)
            if header is None:
                problems.append(LineProblem(0, "", "no chat header; rebuilt from the file name"))
                header = _header(meta_from_header(chat_id, {}, path.stat().st_mtime))
            marks, compactions, records = _by_type(result.records)
            repaired, added, at_end = repair_records(records)
            if not readonly and (not in_place or (added and not at_end)):
                rewrite_lines(path, [header, *repaired, *marks[-1:], *compactions])
            elif not readonly and added:
                append_lines(path, repaired[-added:])
            updated = path.stat().st_mtime
        messages = [r["message"] for r in repaired]
        consolidated = min(max((m["upto"] for m in marks), default=0), len(messages))
        compactions = [c for c in compactions if c["upto"] <= len(messages)]  # else stale
        meta = meta_from_header(chat_id, header, updated)
        return Chat(meta, messages, problems, added, consolidated, compactions)

    def mark_consolidated(self, chat_id: str, upto: int) -> None:
        """Record that the first ``upto`` messages are now in the bot's memory.

        The messages stay in the file (people can still read them); only the model's
        history starts after them.
        """
        path = self._existing(chat_id)
        with _failing("save", chat_id):
            append_lines(path, [{"type": "consolidated", "ts": time.time(), "upto": upto}])

    def add_compaction(self, chat_id: str, upto: int, summary: str, **facts: Any) -> None:
        """Record that ``summary`` stands for the first ``upto`` messages from now on.

        Nothing is deleted: the messages stay in the file for people, ``chats show`` and
        the TUI; only the model's history starts after them, behind the summary.
        """
        path = self._existing(chat_id)
        record = {"type": "compaction", "ts": time.time(), "upto": upto, "summary": summary}
        with _failing("save", chat_id):
            append_lines(path, [{**record, **facts}])

    def append(self, chat_id: str, messages: Sequence[ChatMessage]) -> None:
        """Add messages at the end; durable when this returns."""
        path = self._existing(chat_id)
        batch = _check_messages(messages)
        if not batch:
            return
        now = time.time()
        with _failing("save", chat_id):
            if chat_id not in self._titled:
                self._title_from(chat_id, path, batch)
            append_lines(path, [{"type": "message", "ts": now, "message": m} for m in batch])

    def _title_from(self, chat_id: str, path: Path, batch: Sequence[ChatMessage]) -> None:
        """Put the first user message's line in an untitled header (once per chat)."""
        header = _read_header(path)
        if header is None:
            return  # the next load rebuilds the header; the title can wait
        title = header.get("title") or auto_title(batch)
        if title and not header.get("title"):
            rewrite_head(path, {**header, "title": title})
        if title:
            self._titled.add(chat_id)

    def rewrite(self, chat_id: str, messages: Sequence[ChatMessage]) -> None:
        """Replace the whole history (compaction, ``/new``), atomically.

        Bad lines still in the file are set aside first, so the rewrite cannot drop them.
        """
        path = self._existing(chat_id)
        batch = _check_messages(messages)
        now = time.time()
        with _failing("save", chat_id):
            result = read_lines(path, set_aside=True, check=_record_checker())
            header = next((r for r in result.records if _is_header(r)), None)
            header = header or _header(meta_from_header(chat_id, {}, now))
            if not header.get("title"):
                header = {**header, "title": auto_title(batch)}
            records = [{"type": "message", "ts": now, "message": m} for m in batch]
            rewrite_lines(path, [header, *records])
        if header["title"]:
            self._titled.add(chat_id)

    def set_title(self, chat_id: str, title: str) -> None:
        """Rename a chat (one line, trimmed); "" lets the next user message name it."""
        new_title = clean_title(title)
        self._set_header(chat_id, title=new_title)
        if new_title:
            self._titled.add(chat_id)
        else:
            self._titled.discard(chat_id)

    def set_bot(self, chat_id: str, bot: str, *, pinned: bool) -> None:
        """Change the chat's bot; ``pinned`` fixes it there (no routing)."""
        self._set_header(chat_id, bot=bot, pinned=pinned)

    def set_choice(self, chat_id: str, model: str, provider: str) -> None:
        """Keep the chat's model and provider ("" = the bot's) for its next turns."""
        self._set_header(chat_id, model=model, provider=provider)

    def _set_header(self, chat_id: str, **fields: Any) -> None:
        path = self._existing(chat_id)
        header = _read_header(path)
        if header is None:
            self.load(chat_id)  # sets aside whatever is there and writes a header
            header = _read_header(path) or {}
        with _failing("save", chat_id):
            rewrite_head(path, {**header, **fields})

    def delete(self, chat_id: str) -> None:
        """Remove a chat, its set-aside lines and its turn lock file; ``ChatNotFound`` if none."""
        path = self._existing(chat_id)
        with _failing("delete", chat_id):
            path.unlink()
            sidecar_path(path).unlink(missing_ok=True)
            lock_path(path).unlink(missing_ok=True)
        self._titled.discard(chat_id)
