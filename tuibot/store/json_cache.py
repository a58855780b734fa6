"""Small JSON files that only save work: learnt context windows, detected servers, …

Why one module: each such cache must read as empty when it is missing, damaged or not an
object (a lost cache costs one probe, never an error), and must be replaced whole so a
crash never leaves half a file. Four caches had four copies of that; what each keeps and
how long an entry is fresh stays with its owner.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from tuibot.store.atomic import replace_file

log = logging.getLogger("tuibot.store")


def read_cache(path: Path | None) -> dict[str, Any]:
    """The file's top-level object; empty when there is no file or it is not one."""
    if path is None:
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def save_cache(path: Path | None, entries: dict[str, Any], what: str) -> None:
    """Replace the file with ``entries`` atomically; a failure is logged, never raised."""
    if path is None:
        return
    data = json.dumps(entries, indent=1, sort_keys=True, ensure_ascii=False)
    try:
        replace_file(path, data.encode("utf-8"))
    except OSError as error:
        log.warning("cannot save the %s %s: %s", what, path, error)
