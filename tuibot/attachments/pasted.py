"""A pasted path to an image, as terminals paste a file dragged onto them.

Why: dragging a screenshot onto the terminal is how people attach one; the terminal
pastes its path, quoted (``'/home/me/my shot.png'``: GNOME Terminal, Konsole), escaped
(``/home/me/my\\ shot.png``: iTerm2, kitty) or as a ``file://`` URI. The composer turns
such a paste into an ``@"path"`` mention, so the file then follows every rule of
``@path``: read when the message is sent, under the workspace guards (a path outside the
workspace is refused then, with the reason). Only one existing file with an image
extension counts; anything else is pasted as it came. Nothing is read here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePath
from urllib.parse import unquote, urlsplit

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
"""Extensions of the image formats vision APIs take (the bytes decide when sent)."""
_ESCAPED = re.compile(r"\\(.)")


def pasted_image(text: str, workspace: Path) -> str | None:
    """The path to put in an ``@"…"`` mention, or None when ``text`` is no image path.

    A path inside ``workspace`` comes back relative to it (the chip shows that name).
    """
    path = _unwrapped(text.strip())
    if not path or "\n" in path or '"' in path or "\0" in path:
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


def _unwrapped(text: str) -> str:
    """The path inside the quotes, escapes or URI a terminal wrapped it in."""
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.startswith("file://"):
        url = urlsplit(text)
        return unquote(url.path) if url.netloc in ("", "localhost") else ""
    return _ESCAPED.sub(r"\1", text)
