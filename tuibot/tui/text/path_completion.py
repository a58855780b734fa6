"""Completing ``@path`` in the composer from the workspace's folders.

Why only below the workspace: an attachment outside it is refused anyway, and listing
folders elsewhere would show the person (and their screen) what tuibot may not read. A
folder is listed only when its real path is inside the workspace, so a symlink out lists
nothing; ``..``, absolute and ``~`` paths are not completed at all.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_SHOWN = 50
"""Entries offered at most; typing more letters narrows them."""
_WORD = re.compile(r'(?:^|(?<=\s))@(?:"(?P<quoted>[^"\n]*)|(?P<bare>[^\s"]*))$')


def path_word(before_cursor: str) -> tuple[int, str] | None:
    """The ``@word`` that ends at the cursor: how many characters it spans, and its path."""
    match = _WORD.search(before_cursor)
    if match is None:
        return None
    path = match.group("quoted") if match.group("quoted") is not None else match.group("bare")
    return len(match.group(0)), path or ""


def candidates(root: Path, partial: str) -> list[tuple[str, str]]:
    """``(path, what it is)`` for entries of the workspace that start with ``partial``."""
    folder, _, prefix = partial.rpartition("/")
    if partial.startswith(("/", "~")) or ".." in folder.split("/"):
        return []
    real_root = Path(os.path.realpath(root))
    where = Path(os.path.realpath(real_root / folder)) if folder else real_root
    if not where.is_relative_to(real_root):
        return []
    try:
        entries = sorted(os.scandir(where), key=lambda e: e.name)
    except OSError:
        return []
    found: list[tuple[str, str]] = []
    for entry in entries:
        if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix):
            continue
        path = f"{folder}/{entry.name}" if folder else entry.name
        is_dir = _is_dir(entry)
        found.append((path + "/" if is_dir else path, "folder" if is_dir else "file"))
        if len(found) >= MAX_SHOWN:
            break
    return found


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def mention_text(path: str) -> str:
    """What replaces the ``@word``: ``@path``, quoted when it holds a space.

    A folder's quote stays open, so completing goes on inside it.
    """
    if not any(c.isspace() for c in path):
        return f"@{path}"
    return f'@"{path}' if path.endswith("/") else f'@"{path}"'
