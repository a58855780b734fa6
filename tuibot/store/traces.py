"""The trace log: one JSON line per turn, for looking back at what the engine did.

Traces are a diagnostic aid, never part of a conversation, so losing one must not break a
turn: :meth:`TraceLog.write` turns storage trouble into a logged warning.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from tuibot.store.jsonl import StorageError, append_lines

_log = logging.getLogger("tuibot.traces")


class TraceLog:
    """Appends turn summaries to ``path`` (``DataPaths.traces``) as whole, durable lines."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record``; on failure log a warning and return (never raises).

        Values JSON cannot hold (a ``Path``, an enum) are written as their ``str`` so one
        odd field does not cost the whole record.
        """
        try:
            plain = json.loads(json.dumps(record, default=str))
            append_lines(self.path, [plain])
        except StorageError as exc:
            _log.warning("trace not written: %s", exc)
        except (TypeError, ValueError, RecursionError) as exc:
            _log.warning("trace not written to %s: the record is not JSON (%s)", self.path, exc)
