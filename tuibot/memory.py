"""Each bot's memory: one Markdown file of dated notes, in the data dir.

The bot writes it through ``memory_save`` and consolidation; the context builder puts it
into every prompt. Because it goes into every prompt it has a size cap, and a save past
the cap is refused with advice rather than growing the prompt without bound. Every write
replaces the whole file atomically (it is small), so a crash or a full disk leaves the
previous memory intact; secrets are masked before anything is written.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tuibot.store.atomic import replace_file
from tuibot.system.secrets import redact

MAX_BYTES = 64 * 1024
"""The largest memory file: it is sent with every turn."""
SEARCH_LIMIT = 50
"""Matching entries returned by one search."""
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class MemoryStoreError(Exception):
    """A save that could not be done; the message is meant for the model and the user."""


def memory_path(folder: Path, bot: str) -> Path:
    """``<folder>/<bot>.md``; names that are not file-safe get a hash so none collide."""
    safe = _SAFE.sub("_", bot).strip(".") or "bot"
    if safe != bot:
        safe = f"{safe}-{hashlib.sha256(bot.encode()).hexdigest()[:8]}"
    return folder / f"{safe}.md"


@dataclass(frozen=True)
class Entry:
    """One ``## heading`` section of the memory file (or the text before any heading)."""

    line: int
    """1-based line of the heading (or of the first line)."""
    heading: str
    text: str


class MemoryStore:
    """Read, append to, replace and search one bot's memory file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # parallel tool calls run in threads

    def read(self) -> str:
        """The whole memory ('' when the bot has saved nothing)."""
        try:
            return self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        except OSError as exc:
            reason = exc.strerror or exc
            raise MemoryStoreError(f"cannot read memory {self.path}: {reason}") from exc

    def save(self, note: str, *, now: float | None = None) -> str:
        """Append ``note`` as a dated entry; returns the heading it was saved under."""
        note = redact(note.strip())
        if not note:
            raise MemoryStoreError("nothing to save: the note is empty")
        heading = time.strftime("%Y-%m-%d %H:%M", time.localtime(now))
        with self._lock:
            current = self.read().rstrip("\n")
            entry = f"## {heading}\n{note}\n"
            text = f"{current}\n\n{entry}" if current else entry
            self._write(text, grow=True)
        return heading

    def replace(self, text: str, *, expected: str | None = None) -> None:
        """Replace the whole memory (consolidation writes its summary this way).

        With ``expected``, refuse when the memory is no longer that text: a note saved
        while the model was summarising must not be overwritten.
        """
        with self._lock:
            if expected is not None and self.read() != expected:
                raise MemoryStoreError("memory changed while it was being consolidated")
            self._write(redact(text.strip()) + "\n", grow=False)

    def entries(self) -> list[Entry]:
        """The memory split at its ``## `` headings."""
        entries: list[Entry] = []
        heading, start = "", 1
        body: list[str] = []
        for number, line in enumerate(self.read().splitlines(), 1):
            if line.startswith("## "):
                if heading or any(b.strip() for b in body):
                    entries.append(Entry(start, heading, "\n".join(body).strip()))
                heading, start, body = line[3:].strip(), number, []
            else:
                body.append(line)
        if heading or any(b.strip() for b in body):
            entries.append(Entry(start, heading, "\n".join(body).strip()))
        return entries

    def search(self, query: str) -> list[Entry]:
        """Entries containing every word of ``query`` (case-insensitive), newest first."""
        words = query.casefold().split()
        if not words:
            return []
        hits = [
            entry
            for entry in self.entries()
            if all(word in f"{entry.heading}\n{entry.text}".casefold() for word in words)
        ]
        return hits[::-1][:SEARCH_LIMIT]

    def _write(self, text: str, *, grow: bool) -> None:
        data = text.encode("utf-8")
        if len(data) > MAX_BYTES:
            advice = (
                "shorten the note, or rewrite the memory more briefly"
                if grow
                else "the new memory must be shorter"
            )
            raise MemoryStoreError(
                f"memory would be {len(data) // 1024} KB, over its {MAX_BYTES // 1024} KB cap "
                f"(it is sent with every turn): {advice}"
            )
        try:
            replace_file(self.path, data, new_mode=0o600)
        except OSError as exc:
            raise MemoryStoreError(
                f"memory not saved ({self.path}): {exc.strerror or exc}; the previous memory "
                "is unchanged"
            ) from exc
