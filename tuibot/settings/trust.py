"""Project config files the person trusted, keyed by real path and content hash.

Why: a ``tuibot.toml`` in the folder tuibot starts in may come with a cloned repository;
it could point a provider that uses the person's key at another server. So it counts only
once the person said yes to exactly that file with exactly that content (direnv's
``allow``): a changed file is untrusted again. :class:`TrustStore` keeps the yeses in one
small JSON file (``<data>/trusted.json``), with the guarantees of
:class:`~tuibot.store.locked_file.LockedJsonFile` (a bad file is an error naming it and is
never overwritten; concurrent changes are kept)::

    {"version": 1, "trusted": [{"path": "/src/proj/tuibot.toml", "sha256": "…",
                                 "created": 1767000000.0}]}
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tuibot.store.jsonl import StorageError
from tuibot.store.locked_file import LockedJsonFile, dump_json

VERSION = 1
TrustStatus = Literal["trusted", "changed", "untrusted"]
"""``changed``: trusted once, with other content than the file has now."""


class TrustStoreError(StorageError):
    """The trusted list could not be read, understood or written (the message names it)."""


def content_digest(data: bytes) -> str:
    """The SHA-256 of a file's bytes, as hex: what trust is keyed by besides the path."""
    return hashlib.sha256(data).hexdigest()


def real_path(path: Path) -> str:
    """The key for ``path``: absolute, symlinks resolved, so aliases share one entry."""
    return os.path.realpath(path)


@dataclass(frozen=True)
class TrustEntry:
    """One yes: the file at ``path`` (real) is trusted while its content hashes to ``sha256``."""

    path: str
    sha256: str
    created: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form, as stored."""
        return asdict(self)


class TrustStore:
    """The trusted project config files in one JSON file; re-read when it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = LockedJsonFile(
            path,
            noun="trusted project configs",
            error=TrustStoreError,
            version=VERSION,
            parse=self._parse,
            encode=_encode,
            copy=dict,
        )

    def all(self) -> list[TrustEntry]:
        """Every entry, by path."""
        return sorted(self._file.fresh().values(), key=lambda e: e.path)

    def status(self, path: Path, digest: str) -> TrustStatus:
        """Whether the file at ``path`` whose bytes hash to ``digest`` is trusted."""
        entry = self._file.fresh().get(real_path(path))
        if entry is None:
            return "untrusted"
        return "trusted" if entry.sha256 == digest else "changed"

    def trust(self, path: Path, digest: str) -> TrustEntry:
        """Trust ``path`` with the content hashing to ``digest`` (replacing an older yes)."""
        entry = TrustEntry(real_path(path), digest)

        def change(entries: dict[str, TrustEntry]) -> bool:
            entries[entry.path] = entry
            return True

        self._file.update(change)
        return entry

    def revoke(self, path: Path) -> TrustEntry | None:
        """Forget ``path``; the entry removed, or None when it was not trusted."""
        key, removed = real_path(path), []

        def change(entries: dict[str, TrustEntry]) -> bool:
            if key not in entries:
                return False
            removed.append(entries.pop(key))
            return True

        self._file.update(change)
        return removed[0] if removed else None

    def _parse(self, data: bytes) -> dict[str, TrustEntry]:
        document = self._file.decode(data)
        if document is None:
            return {}
        items = document.get("trusted")
        if not isinstance(items, list):
            raise self._file.malformed('expected "trusted" to be a list')
        entries: dict[str, TrustEntry] = {}
        for index, item in enumerate(items):
            entry = self._entry(index, item)
            entries[entry.path] = entry
        return entries

    def _entry(self, index: int, item: object) -> TrustEntry:
        where = f"entry {index}"
        if not isinstance(item, dict):
            raise self._file.malformed(f"{where} is not a JSON object")
        path, digest, created = item.get("path"), item.get("sha256"), item.get("created")
        if not isinstance(path, str) or not os.path.isabs(path):
            raise self._file.malformed(f'{where}: "path" must be an absolute path')
        if not isinstance(digest, str) or len(digest) != 64:
            raise self._file.malformed(f'{where}: "sha256" must be 64 hex digits')
        if isinstance(created, bool) or not isinstance(created, int | float):
            raise self._file.malformed(f'{where}: "created" must be a number')
        return TrustEntry(path, digest.lower(), float(created))


def _encode(entries: dict[str, TrustEntry]) -> bytes:
    ordered = sorted(entries.values(), key=lambda e: e.path)
    return dump_json({"version": VERSION, "trusted": [e.as_dict() for e in ordered]})
