"""Approval grants kept on disk, so an answer of "always" outlives the process.

A grant says a question need not be asked again: ``tool:exec`` in one chat (scope
``chat``) or everywhere (scope ``lifetime``). :class:`GrantStore` keeps them in one small
JSON file (``<data>/grants.json``)::

    {"version": 1, "grants": [{"id": "g_1a2b3c4d", "key": "tool:exec", "scope": "chat",
                                "chat": "c_…", "created": 1767000000.0, "reason": "…"}]}

The guarantees:

- Nothing is read until first use, and a missing file is no grants.
- A file that is not valid JSON or not of that shape raises :class:`GrantStoreError` naming
  the file and the problem; it is never overwritten, so no grant is silently forgotten.
- Every change re-reads the file, applies itself to what is there (grants are merged by
  id) and replaces the file atomically (temporary file, ``os.replace``, mode ``0o600``)
  under a lock file, so two processes adding grants at once keep both.
- A write that fails (a full disk) raises :class:`GrantStoreError` and leaves the memory
  as the file is.
- A change made by another process (``tuibot grants revoke`` while the app runs) is seen on
  the next check: each check compares the file's identity and version with what was read.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tuibot.store.jsonl import StorageError
from tuibot.toolkit.protect import atomic_write

GrantScope = Literal["chat", "lifetime"]
VERSION = 1
"""The file format written; a file of a newer version is refused, not overwritten."""
_FILE_MODE = 0o600
"""Grants say what may run unasked: private to the owner."""
_SCOPES = ("chat", "lifetime")


class GrantStoreError(StorageError):
    """The grants file could not be read, understood or written.

    The message names the file and the reason (``could not read grants from
    /x/grants.json: invalid JSON: … (line 1, column 2)``); ``path``, ``reason``, ``errno``
    and ``action`` carry the parts, as for every :class:`StorageError`.
    """


class GrantNotFound(GrantStoreError):
    """No grant, or more than one, has the id or prefix asked for; the message lists them."""


def grant_id(scope: str, chat: str | None, key: str) -> str:
    """``g_`` and 8 hex digits, the same for the same scope, chat and key on every run."""
    digest = hashlib.sha256(f"{scope}\0{chat or ''}\0{key}".encode()).hexdigest()
    return f"g_{digest[:8]}"


@dataclass(frozen=True)
class Grant:
    """One kept decision: ``key`` is allowed in ``chat`` (scope ``chat``) or everywhere."""

    key: str
    """What is allowed, e.g. ``tool:exec`` or ``delegate:Assistant->Coder``."""
    scope: GrantScope
    chat: str | None
    """The chat a ``chat`` grant belongs to; None for ``lifetime``."""
    created: float = field(default_factory=time.time)
    """When it was granted (seconds since the epoch)."""
    reason: str = ""
    """What the decision said, for whoever lists grants later."""
    id: str = field(init=False)
    """Derived from scope, chat and key (:func:`grant_id`), so a CLI can name it."""

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError("a grant needs a non-empty key")
        if self.scope not in _SCOPES:
            raise ValueError(f"unknown grant scope {self.scope!r} (expected chat or lifetime)")
        if self.scope == "chat" and (not isinstance(self.chat, str) or not self.chat):
            raise ValueError("a chat grant needs the chat's id")
        if self.scope == "lifetime" and self.chat is not None:
            raise ValueError("a lifetime grant belongs to no chat")
        object.__setattr__(self, "id", grant_id(self.scope, self.chat, self.key))

    def applies(self, chat: str, key: str) -> bool:
        """Whether this grant answers ``key`` asked in ``chat``."""
        return key == self.key and (self.scope == "lifetime" or chat == self.chat)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form, as stored and as ``tuibot grants list --json`` prints it."""
        data = asdict(self)
        return {"id": data.pop("id"), **data}


Stamp = tuple[int, int, int] | None
"""A file's inode, size and mtime (ns); None when it does not exist."""


class GrantStore:
    """The grants in one JSON file; read lazily, re-read when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._grants: dict[str, Grant] | None = None
        """By id, as last read or written; None before the first successful read."""
        self._stamp: Stamp = None
        self._lock = threading.Lock()

    # reading

    def load(self) -> list[Grant]:
        """Read the file now, oldest grant first; a missing file is no grants.

        Raises :class:`GrantStoreError` for a file that cannot be read or understood.
        """
        with self._lock:
            self._grants, self._stamp = self._read()
            return _ordered(self._grants)

    def all(self) -> list[Grant]:
        """Every grant, oldest first (re-read if the file changed since)."""
        with self._lock:
            return _ordered(self._fresh())

    def allows(self, chat: str, key: str) -> bool:
        """Whether a kept grant answers ``key`` asked in ``chat``."""
        with self._lock:
            return any(grant.applies(chat, key) for grant in self._fresh().values())

    def _fresh(self) -> dict[str, Grant]:
        """The cached grants, re-read when the file is not the one last seen."""
        if self._grants is None or self._current_stamp() != self._stamp:
            self._grants, self._stamp = self._read()
        return self._grants

    def _current_stamp(self) -> Stamp:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._oserror("read grants from", exc) from exc
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _read(self) -> tuple[dict[str, Grant], Stamp]:
        try:
            with open(self.path, "rb") as handle:
                st = os.fstat(handle.fileno())
                data = handle.read()
        except FileNotFoundError:
            return {}, None
        except OSError as exc:
            raise self._oserror("read grants from", exc) from exc
        return self._parse(data), (st.st_ino, st.st_size, st.st_mtime_ns)

    def _parse(self, data: bytes) -> dict[str, Grant]:
        if not data.strip():
            return {}  # an empty file holds nothing to lose
        try:
            document = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise self._malformed(f"not valid UTF-8 (byte {exc.start + 1})") from exc
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            raise self._malformed(f"invalid JSON: {exc.msg} ({where})") from exc
        except (ValueError, RecursionError) as exc:
            raise self._malformed(f"invalid JSON: {exc}") from exc
        if not isinstance(document, dict):
            raise self._malformed(f"expected a JSON object, found a {type(document).__name__}")
        version = document.get("version", VERSION)
        if version != VERSION:
            raise self._malformed(f"unsupported version {version!r} (this tuibot reads 1)")
        entries = document.get("grants")
        if not isinstance(entries, list):
            raise self._malformed('expected "grants" to be a list')
        grants: dict[str, Grant] = {}
        for index, entry in enumerate(entries):
            grant = self._entry(index, entry)
            grants.setdefault(grant.id, grant)
        return grants

    def _entry(self, index: int, entry: object) -> Grant:
        where = f"grant {index}"
        if not isinstance(entry, dict):
            raise self._malformed(f"{where} is not a JSON object")
        created = entry.get("created")
        if isinstance(created, bool) or not isinstance(created, int | float):
            raise self._malformed(f'{where}: "created" must be a number')
        reason = entry.get("reason", "")
        if not isinstance(reason, str):
            raise self._malformed(f'{where}: "reason" must be a string')
        try:
            return Grant(
                key=entry.get("key"),  # type: ignore[arg-type]  # checked by Grant
                scope=entry.get("scope"),  # type: ignore[arg-type]
                chat=entry.get("chat"),
                created=float(created),
                reason=reason,
            )
        except ValueError as exc:
            raise self._malformed(f"{where}: {exc}") from exc

    # changing

    def add(self, grant: Grant) -> Grant:
        """Keep ``grant``; the one already kept if its id is there (adding is idempotent)."""
        found: list[Grant] = []

        def change(grants: dict[str, Grant]) -> bool:
            kept = grants.get(grant.id)
            if kept is not None:
                found.append(kept)
                return False
            grants[grant.id] = grant
            found.append(grant)
            return True

        self._update(change)
        return found[0]

    def revoke(self, id_or_prefix: str) -> Grant:
        """Remove the grant with this id or unique id prefix (``g_`` may be left out).

        Raises :class:`GrantNotFound` (a :class:`GrantStoreError`) naming the choices when
        no grant or several match.
        """
        removed: list[Grant] = []

        def change(grants: dict[str, Grant]) -> bool:
            grant = self._resolve(grants, id_or_prefix)
            del grants[grant.id]
            removed.append(grant)
            return True

        self._update(change)
        return removed[0]

    def _resolve(self, grants: dict[str, Grant], wanted: str) -> Grant:
        """The grant ``wanted`` names: its id, or a prefix of it with or without ``g_``."""
        wanted = wanted.strip()
        if wanted in grants:
            return grants[wanted]
        bare = [
            g for g in grants.values() if g.id.startswith(wanted) or g.id[2:].startswith(wanted)
        ]
        matches = sorted(bare, key=lambda g: g.id) if wanted else []
        if len(matches) == 1:
            return matches[0]
        if matches:
            reason = f"{wanted!r} matches more than one grant: {', '.join(g.id for g in matches)}"
        else:
            known = ", ".join(sorted(grants))
            choices = f"known grants: {known}" if known else "there are no grants"
            reason = (
                f"no grant {wanted!r} ({choices})" if wanted else f"no grant id given ({choices})"
            )
        message = f"could not revoke a grant in {self.path}: {reason}"
        raise GrantNotFound(message, path=self.path, reason=reason, action="revoke")

    def _update(self, change: Callable[[dict[str, Grant]], bool]) -> None:
        """Re-read, apply ``change`` (True when it changed something), write atomically.

        Memory ends as the file is: the new content when the write worked, what was read
        when ``change`` refused or the write failed.
        """
        with self._lock, self._file_lock():
            grants, stamp = self._read()
            self._grants, self._stamp = dict(grants), stamp
            if not change(grants):
                return
            data = _encode(grants)
            try:
                atomic_write(self.path, data, new_mode=_FILE_MODE)
            except OSError as exc:
                raise self._oserror("write grants to", exc) from exc
            self._grants = grants
            try:
                self._stamp = self._current_stamp()
            except GrantStoreError:
                self._stamp = None  # re-read on the next check

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """Hold ``.<name>.lock`` next to the file, where the platform has ``flock``."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise self._oserror("create the folder for", exc) from exc
        try:
            import fcntl
        except ImportError:  # Windows: writes stay atomic, concurrent adds may race
            yield
            return
        lock_path = self.path.with_name(f".{self.path.name}.lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, _FILE_MODE)
        except OSError as exc:
            raise self._oserror("lock", exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            with suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    # errors

    def _malformed(self, reason: str) -> GrantStoreError:
        message = f"could not read grants from {self.path}: {reason}"
        return GrantStoreError(message, path=self.path, reason=reason, action="read")

    def _oserror(self, action: str, exc: OSError) -> GrantStoreError:
        reason = exc.strerror or str(exc) or type(exc).__name__
        return GrantStoreError(
            f"could not {action} {self.path}: {reason}",
            path=self.path,
            reason=reason,
            errno=exc.errno,
            action=action,
        )


def _ordered(grants: dict[str, Grant]) -> list[Grant]:
    return sorted(grants.values(), key=lambda g: (g.created, g.id))


def _encode(grants: dict[str, Grant]) -> bytes:
    document = {"version": VERSION, "grants": [g.as_dict() for g in _ordered(grants)]}
    try:
        return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in a reason: escapes read back the same
        return (json.dumps(document, indent=2) + "\n").encode("ascii")
