"""Walking the workspace for the search tools, without ever leaving it.

``find_files`` and ``grep`` share one walk: it never follows a symlinked folder (no loops,
no way out), drops a symlinked file whose target lies outside the workspace, skips the
usual tool caches and version-control folders, and stops after a fixed number of entries
so a search of a huge tree ends in bounded time. Glob patterns are matched by our own
translation (``**`` spans folders, ``*`` and ``?`` stay within one name), the same on
every Python version we support.

The walk goes by folder descriptors (``beneath``): each folder is opened from its parent
with no-follow, so a folder swapped for a symlink mid-walk is skipped, not entered, and
each file is opened from its folder's descriptor, only if it is a regular file. Pipes,
sockets and devices are never opened (a read from one can block forever); they are left
out and counted.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from tuibot.toolkit import beneath

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        ".venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
"""Folders not descended into (searching them is almost never what was meant)."""

MAX_SCANNED = 200_000
"""Entries looked at before a walk gives up."""


@dataclass(frozen=True)
class Found:
    """A file the walk found; ``open`` it before the walk moves on (the folder fd closes)."""

    path: Path
    """Where it was found (a symlink's own path for a link), below the walk's base."""
    root: Path
    """The workspace, for opening a symlink's target from its descriptor."""
    folder: int
    """Descriptor of the folder holding it, valid until the walk yields the next file."""
    target: Path | None = None
    """For a symlink: its real target inside the workspace, opened instead."""

    def open(self) -> BinaryIO:
        """The file for reading; ``beneath.NotRegularFile`` if it is not a regular one now."""
        if self.target is not None:
            return beneath.open_file(self.root, self.target)
        return os.fdopen(beneath.open_regular(self.folder, self.path.name), "rb")


@dataclass
class Walk:
    """A walk of the files under ``base`` inside ``root``; counts what it skipped."""

    root: Path
    """The workspace (a real path)."""
    base: Path
    """Where the walk starts (a real path inside ``root``)."""
    scanned: int = 0
    """Entries looked at so far."""
    stopped: bool = False
    """Whether the walk gave up at ``MAX_SCANNED``."""
    skipped_outside: list[str] = field(default_factory=list)
    """Symlinks left out because they lead outside the workspace."""
    skipped_special: list[str] = field(default_factory=list)
    """Pipes, sockets and devices left out: never opened."""

    def files(self) -> Iterator[Found]:
        """Every file below ``base`` (sorted per folder, files before subfolders).

        Raises what opening ``base`` raises (``FileNotFoundError``, ``SymlinkInPath``…);
        a subfolder that cannot be opened is skipped, as ``os.walk`` does.
        """
        try:
            fd = beneath.open_dir(self.root, self.base)
        except NotADirectoryError:
            yield from self._single()
            return
        yield from self._folder(fd, self.base)

    def relative(self, path: Path) -> str:
        """``path`` as the model should write it: relative to the workspace, with ``/``."""
        return path.relative_to(self.root).as_posix()

    def _single(self) -> Iterator[Found]:
        """``base`` is a file: the walk is that file alone (if it is a regular one)."""
        parent = beneath.open_dir(self.root, self.base.parent)
        try:
            yield Found(self.base, self.root, parent)
        finally:
            os.close(parent)

    def _folder(self, fd: int, path: Path) -> Iterator[Found]:
        """The files of the open folder ``fd`` (closed here), then its subfolders'."""
        try:
            with os.scandir(fd) as listing:
                entries = sorted(listing, key=lambda e: e.name)
            folders = [e.name for e in entries if self._is_folder(e)]
            for entry in entries:
                if _is_dir(entry, follow=False):
                    continue
                self.scanned += 1
                if self.scanned > MAX_SCANNED:
                    self.stopped = True
                    return
                found = self._file(entry, fd, path / entry.name)
                if found is not None:
                    yield found
            self.scanned += len(folders)
            for name in folders:
                if self.stopped:
                    return
                yield from self._subfolder(fd, name, path / name)
        finally:
            os.close(fd)

    def _subfolder(self, parent: int, name: str, path: Path) -> Iterator[Found]:
        try:
            fd = os.open(name, beneath.DIR_FLAGS, dir_fd=parent)
        except OSError:  # gone, unreadable, or swapped for a symlink: not entered
            return
        yield from self._folder(fd, path)

    def _is_folder(self, entry: os.DirEntry[str]) -> bool:
        """A real folder to descend into: not a symlink, not a skipped name."""
        return _is_dir(entry, follow=False) and entry.name not in SKIPPED_DIRS

    def _file(self, entry: os.DirEntry[str], fd: int, path: Path) -> Found | None:
        """The entry as a file to search, or None when it is not one (specials counted)."""
        try:
            if entry.is_symlink():
                return None if _is_dir(entry, follow=True) else self._link(path, fd)
            if entry.is_file(follow_symlinks=False):
                return Found(path, self.root, fd)
        except OSError:
            return None
        self.skipped_special.append(self.relative(path))
        return None

    def _link(self, path: Path, fd: int) -> Found | None:
        """A symlink whose target is a regular file inside the workspace, else None."""
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(self.root):
            self.skipped_outside.append(self.relative(path))
            return None
        try:
            mode = beneath.stat_below(self.root, real).st_mode
        except OSError:
            return None  # broken, or changed meanwhile
        if stat.S_ISREG(mode):
            return Found(path, self.root, fd, real)
        if not stat.S_ISDIR(mode):
            self.skipped_special.append(self.relative(path))
        return None


def _is_dir(entry: os.DirEntry[str], *, follow: bool) -> bool:
    """Whether the entry is a folder (through a symlink when ``follow``); False on error."""
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


def glob_matcher(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over ``/``-separated relative paths (``**/`` = any folders)."""
    return _compile(pattern)


@lru_cache(maxsize=64)
def _compile(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        parts.append(_token(pattern, i))
        i += _width(pattern, i)
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def _token(pattern: str, i: int) -> str:
    """The regex for the glob token starting at ``pattern[i]``."""
    if pattern.startswith("**/", i):
        return r"(?:[^/]*/)*"
    if pattern.startswith("**", i):
        return r".*"
    char = pattern[i]
    if char == "*":
        return r"[^/]*"
    if char == "?":
        return r"[^/]"
    if char == "[":
        end = pattern.find("]", i + 2)
        if end != -1:
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            return "[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]"
    return re.escape(char)


def _width(pattern: str, i: int) -> int:
    """How many characters of ``pattern`` the token at ``i`` spans."""
    if pattern.startswith("**/", i):
        return 3
    if pattern.startswith("**", i):
        return 2
    if pattern[i] == "[":
        end = pattern.find("]", i + 2)
        if end != -1:
            return end - i + 1
    return 1
