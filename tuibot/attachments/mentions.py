"""Finding ``@path`` in what a person typed, and writing one for ``ask --attach``.

Why these rules: ``@`` also starts names (``@alice``), decorators (``@pytest.fixture``)
and packages (``@types/node``), and sits in addresses (``me@host``). So only an ``@`` at
the start of a word counts, and a bare word attaches only when something of that name is
in the workspace (a symlink counts, and is then checked like any path). A word written
as a path on purpose — quoted (``@"my notes.md"``), absolute, or starting with ``./``,
``../`` or ``~`` — always attaches, so ``@../x`` or ``@/etc/passwd`` is refused with a
reason instead of passing as text. A bare word with a ``/`` that names nothing is sent as
text, and the person is told. Trailing punctuation (``see @notes.md.``) is dropped when
the word with it is no file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

_MENTION = re.compile(r'(?:^|(?<=\s))@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]+))')
_TRAILING = ".,;:!?)]}'"
_EXPLICIT = ("/", "./", "../", "~")


@dataclass(frozen=True)
class Mention:
    """One ``@path`` in the text: the path as typed and where the mention stands."""

    path: str
    start: int
    end: int


@dataclass
class Found:
    """The mentions to attach, and path-looking words that named no file."""

    mentions: list[Mention] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def explicit(path: str) -> bool:
    """Whether a bare word is written as a path on purpose (absolute, ``./``, ``../``, ``~``)."""
    return path.startswith(_EXPLICIT) or path == ".."


def find_mentions(text: str, exists: Callable[[str], bool]) -> Found:
    """The ``@path`` mentions of ``text``; ``exists`` says whether a path names something."""
    found = Found()
    for match in _MENTION.finditer(text):
        quoted = match.group("quoted")
        if quoted is not None:
            found.mentions.append(Mention(quoted, match.start(), match.end()))
            continue
        word = match.group("bare")
        path = _bare_path(word, exists)
        if path is not None:
            found.mentions.append(Mention(path, match.start(), match.start() + 1 + len(path)))
        elif "/" in word:
            found.missing.append(word.rstrip(_TRAILING))
    return found


def _bare_path(word: str, exists: Callable[[str], bool]) -> str | None:
    """The path a bare word names, or None when it is plain text (``@alice``)."""
    stripped = word.rstrip(_TRAILING) or word
    for candidate in dict.fromkeys((word, stripped)):
        if exists(candidate):
            return candidate
    return stripped if explicit(stripped) else None


def mention_for(path: str) -> str:
    """The ``@`` mention that attaches ``path`` always (quoted, so it is never text)."""
    if '"' in path or "\n" in path or not path.strip():
        raise ValueError(f"cannot attach {path!r}: a path with a double quote or a line break")
    return f'@"{path}"'
