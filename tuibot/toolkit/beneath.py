"""Opening files below a root folder through directory descriptors, following no symlink.

Checking a path and then opening it by name leaves a gap: in between, another process
can swap a folder for a symlink to anywhere, and the open follows it (issue 13 measured
25 of 300 writes landing outside the workspace). So here a path is opened one component
at a time, each relative to the descriptor of the folder before it, with ``O_NOFOLLOW``
on every step: a symlink met on the way is refused, never followed, and whatever is
swapped in mid-call, the open cannot leave the folder it started from. The paths come
from ``resolve_in_workspace`` (real paths, so ``..`` and in-workspace symlinks are already
gone); only the *opening* needs to be race-free. Files are opened non-blocking and
checked with ``fstat`` after ``lstat``, so a FIFO, socket or device is refused, never
read: a read from one can block forever or never end.

A folder that is *moved* (not swapped for a symlink) out of the root while a call holds
it open takes that call's write with it, as ``openat2(RESOLVE_BENEATH)`` would too; the
mover needed write access to both places, and could have moved the file afterwards.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from tuibot.store.atomic import NotRegularFile, check_regular, kind_of

__all__ = ["NotRegularFile", "kind_of"]  # re-exported: the file tools import them from here

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
"""How every folder below the root is opened: as a folder, never through a symlink."""
FILE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
)
"""How a file is opened for reading: no symlink, no blocking on a FIFO, no terminal."""
SUPPORTED = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
"""Whether this system can open relative to a folder descriptor (every POSIX system)."""


class SymlinkInPath(PermissionError):
    """A symlink stood where the resolved path had a folder or file: swapped in mid-call."""


def parts_below(root: Path, target: Path) -> tuple[str, ...]:
    """``target``'s components below ``root`` (both real paths); ``()`` for ``root``."""
    if not target.is_relative_to(root):
        raise PermissionError(f"path {target} is not below {root}")
    parts = target.relative_to(root).parts
    if any(part in ("", ".", "..") for part in parts):
        raise PermissionError(f"path {target} is not a plain path below {root}")
    return parts


def open_folder(root: Path, parts: Sequence[str], *, create: bool = False) -> int:
    """A descriptor of ``root/parts…``, each step opened with no-follow; caller closes it.

    With ``create``, missing folders are made with ``mkdir(dir_fd=…)`` on the way.
    Raises ``SymlinkInPath`` for a symlink on the way, ``NotADirectoryError`` for a file.
    """
    _require_support()
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    for name in parts:
        try:
            child = _child_folder(fd, name, create)
        finally:
            os.close(fd)
        fd = child
    return fd


def _child_folder(parent: int, name: str, create: bool) -> int:
    """The folder ``name`` in ``parent``, opened without following a symlink."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=parent)
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP):
            if _is_file(parent, name):
                raise NotADirectoryError(errno.ENOTDIR, f"'{name}' is not a folder") from None
            raise SymlinkInPath(_swapped(name)) from None  # a link, or one swapped back since
        raise


def open_dir(root: Path, target: Path) -> int:
    """A descriptor of the folder ``target`` below ``root``; the caller closes it."""
    return open_folder(root, parts_below(root, target))


def open_file(root: Path, target: Path) -> BinaryIO:
    """The regular file ``target`` below ``root``, open for reading in binary.

    Raises ``IsADirectoryError``, ``NotRegularFile``, ``SymlinkInPath`` or
    ``FileNotFoundError``; nothing but a regular file is ever opened.
    """
    parts = parts_below(root, target)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, f"{target} is a directory")
    parent = open_folder(root, parts[:-1])
    try:
        fd = open_regular(parent, parts[-1])
    finally:
        os.close(parent)
    return os.fdopen(fd, "rb")


def open_regular(parent: int, name: str) -> int:
    """A read descriptor of the regular file ``name`` in the folder ``parent``.

    ``lstat`` first, so a FIFO or device is never opened; then a non-blocking no-follow
    open and ``fstat``, so one swapped in between is refused as well.
    """
    regular_mode(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode, name)
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkInPath(_swapped(name)) from None
        if exc.errno == errno.ENXIO:  # a unix socket
            raise NotRegularFile(errno.ENXIO, f"'{name}' is not a regular file") from None
        raise
    try:
        regular_mode(os.fstat(fd).st_mode, name)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def stat_below(root: Path, target: Path) -> os.stat_result:
    """``lstat`` of ``target`` below ``root``, reached without following a symlink."""
    parts = parts_below(root, target)
    if not parts:
        return os.stat(root)
    parent = open_folder(root, parts[:-1])
    try:
        return os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
    finally:
        os.close(parent)


def regular_mode(mode: int, name: str) -> int:
    """``mode`` when it is a regular file's; else the error that says what it is."""
    if stat.S_ISLNK(mode):
        raise SymlinkInPath(_swapped(name))
    return check_regular(mode, name)


def _is_file(parent: int, name: str) -> bool:
    """Whether ``name`` is something other than a folder or a symlink (a file in the way)."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        return False
    return not (stat.S_ISLNK(mode) or stat.S_ISDIR(mode))


def _swapped(name: str) -> str:
    return f"'{name}' became a symlink while the call ran; it is not followed"


def _require_support() -> None:
    if not SUPPORTED:
        raise OSError(errno.ENOSYS, "race-free file access needs openat() (a POSIX system)")
