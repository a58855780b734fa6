"""Replacing a whole file in one step: the one atomic-write implementation in tuibot.

Every rewrite (chat compaction, grants, trust, memory, config saves, tool switches, the
file tools' writes) must leave either the old file or the new one, never half of each,
even when the process dies or the disk fills mid-write. The recipe lives here once: a
temporary file in the target's own folder (``O_EXCL|O_NOFOLLOW``), written and fsynced,
renamed over the target with ``os.replace``, and removed on any failure. An existing
file keeps its permission bits; a new one gets ``new_mode`` (less the umask). A symlink
standing at the target is replaced by the file, never written through; a folder, pipe,
socket or device there is refused. :func:`replace_file` reaches the folder by path
(tuibot's own files); :func:`write_into` works inside a folder descriptor, which is how
the file tools write race-free below the workspace (:mod:`tuibot.toolkit.protect`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

TEMP_SUFFIX = ".tuibot-tmp"
"""How every temporary file ends, so a leftover one is easy to recognise."""
_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)  # Windows would otherwise translate newlines
)

Check = Callable[[], None]
"""Called after the data is safely in the temporary file and before the rename; it may
raise to cancel the replacement (the temporary file is then removed)."""


def replace_file(
    target: Path, data: bytes, *, new_mode: int = 0o666, before_replace: Check | None = None
) -> bool:
    """Make ``data`` the whole content of ``target`` atomically; True if it existed.

    For tuibot's own files: missing folders are made and the folder is reached by path.
    The folder is fsynced after the rename so the new name survives a power cut.
    ``before_replace`` lets a caller that read the file first check it has not changed
    meanwhile. Raises ``OSError``; nothing is left behind.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    existed = _replace(None, str(target), data, new_mode, before_replace)
    sync_folder(target.parent)
    return existed


def write_into(parent: int, name: str, data: bytes, new_mode: int) -> bool:
    """Make ``name`` in the folder ``parent`` hold ``data``, atomically; True if it existed.

    The race-free form for the file tools: the temporary file is created, renamed and (on
    failure) removed through the folder's descriptor, never by a path that a swapped
    symlink could redirect.
    """
    return _replace(parent, name, data, new_mode, None)


def _replace(
    parent: int | None, name: str, data: bytes, new_mode: int, before_replace: Check | None
) -> bool:
    """The recipe itself; ``name`` is relative to ``parent``, or a path when it is None."""
    mode = _existing_mode(parent, name)
    folder, base = os.path.split(name) if parent is None else ("", name)
    temp = os.path.join(folder, f".{base[:200]}.{os.urandom(4).hex()}{TEMP_SUFFIX}")
    fd = os.open(temp, _FLAGS, new_mode if mode is None else mode, dir_fd=parent)
    try:
        try:
            write_all(fd, data)
            if mode is not None and hasattr(os, "fchmod"):  # the umask trims the old bits
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if before_replace is not None:
            before_replace()
        if parent is None:
            os.replace(temp, name)
        else:
            os.replace(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=parent)
        raise
    return mode is not None


def write_all(fd: int, data: bytes) -> None:
    """One ``write`` call in practice; loops only if the OS accepts part of it."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        view = view[written:]


def sync_folder(folder: Path) -> None:
    """Make a new or replaced folder entry durable, where the platform allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # Windows cannot open folders; its rename is durable enough.
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


class NotRegularFile(OSError):
    """A pipe, socket or device where a file was expected; it is never opened or read."""


def check_regular(mode: int, name: str) -> int:
    """``mode`` when it is a regular file's; else the error that says what it is."""
    if stat.S_ISREG(mode):
        return mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"'{name}' is a directory")
    raise NotRegularFile(errno.EINVAL, f"'{name}' is not a regular file (a {kind_of(mode)})")


def kind_of(mode: int) -> str:
    """A word for what a file that is not a regular one is: pipe, socket or device."""
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _existing_mode(parent: int | None, name: str) -> int | None:
    """The permission bits of the regular file ``name``, None when there is none (or a link)."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        return None
    return stat.S_IMODE(check_regular(mode, name))
