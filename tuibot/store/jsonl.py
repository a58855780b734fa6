"""Durable JSON Lines files: whole-line appends, atomic rewrites, bad lines set aside.

Every chat and the trace log are JSONL files, so this module carries the storage
guarantees the engine relies on:

- ``append_lines`` writes a batch with one ``write`` call, then flushes and fsyncs: when it
  returns, the lines survive a crash. A failed write is cut back off, so the file is left
  as it was. If the file does not end in a newline (a torn write), the batch starts on a
  fresh line so it is never merged into the torn fragment.
- ``rewrite_lines`` goes through a temporary file in the same folder, fsync, ``os.replace``
  and an fsync of the folder (:mod:`tuibot.store.atomic`): readers see the old file or
  the new one, never a mix.
- ``read_lines`` never stops at a bad line. A torn or corrupt line is reported with its
  line number and (by default) moved to a sidecar file ``<name>.corrupt.jsonl`` before the
  main file is rewritten without it, so nothing is lost and the next load is clean.

Every OS failure surfaces as :class:`StorageError`, whose message says what failed where.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tuibot.store.atomic import replace_file, sync_folder, write_all
from tuibot.store.jsonl_parse import Check, LineProblem, Parsed, ReadResult, parse_lines
from tuibot.store.jsonl_parse import parse_bytes as _parse

__all__ = [
    "HEAD_LIMIT",
    "Check",
    "LineProblem",
    "ReadResult",
    "StorageError",
    "append_lines",
    "create_lines",
    "encode_record",
    "parse_lines",
    "read_head",
    "read_lines",
    "rewrite_head",
    "rewrite_lines",
    "sidecar_path",
]

_O_BINARY = getattr(os, "O_BINARY", 0)
"""Windows would otherwise translate newlines in ``os.open`` files."""
_FILE_MODE = 0o600
"""Chats can hold secrets pasted by the user: private to the owner."""
HEAD_LIMIT = 1 << 20
"""The longest first line :func:`read_head` reads; a header is far smaller."""
_RETRIES = 3
"""How often a repair is retried when the file changes under it."""


class StorageError(Exception):
    """A file could not be read or written.

    One exception type for callers to catch, carrying a message that already says what
    failed and where (``could not write /x/c_1.jsonl: No space left on device``), plus the
    parts so a caller can re-word it for its own object.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        reason: str = "",
        errno: int | None = None,
        action: str = "",
    ) -> None:
        super().__init__(message)
        self.action = action
        """What was being done: ``read``, ``write``, ``rewrite``, ``create``…"""
        self.path = path
        """The file or folder that failed."""
        self.reason = reason or message
        """The cause alone, e.g. ``No space left on device``."""
        self.errno = errno
        """The OS error number, when the cause was an ``OSError``."""


def sidecar_path(path: Path) -> Path:
    """Where the bad lines of ``path`` are kept: ``c_1.jsonl`` -> ``c_1.corrupt.jsonl``."""
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(f"{stem}.corrupt.jsonl")


def _oserror(action: str, path: Path, exc: OSError) -> StorageError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    message = f"could not {action} {path}: {reason}"
    return StorageError(message, path=path, reason=reason, errno=exc.errno, action=action)


def _changing(action: str, path: Path) -> StorageError:
    reason = "it kept changing while being rewritten"
    return StorageError(f"could not {action} {path}: {reason}", path=path, reason=reason)


def encode_record(record: dict[str, Any]) -> bytes:
    """One record as one UTF-8 line ending in ``\\n`` (JSON escapes embedded newlines).

    Strings holding lone surrogates cannot be UTF-8; those records fall back to ASCII
    escapes, which read back to the same string, so nothing is refused for its text.
    """
    if not isinstance(record, dict):
        raise TypeError(f"expected a dict, got {type(record).__name__}")
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(record, separators=(",", ":")).encode("ascii") + b"\n"


def _encode_all(path: Path, records: Sequence[dict[str, Any]]) -> bytes:
    """Encode a batch before touching the file, so a bad record writes nothing."""
    parts = []
    for index, record in enumerate(records):
        try:
            parts.append(encode_record(record))
        except (TypeError, ValueError, RecursionError) as exc:
            reason = f"record {index} is not JSON-serializable ({exc})"
            message = f"could not write {path}: {reason}"
            raise StorageError(message, path=path, reason=reason) from exc
    return b"".join(parts)


def _make_parent(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise _oserror("create the folder", path.parent, exc) from exc


def append_lines(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """Append ``records`` as whole lines; durable when this returns.

    Creates the file (and its folder) if needed. On any failure the file is truncated back
    to its previous length, so a full disk never leaves half a line behind.
    """
    if not records:
        return
    data = _encode_all(path, records)
    _make_parent(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_BINARY, _FILE_MODE)
    except OSError as exc:
        raise _oserror("open", path, exc) from exc
    try:
        size = _append_fd(fd, data)
    except OSError as exc:
        raise _oserror("write", path, exc) from exc
    finally:
        os.close(fd)
    if size == 0:
        sync_folder(path.parent)


def _append_fd(fd: int, data: bytes) -> int:
    """Write ``data`` at the end of ``fd`` on a fresh line; returns the size before."""
    size = os.fstat(fd).st_size
    if size:
        os.lseek(fd, size - 1, os.SEEK_SET)
        if os.read(fd, 1) != b"\n":
            data = b"\n" + data  # the torn fragment stays its own line, set aside on load
    try:
        write_all(fd, data)
        os.fsync(fd)
    except OSError:
        with suppress(OSError):
            os.ftruncate(fd, size)
            os.fsync(fd)
        raise
    return size


def create_lines(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """Create ``path`` holding ``records``; ``FileExistsError`` if it already exists.

    Exclusive creation lets two writers pick the same new name safely. A failed write
    removes the new file again.
    """
    data = _encode_all(path, records)
    _make_parent(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, _FILE_MODE)
    except FileExistsError:
        raise
    except OSError as exc:
        raise _oserror("create", path, exc) from exc
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        with suppress(OSError):
            os.unlink(path)
        raise _oserror("write", path, exc) from exc
    sync_folder(path.parent)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """Identity and version of a file, to notice a write between a read and a replace."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class _Changed(Exception):
    """The file changed since the caller read it: its replacement is called off."""


def _replace_bytes(path: Path, data: bytes, expect: object = None) -> bool:
    """Atomically make ``data`` the content of ``path``; False if ``expect`` is stale.

    ``expect`` is a :func:`_stamp` taken when the caller read the file; if the file has
    changed since, nothing is replaced so the caller can re-read instead of losing a write.
    Raises ``OSError``; the temporary file never outlives a failure.
    """

    def unchanged() -> None:
        if _stamp(path) != expect:
            raise _Changed

    try:
        replace_file(
            path, data, new_mode=_FILE_MODE, before_replace=None if expect is None else unchanged
        )
    except _Changed:
        return False
    return True


def rewrite_lines(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """Replace the whole file with ``records``, atomically (old or new, never a mix)."""
    data = _encode_all(path, records)
    _make_parent(path)
    try:
        _replace_bytes(path, data)
    except OSError as exc:
        raise _oserror("rewrite", path, exc) from exc


def rewrite_head(path: Path, record: dict[str, Any], then: Sequence[dict[str, Any]] = ()) -> None:
    """Replace the first line with ``record``, keeping every other byte; atomic.

    Used to update a header (a chat's title) without re-encoding the history. ``then``:
    records appended in the same replace (one durable write where a rewrite and an
    append would be two), each on a line of its own as :func:`append_lines` puts them.
    """
    line = _encode_all(path, [record])
    added = _encode_all(path, then)
    for _ in range(_RETRIES):
        try:
            expect = _stamp(path)
            data = path.read_bytes()
            end = data.find(b"\n")
            rest = data[end + 1 :] if end >= 0 else b""
            if added and rest and not rest.endswith(b"\n"):
                rest += b"\n"  # a torn fragment stays its own line, set aside on load
            if _replace_bytes(path, line + rest + added, expect):
                return
        except OSError as exc:
            raise _oserror("rewrite", path, exc) from exc
    raise _changing("rewrite", path)


def read_head(path: Path) -> dict[str, Any] | None:
    """The first line as a JSON object, or None if missing, unreadable or not an object.

    Reads only the head of the file, so listing many long chats stays cheap.
    """
    try:
        with open(path, "rb") as handle:
            raw = handle.readline(HEAD_LIMIT)
    except OSError:
        return None
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_bytes(path: Path) -> tuple[bytes, object]:
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        return b"", None
    except OSError as exc:
        raise _oserror("read", path, exc) from exc
    return data, (st.st_ino, st.st_size, st.st_mtime_ns)


def read_lines(path: Path, *, set_aside: bool = True, check: Check | None = None) -> ReadResult:
    """Every usable record of ``path`` in order, and the lines that were refused.

    A missing file reads as empty. Refused lines are invalid UTF-8, invalid JSON (a torn
    last line included), non-objects, or records ``check`` rejects (called in file order).
    With ``set_aside`` they are appended to :func:`sidecar_path` first, then the file is
    rewritten without them; a write that lands in between is noticed and the repair redone.
    """
    for _ in range(_RETRIES):
        data, stamp = _read_bytes(path)
        parsed = _parse(data, check)
        if not parsed.result.problems or not set_aside:
            return parsed.result
        if _set_aside(path, parsed, stamp):
            return parsed.result
    raise _changing("repair", path)


def _set_aside(path: Path, parsed: Parsed, stamp: object) -> bool:
    """Keep the bad lines in the sidecar, then drop them from the file (in that order)."""
    if _stamp(path) != stamp:
        return False
    found = datetime.now(UTC).isoformat(timespec="seconds")
    sidecar = [
        {"line": p.line, "text": p.text, "reason": p.reason, "found": found}
        for p in parsed.result.problems
    ]
    append_lines(sidecar_path(path), sidecar)
    try:
        data = b"".join(line + b"\n" for line in parsed.kept)
        return _replace_bytes(path, data, stamp)
    except OSError as exc:
        raise _oserror("rewrite", path, exc) from exc
