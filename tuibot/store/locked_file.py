"""One small JSON file shared by every tuibot process, changed only under a lock file.

``grants.json`` (:mod:`tuibot.approvals.grants`) and ``jobs.json`` (:mod:`tuibot.jobs.store`) make
the same promises, so they keep them here, once:

- Nothing is read until first use; a missing or blank file is the empty document.
- What was read is cached and read again only when the file's identity (inode, size,
  mtime) changes, so another process's write is seen on the next check.
- Every change takes ``.<name>.lock`` next to the file (``flock``, where the platform has
  it), re-reads, applies itself to what is there and replaces the file atomically, mode
  ``0o600``; memory ends as the file is, also when the change or the write fails.
- Every failure is the store's own :class:`~tuibot.store.jsonl.StorageError` subclass,
  with a message that names the file (``could not read grants from /x/grants.json: …``).

What differs between the stores (the document's shape, the error type, the word in the
messages) each passes in.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Generic, TypeVar

from tuibot.store.atomic import replace_file
from tuibot.store.jsonl import StorageError

FILE_MODE = 0o600
"""What these files say (what may run unasked, what runs when) is private to the owner."""

Stamp = tuple[int, int, int] | None
"""A file's inode, size and mtime (ns); None when it does not exist."""

T = TypeVar("T")
E = TypeVar("E", bound=StorageError)


class LockedJsonFile(Generic[T, E]):
    """The document ``T`` in one JSON file; read lazily, re-read when the file changes.

    ``parse`` turns the file's bytes into a ``T`` (see :meth:`decode`), ``encode`` does the
    reverse, and ``copy`` makes a copy a change may edit without touching the cached one.
    A value this returns is never changed afterwards: a change edits a copy.
    """

    def __init__(
        self,
        path: Path,
        *,
        noun: str,
        error: type[E],
        version: int,
        parse: Callable[[bytes], T],
        encode: Callable[[T], bytes],
        copy: Callable[[T], T],
    ) -> None:
        self.path = path
        self._noun = noun
        """``grants`` or ``jobs``: the word in ``could not read grants from …``."""
        self._error = error
        self._version = version
        self._parse = parse
        self._encode = encode
        self._copy = copy
        self._value: T | None = None
        """As last read or written; None before the first successful read."""
        self._stamp: Stamp = None
        self._lock = threading.Lock()

    # reading

    def load(self) -> T:
        """Read the file now, whether or not it changed."""
        with self._lock:
            value, self._stamp = self._read()
            self._value = value
            return value

    def fresh(self) -> T:
        """The cached document, read again when the file is not the one last seen."""
        with self._lock:
            if self._value is None or self._current_stamp() != self._stamp:
                self._value, self._stamp = self._read()
            return self._value

    def changed(self) -> bool:
        """Whether the file is not the one last read or written (another process wrote)."""
        with self._lock:
            return self._value is None or self._current_stamp() != self._stamp

    def decode(self, data: bytes) -> dict[str, Any] | None:
        """The JSON object in ``data`` checked for its version; None for a blank file.

        For ``parse``: anything else raises the store's error naming the file.
        """
        if not data.strip():
            return None  # an empty file holds nothing to lose
        try:
            document = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise self.malformed(f"not valid UTF-8 (byte {exc.start + 1})") from exc
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            raise self.malformed(f"invalid JSON: {exc.msg} ({where})") from exc
        except (ValueError, RecursionError) as exc:
            raise self.malformed(f"invalid JSON: {exc}") from exc
        if not isinstance(document, dict):
            raise self.malformed(f"expected a JSON object, found a {type(document).__name__}")
        version = document.get("version", self._version)
        if version != self._version:
            reason = f"unsupported version {version!r} (this tuibot reads {self._version})"
            raise self.malformed(reason)
        return document

    def _current_stamp(self) -> Stamp:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self.oserror(f"read {self._noun} from", exc) from exc
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _read(self) -> tuple[T, Stamp]:
        try:
            with open(self.path, "rb") as handle:
                st = os.fstat(handle.fileno())
                data = handle.read()
        except FileNotFoundError:
            return self._parse(b""), None
        except OSError as exc:
            raise self.oserror(f"read {self._noun} from", exc) from exc
        return self._parse(data), (st.st_ino, st.st_size, st.st_mtime_ns)

    # changing

    def update(self, change: Callable[[T], bool]) -> None:
        """Re-read, apply ``change`` (True when it changed something), write atomically.

        Memory ends as the file is: the new content when the write worked, what was read
        when ``change`` refused or the write failed.
        """
        with self._lock, self._file_lock():
            value, stamp = self._read()
            self._value, self._stamp = self._copy(value), stamp
            if not change(value):
                return
            data = self._encode(value)
            try:
                replace_file(self.path, data, new_mode=FILE_MODE)
            except OSError as exc:
                raise self.oserror(f"write {self._noun} to", exc) from exc
            self._value = value
            try:
                self._stamp = self._current_stamp()
            except self._error:
                self._stamp = None  # re-read on the next check

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """Hold ``.<name>.lock`` next to the file, where the platform has ``flock``."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise self.oserror("create the folder for", exc) from exc
        try:
            import fcntl
        except ImportError:  # Windows: writes stay atomic, concurrent changes may race
            yield
            return
        lock_path = self.path.with_name(f".{self.path.name}.lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        except OSError as exc:
            raise self.oserror("lock", exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            with suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    # errors

    def malformed(self, reason: str) -> E:
        """The error for a file whose content cannot be used."""
        message = f"could not read {self._noun} from {self.path}: {reason}"
        return self._error(message, path=self.path, reason=reason, action="read")

    def oserror(self, action: str, exc: OSError) -> E:
        """The error for ``exc``, met while doing ``action`` to the file."""
        reason = exc.strerror or str(exc) or type(exc).__name__
        return self._error(
            f"could not {action} {self.path}: {reason}",
            path=self.path,
            reason=reason,
            errno=exc.errno,
            action=action,
        )


def dump_json(document: dict[str, Any]) -> bytes:
    """``document`` as indented UTF-8 JSON, one newline at the end.

    A lone surrogate (from a message or a reason) cannot be UTF-8: then the whole file is
    written with escapes, which read back the same.
    """
    try:
        return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(document, indent=2) + "\n").encode("ascii")
