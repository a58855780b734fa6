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
from pathlib import Path
from typing import Any

from tuibot.store.chat_lock import lock_path
from tuibot.store.chat_message import ChatMessage
from tuibot.store.chat_records import (
    CHAT_ID,
    Chat,
    ChatMeta,
    ChatNotFound,
    InvalidChatId,
    by_type,
    check_messages,
    header_record,
    is_header,
    meta_from_header,
    new_chat_id,
    record_checker,
    validate_chat_id,
)
from tuibot.store.chat_tail import read_tail
from tuibot.store.history import (
    INTERRUPTED_RESULT,
    TITLE_LENGTH,
    auto_title,
    clean_title,
    interrupted_result,
    repair_records,
)
from tuibot.store.jsonl import (
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

_PREFIX = re.compile(r"[0-9A-Za-z_-]{1,82}")


def _read_header(path: Path) -> dict[str, Any] | None:
    head = read_head(path)
    return head if is_header(head) else None


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
        model: str = "",
        provider: str = "",
    ) -> ChatMeta:
        """Start an empty chat; its file exists (durably) when this returns.

        ``model``/``provider``: a choice already checked (:func:`tuibot.model_choice.checked`).
        """
        if not (isinstance(kind, str) and kind and isinstance(bot, str) and bot):
            raise ValueError("a chat needs a non-empty kind and bot")
        if parent is not None and not isinstance(parent, dict):
            raise ValueError("a chat's parent must be a dict or None")
        now = time.time()
        for _ in range(100):  # a taken id (same second, same suffix) just draws again
            meta = ChatMeta(
                new_chat_id(now),
                kind,
                bot,
                clean_title(title),
                now,
                now,
                parent,
                pinned,
                model,
                provider,
            )
            with _failing("create", meta.id), suppress(FileExistsError):
                create_lines(self.path(meta.id), [header_record(meta)])
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
        return [chat_id for chat_id in ids if CHAT_ID.fullmatch(chat_id)]

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
            result = read_lines(path, set_aside=not readonly, check=record_checker())
            header = next((r for r in result.records if is_header(r)), None)
            in_place = bool(result.records) and result.records[0] is header
            problems = list(result.problems)
            if header is None:
                problems.append(LineProblem(0, "", "no chat header; rebuilt from the file name"))
                header = header_record(meta_from_header(chat_id, {}, path.stat().st_mtime))
            marks, compactions, records = by_type(result.records)
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

    def load_tail(self, chat_id: str) -> Chat | None:
        """The chat's last messages only (read-only), or None when it must be loaded whole.

        What opening a long chat shows first (see :mod:`tuibot.store.chat_tail`); a full
        :meth:`load` follows, and reports the problems this one leaves unread.
        """
        path = self._existing(chat_id)
        found = read_tail(path)
        header = _read_header(path) if found is not None else None
        if found is None or header is None:
            return None
        messages, repaired = found
        return Chat(meta_from_header(chat_id, header, path.stat().st_mtime), messages, [], repaired)

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
        batch = check_messages(messages)
        if not batch:
            return
        now = time.time()
        records = [{"type": "message", "ts": now, "message": m} for m in batch]
        with _failing("save", chat_id):
            if chat_id in self._titled or not self._title_from(chat_id, path, batch, records):
                append_lines(path, records)

    def _title_from(
        self,
        chat_id: str,
        path: Path,
        batch: Sequence[ChatMessage],
        records: Sequence[dict[str, Any]],
    ) -> bool:
        """Put the first user message's line in an untitled header (once per chat).

        True when ``records`` were written with it, in one replace of the file.
        """
        header = _read_header(path)
        if header is None:
            return False  # the next load rebuilds the header; the title can wait
        title = header.get("title") or auto_title(batch)
        written = bool(title and not header.get("title"))
        if written:
            rewrite_head(path, {**header, "title": title}, then=records)
        if title:
            self._titled.add(chat_id)
        return written

    def rewrite(self, chat_id: str, messages: Sequence[ChatMessage]) -> None:
        """Replace the whole history (compaction, ``/new``), atomically.

        Bad lines still in the file are set aside first, so the rewrite cannot drop them.
        """
        path = self._existing(chat_id)
        batch = check_messages(messages)
        now = time.time()
        with _failing("save", chat_id):
            result = read_lines(path, set_aside=True, check=record_checker())
            header = next((r for r in result.records if is_header(r)), None)
            header = header or header_record(meta_from_header(chat_id, {}, now))
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
