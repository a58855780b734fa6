"""Parsed skill frontmatter kept on disk, so a run with unchanged skills never imports YAML.

PyYAML costs a one-shot ``ask`` more than reading every skill does. Its result for a
frontmatter block depends on nothing but that block's text, so the cache is keyed by the
text's SHA-256: an edited skill simply misses (no size or time stamp can go stale), and
the same file moved or copied still hits. Only results that survive a JSON round trip
unchanged are kept (a YAML date or a non-string key would come back as something else),
so a hit is exactly what PyYAML gave. A missing, unreadable or foreign cache file is an
empty cache; one that cannot be written is left alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

VERSION = 1
"""Bumped when the stored shape or the parsing changes, to drop every old entry."""

Parsed = tuple[dict[str, Any], dict[str, int]]
"""A frontmatter's fields and the file line of each top-level key."""


class FrontmatterCache:
    """One load's view of the cache file: lookups, new results, and a final save."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        """The JSON file (None: nothing is read or written)."""
        self._stored = _read(path)
        self._used: dict[str, Any] = {}
        """The entries this load needed; the save keeps only these (skills removed drop)."""

    def get(self, source: str) -> Parsed | None:
        """What PyYAML gave for ``source`` before, as fresh objects, or None."""
        key = _key(source)
        entry = self._stored.get(key)
        if not _valid(entry):
            return None
        self._used[key] = entry
        fresh = json.loads(json.dumps(entry))  # callers own what they get
        return fresh["fields"], fresh["lines"]

    def put(self, source: str, fields: dict[Any, Any], lines: dict[str, int]) -> None:
        """Remember PyYAML's result for ``source`` if JSON gives it back unchanged."""
        entry = {"fields": fields, "lines": lines}
        try:
            same = json.loads(json.dumps(entry, allow_nan=False)) == entry
        except (TypeError, ValueError):  # dates, sets, NaN: not JSON
            return
        if same:
            self._used[_key(source)] = entry

    def save(self) -> None:
        """Write the entries this load used, when they differ from the file's."""
        if self.path is None or self._used == self._stored:
            return
        from tuibot.store.atomic import replace_file

        data = json.dumps({"version": VERSION, "entries": self._used}, ensure_ascii=False)
        with contextlib.suppress(OSError):
            replace_file(self.path, data.encode("utf-8"))


def _key(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def _read(path: Path | None) -> dict[str, Any]:
    """The stored entries, or none when the file is missing, broken or of another version."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def _valid(entry: object) -> bool:
    """An entry of the stored shape: a fields object and integer key lines."""
    if not isinstance(entry, dict) or set(entry) != {"fields", "lines"}:
        return False
    fields, lines = entry["fields"], entry["lines"]
    return (
        isinstance(fields, dict)
        and isinstance(lines, dict)
        and all(isinstance(line, int) and not isinstance(line, bool) for line in lines.values())
    )
