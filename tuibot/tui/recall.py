"""What the person sent before, for ↑/↓ recall in the composer, kept across runs.

Entries live in ``<data>/composer_history.jsonl``, one ``{"text": …}`` line each, appended
as they are sent. The file is a convenience, not a record: a torn last line (a crash
mid-write) or any other bad line is skipped, and the file is trimmed to the newest
:data:`HISTORY_CAP` entries once it grows well past that. Storage trouble never stops a
message from being sent; the history then lives in memory for the session.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tuibot.store.jsonl import StorageError, append_lines, read_lines, rewrite_lines

HISTORY_CAP = 500
"""How many entries are kept (in memory and on disk)."""
HISTORY_FILE = "composer_history.jsonl"
"""The file's name under the data folder."""

log = logging.getLogger("tuibot.tui.recall")


class InputHistory:
    """Sent inputs, oldest first, and a cursor for walking back through them.

    Walking starts with :meth:`back`, which keeps what was being typed (the draft);
    :meth:`forward` past the newest entry gives the draft back and ends the walk.
    """

    def __init__(self, path: Path | None = None, cap: int = HISTORY_CAP) -> None:
        self.path = path
        """Where entries persist; None keeps them for this session only."""
        self.cap = cap
        self.entries: list[str] = []
        self._loaded = path is None
        self._on_disk = 0
        """Lines in the file as far as we know (to decide when to trim it)."""
        self._index: int | None = None
        """Position of the entry shown while walking; None when not walking."""
        self._draft = ""

    @property
    def walking(self) -> bool:
        """Whether an earlier entry (not the draft) is in the composer now."""
        return self._index is not None

    @property
    def shown(self) -> str | None:
        """The entry recalled right now, if walking."""
        return None if self._index is None else self.entries[self._index]

    def load(self) -> None:
        """Read the file once (first use); bad lines are skipped, never fatal."""
        if self._loaded:
            return
        self._loaded = True
        assert self.path is not None
        try:
            result = read_lines(self.path, set_aside=False)
        except StorageError as error:
            log.warning("composer history not read: %s", error)
            return
        texts = [r["text"] for r in result.records if isinstance(r.get("text"), str)]
        self._on_disk = len(result.records) + len(result.problems)
        self.entries = texts[-self.cap :] + self.entries
        self.entries = self.entries[-self.cap :]
        if self._on_disk > self.cap * 2 or result.problems:
            self._rewrite()

    def add(self, text: str) -> None:
        """Remember a sent input (a repeat of the newest one is not stored twice)."""
        self.load()
        self.reset()
        if not text or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        del self.entries[: -self.cap]
        if self.path is None:
            return
        try:
            append_lines(self.path, [{"text": text}])
        except StorageError as error:
            log.warning("composer history not saved: %s", error)
            return
        self._on_disk += 1
        if self._on_disk > self.cap * 2:
            self._rewrite()

    def _rewrite(self) -> None:
        if self.path is None:
            return
        try:
            rewrite_lines(self.path, [{"text": text} for text in self.entries])
        except StorageError as error:
            log.warning("composer history not trimmed: %s", error)
            return
        self._on_disk = len(self.entries)

    def back(self, draft: str) -> str | None:
        """The next older entry, or None at the oldest; ``draft`` is kept on the first step."""
        self.load()
        if self._index is None:
            if not self.entries:
                return None
            self._draft = draft
            self._index = len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def forward(self) -> str | None:
        """The next newer entry, the draft after the newest, or None when not walking."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def reset(self) -> None:
        """Stop walking (after a send); the next :meth:`back` starts from the newest."""
        self._index = None
        self._draft = ""
