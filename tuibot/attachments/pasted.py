"""A pasted path to an image, as terminals paste a file dragged onto them.

Why: dragging a screenshot onto the terminal is how people attach one; the terminal
pastes its path, quoted (``'/home/me/my shot.png'``: GNOME Terminal, Konsole), escaped
(``/home/me/my\\ shot.png``: iTerm2, kitty) or as a ``file://`` URI, several files on one
line split as a shell would. The composer turns such a paste into ``@"path"`` mentions,
so each file then follows every rule of ``@path``: read when the message is sent, under
the workspace guards (a path outside the workspace is refused then, with the reason).
Only existing files with an image extension count, all of them; anything else is pasted
as it came. Nothing is read here.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path, PurePath
from urllib.parse import unquote, urlsplit

MAX_PASTE = 16384
"""Longer pastes are text: no terminal pastes that much for a few dragged files."""
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
"""Extensions of the image formats vision APIs take (the bytes decide when sent)."""


def pasted_images(text: str, workspace: Path) -> list[str]:
    """The paths to put in ``@"…"`` mentions, or [] when ``text`` is not image paths only.

    One line of one or more paths (several files dragged at once), each an existing file
    with an image extension; a path inside ``workspace`` comes back relative to it (the
    chip shows that name).
    """
    line = text.strip()
    if not line or "\n" in line or "\r" in line or len(line) > MAX_PASTE:
        return []
    try:
        words = shlex.split(line)
    except ValueError:  # an open quote: this is prose, not paths
        return []
    found: list[str] = []
    for word in words:
        path = _image_path(_unwrapped(word), workspace)
        if path is None:  # one word that is no image file: the paste is text
            return []
        found.append(path)
    return found


def _image_path(path: str, workspace: Path) -> str | None:
    """``path`` (relative to ``workspace`` when inside it) if it names an image file."""
    if not path or '"' in path or "\0" in path:
        return None
    if PurePath(path).suffix.lower() not in IMAGE_SUFFIXES:
        return None
    full = Path(os.path.expanduser(path))
    try:
        if not (full if full.is_absolute() else workspace / full).is_file():
            return None
    except OSError:  # a name too long, a folder we may not enter: no file to attach
        return None
    if full.is_absolute() and full.is_relative_to(workspace):
        return str(full.relative_to(workspace))
    return path


def _unwrapped(word: str) -> str:
    """The path a ``file://`` URI names (another host's: none); any other word as it is."""
    if not word.startswith("file://"):
        return word
    url = urlsplit(word)
    return unquote(url.path) if url.netloc in ("", "localhost") else ""
