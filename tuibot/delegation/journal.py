"""The delegation journal: every delegation record, durable, in one append-only file.

Each change appends the whole record with its next ``rev`` to ``<data>/delegations.jsonl``;
on load the highest revision of each id wins. Line-level guarantees (whole-line durable
appends, torn lines set aside, atomic rewrites) come from :mod:`tuibot.store.jsonl`.

Writers use optimistic concurrency: an update names the revision it read, and if the
record moved on since -- in this process or another -- it raises
:class:`DelegationConflict` and writes nothing, so no change is silently overwritten. To
notice another process cheaply, the journal remembers the file's identity, size and
mtime after its own reads and writes, and re-reads the file only when they differ. A lock
file next to the journal (``delegations.jsonl.lock``) makes check-then-append one step, so
two processes cannot both pass the revision check between a stat and an append.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.store.jsonl import LineProblem, StorageError, append_lines, read_lines, rewrite_lines

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation

if sys.platform == "win32":
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for ~10 s, then OSError

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


_log = logging.getLogger("tuibot.delegation")

COMPACT_MIN_LINES = 1000
"""Below this many lines the file is small enough that superseded revisions cost nothing."""
COMPACT_RATIO = 4
"""Compact once the file holds this many lines per live record."""

_Stamp = tuple[int, int, int]
"""A file's inode, size and mtime in ns: changes whenever anyone appends or replaces it."""


class DelegationStorageError(StorageError):
    """The journal could not be read or written; the message says what failed and where."""


class DelegationNotFound(LookupError):
    """An update named a delegation the journal does not hold."""


class DelegationConflict(Exception):
    """The record changed since the caller read it; nothing was written.

    The caller should read the record again (:meth:`DelegationJournal.get` after
    :meth:`DelegationJournal.load`), re-apply its change and retry.
    """

    def __init__(self, delegation_id: str, expected: int, current: int) -> None:
        if expected == 0:
            message = f"delegation {delegation_id} already exists (revision {current})"
        else:
            message = (
                f"delegation {delegation_id} changed: expected revision {expected}, "
                f"it is now at revision {current}; read it again"
            )
        super().__init__(message)
        self.delegation_id = delegation_id
        self.expected = expected
        """The revision the caller read; 0 when creating."""
        self.current = current
        """The revision the journal holds."""


def _check(data: dict[str, Any]) -> str | None:
    """For ``read_lines``: a line that is not a whole record is set aside."""
    from tuibot.delegation.records import Delegation, RecordError  # not before a record

    try:
        Delegation.from_json(data)
    except RecordError as exc:
        return str(exc)
    return None


def _normalised(record: Delegation) -> Delegation:
    """``record`` as it reads back from disk (times in whole ms); RecordError if invalid."""
    return type(record).from_json(record.to_json())  # (records is imported: a record is here)


class DelegationJournal:
    """Every delegation under one file (e.g. ``<data>/delegations.jsonl``).

    ``get``, ``all`` and ``children`` answer from memory; ``load`` re-reads the file.
    ``create`` and ``update`` always check the file first, so their revision checks see
    other processes' writes.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._records: dict[str, Delegation] = {}
        """The latest revision of each id, in order of first appearance (creation)."""
        self._lines = 0
        """Records in the file, superseded revisions included: drives compaction."""
        self._stamp: _Stamp | None = None
        """The file as of our last read or write; None when it did not exist."""
        self._loaded = False

    @property
    def lock_path(self) -> Path:
        """The lock file serialising writers: ``delegations.jsonl.lock``."""
        return self.path.with_name(f"{self.path.name}.lock")

    def load(self) -> list[LineProblem]:
        """Read the file again; returns the torn or malformed lines set aside.

        No file is no delegations yet: nothing is created (no lock file either) until
        the first record is written, so a start-up with no delegations writes nothing.
        """
        if not self.path.exists():
            self._records, self._lines, self._stamp, self._loaded = {}, 0, None, True
            return []
        with self._failing("load", "delegations"), self._locked():
            return self._read()

    def refresh(self) -> None:
        """Read what other processes wrote since we last looked (a ``stat`` when nothing
        changed), e.g. a ``tuibot delegations cancel`` from the shell."""
        with self._failing("load", "delegations"), self._locked():
            self._refresh()

    def get(self, delegation_id: str) -> Delegation | None:
        return self._records.get(delegation_id)

    def all(self) -> list[Delegation]:
        """Every delegation, oldest first."""
        return sorted(self._records.values(), key=lambda record: record.created)

    def children(self, parent_chat: str) -> list[Delegation]:
        """The delegations given from ``parent_chat``, oldest first."""
        return [record for record in self.all() if record.parent.chat == parent_chat]

    def create(self, record: Delegation) -> Delegation:
        """Store a new record (rev 1, an id not yet used); durable when this returns.

        Returns the record as stored (times rounded to the millisecond).
        """
        if record.rev != 1:
            raise ValueError(f"a new delegation starts at revision 1; {record.id} has {record.rev}")
        stored = _normalised(record)
        with self._failing("save", f"delegation {record.id}"), self._locked():
            self._refresh()
            known = self._records.get(record.id)
            if known is not None:
                raise DelegationConflict(record.id, 0, known.rev)
            self._append(stored)
        return stored

    def update(self, record: Delegation, *, expected_rev: int) -> Delegation:
        """Store ``record`` as revision ``expected_rev + 1``; durable when this returns.

        :class:`DelegationConflict` (and nothing written) if the journal's revision is not
        ``expected_rev``, including when another process changed the record.
        """
        with self._failing("save", f"delegation {record.id}"), self._locked():
            self._refresh()
            current = self._records.get(record.id)
            if current is None:
                raise DelegationNotFound(f"no delegation {record.id} in {self.path}")
            if current.rev != expected_rev:
                raise DelegationConflict(record.id, expected_rev, current.rev)
            now = round(time.time(), 3)
            stored = _normalised(replace(record, rev=expected_rev + 1, updated=now))
            self._append(stored)
            if self._lines > max(COMPACT_MIN_LINES, COMPACT_RATIO * len(self._records)):
                self._compact_quietly()
        return stored

    def compact(self) -> None:
        """Rewrite the file atomically with only the latest revision of each record."""
        with self._failing("compact", "delegations"), self._locked():
            self._refresh()
            if self._stamp is not None or self._records:
                self._compact()

    def _read(self) -> list[LineProblem]:
        """Replace the in-memory state with the file's (all or nothing); lock held."""
        result = read_lines(self.path, set_aside=True, check=_check)
        stamp = self._current_stamp()
        from tuibot.delegation.records import Delegation

        records: dict[str, Delegation] = {}
        for data in result.records:
            record = Delegation.from_json(data)
            known = records.get(record.id)
            if known is None or record.rev >= known.rev:
                records[record.id] = record
        self._records, self._lines, self._stamp = records, len(result.records), stamp
        self._loaded = True
        return result.problems

    def _refresh(self) -> None:
        """Re-read the file if anyone wrote it since we last looked; lock held."""
        if self._loaded and self._current_stamp() == self._stamp:
            return
        for problem in self._read():
            _log.warning("%s line %d set aside: %s", self.path, problem.line, problem.reason)

    def _append(self, stored: Delegation) -> None:
        """Write one record, then cache it; lock held. A failed write changes nothing."""
        append_lines(self.path, [stored.to_json()])
        self._records[stored.id] = stored
        self._lines += 1
        try:
            self._stamp = self._current_stamp()
        except OSError:
            self._loaded = False  # the write is durable; the next call simply re-reads

    def _compact(self) -> None:
        records = list(self._records.values())
        rewrite_lines(self.path, [record.to_json() for record in records])
        self._lines = len(records)
        try:
            self._stamp = self._current_stamp()
        except OSError:
            self._loaded = False

    def _compact_quietly(self) -> None:
        """Compaction after an update is housekeeping: the update already succeeded."""
        try:
            self._compact()
        except (StorageError, OSError) as exc:
            _log.warning("delegations not compacted: %s", exc)

    def _current_stamp(self) -> _Stamp | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the lock file: one check-and-write at a time across processes.

        A fresh descriptor per call, so two journals on one file exclude each other even
        inside one process; never nest it (the second acquire would wait forever).
        """
        self.lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd)
            try:
                yield
            finally:
                _unlock(fd)
        finally:
            os.close(fd)

    @contextmanager
    def _failing(self, action: str, subject: str) -> Iterator[None]:
        """Re-word storage trouble: ``could not save delegation dlg_… to /path: …``."""
        try:
            yield
        except (StorageError, OSError) as exc:
            if isinstance(exc, StorageError):
                where, reason, number = exc.path, exc.reason, exc.errno
            else:
                where = Path(exc.filename) if exc.filename else self.path
                reason, number = exc.strerror or str(exc), exc.errno
            word = {"save": "to", "load": "from"}.get(action, "in")
            message = f"could not {action} {subject} {word} {where or self.path}: {reason}"
            raise DelegationStorageError(
                message, path=where or self.path, reason=reason, errno=number, action=action
            ) from exc
