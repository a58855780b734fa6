"""Walking the workspace for the search tools, without ever leaving it.

``find_files`` and ``grep`` share one walk: it never follows a symlinked folder (no loops,
no way out), drops a symlinked file whose target lies outside the workspace, skips the
usual tool caches and version-control folders, and stops after a fixed number of entries
so a search of a huge tree ends in bounded time. Glob patterns are matched by our own
translation (``**`` spans folders, ``*`` and ``?`` stay within one name), the same on
every Python version we support.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

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

    def files(self) -> Iterator[Path]:
        """Every file below ``base`` (sorted per folder), as the path to open."""
        if self.base.is_file():
            yield self.base
            return
        for folder, dirs, names in os.walk(self.base, followlinks=False, onerror=None):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not self._link(folder, d))
            for name in sorted(names):
                self.scanned += 1
                if self.scanned > MAX_SCANNED:
                    self.stopped = True
                    return
                path = Path(folder, name)
                if self._inside(path):
                    yield path
            self.scanned += len(dirs)

    def relative(self, path: Path) -> str:
        """``path`` as the model should write it: relative to the workspace, with ``/``."""
        return path.relative_to(self.root).as_posix()

    def _link(self, folder: str, name: str) -> bool:
        """Symlinked folders are never entered: they may loop or lead out."""
        return os.path.islink(os.path.join(folder, name))

    def _inside(self, path: Path) -> bool:
        """A regular file, or a symlink whose target is a file inside the workspace."""
        if not path.is_symlink():
            return True
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(self.root):
            self.skipped_outside.append(self.relative(path))
            return False
        return real.is_file()


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
