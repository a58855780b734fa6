"""Approval grants kept on disk, so an answer of "always" outlives the process.

A grant says a question need not be asked again: ``exec:git status`` in one chat (scope
``chat``) or everywhere (scope ``lifetime``); what each key covers is decided in
:mod:`tuibot.approvals.permissions`. :class:`GrantStore` keeps them in one small
JSON file (``<data>/grants.json``)::

    {"version": 1, "grants": [{"id": "g_1a2b3c4d", "key": "exec:make test", "scope": "chat",
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
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tuibot.store.jsonl import StorageError
from tuibot.store.locked_file import LockedJsonFile, dump_json

GrantScope = Literal["chat", "lifetime"]
VERSION = 1
"""The file format written; a file of a newer version is refused, not overwritten."""
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
    """What is allowed, e.g. ``exec:make test`` or ``delegate:Assistant->Coder``."""
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
        """Whether this grant answers ``key`` asked in ``chat`` (see ``permissions.covers``)."""
        from tuibot.approvals.permissions import covers

        return covers(self.key, key) and (self.scope == "lifetime" or chat == self.chat)

    @property
    def covers(self) -> str:
        """What this grant allows, in words (a retired tool-wide exec grant: nothing)."""
        from tuibot.approvals.permissions import describe_key

        return describe_key(self.key)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form, as stored and as ``tuibot grants list --json`` prints it."""
        data = asdict(self)
        return {"id": data.pop("id"), **data}


class GrantStore:
    """The grants in one JSON file; read lazily, re-read when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = LockedJsonFile(
            path,
            noun="grants",
            error=GrantStoreError,
            version=VERSION,
            parse=self._parse,
            encode=_encode,
            copy=dict,
        )
        """Grants by id, as last read or written."""

    # reading

    def load(self) -> list[Grant]:
        """Read the file now, oldest grant first; a missing file is no grants.

        Raises :class:`GrantStoreError` for a file that cannot be read or understood.
        """
        return _ordered(self._file.load())

    def all(self) -> list[Grant]:
        """Every grant, oldest first (re-read if the file changed since)."""
        return _ordered(self._file.fresh())

    def allows(self, chat: str, key: str) -> bool:
        """Whether a kept grant answers ``key`` asked in ``chat``."""
        return any(grant.applies(chat, key) for grant in self._file.fresh().values())

    def _parse(self, data: bytes) -> dict[str, Grant]:
        document = self._file.decode(data)
        if document is None:
            return {}
        entries = document.get("grants")
        if not isinstance(entries, list):
            raise self._file.malformed('expected "grants" to be a list')
        grants: dict[str, Grant] = {}
        for index, entry in enumerate(entries):
            grant = self._entry(index, entry)
            grants.setdefault(grant.id, grant)
        return grants

    def _entry(self, index: int, entry: object) -> Grant:
        where = f"grant {index}"
        if not isinstance(entry, dict):
            raise self._file.malformed(f"{where} is not a JSON object")
        created = entry.get("created")
        if isinstance(created, bool) or not isinstance(created, int | float):
            raise self._file.malformed(f'{where}: "created" must be a number')
        reason = entry.get("reason", "")
        if not isinstance(reason, str):
            raise self._file.malformed(f'{where}: "reason" must be a string')
        try:
            return Grant(
                key=entry.get("key"),  # type: ignore[arg-type]  # checked by Grant
                scope=entry.get("scope"),  # type: ignore[arg-type]
                chat=entry.get("chat"),
                created=float(created),
                reason=reason,
            )
        except ValueError as exc:
            raise self._file.malformed(f"{where}: {exc}") from exc

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

        self._file.update(change)
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

        self._file.update(change)
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


def _ordered(grants: dict[str, Grant]) -> list[Grant]:
    return sorted(grants.values(), key=lambda g: (g.created, g.id))


def _encode(grants: dict[str, Grant]) -> bytes:
    return dump_json({"version": VERSION, "grants": [g.as_dict() for g in _ordered(grants)]})
