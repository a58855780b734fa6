"""The last messages of a chat file, read without reading the rest.

Opening a chat of thousands of messages shows only its end at first, yet parsing the
whole file costs tens of milliseconds before anything can be drawn. The end is a few
kilobytes at the end of the file: its lines are whole JSON records (the file is written
a line at a time), so the bytes after the first newline of a window read from the end
parse on their own. The full history is loaded afterwards (see the TUI's ``open_chat``),
and that load stays the one that reports and repairs problems.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tuibot.store.chat_message import ChatMessage
from tuibot.store.chat_records import by_type, record_checker
from tuibot.store.history import repair_records
from tuibot.store.jsonl import parse_lines

TAIL_BYTES = 128 * 1024
"""The first window read from the end (a few screens of an ordinary chat)."""
TAIL_MAX_BYTES = 2 * 1024 * 1024
"""The largest window tried; a chat whose last messages are bigger is loaded whole."""
TAIL_MESSAGES = 40
"""Messages a tail must hold, so the screen and a little above it are filled."""


def read_tail(
    path: Path, *, window: int = TAIL_BYTES, least: int = TAIL_MESSAGES
) -> tuple[list[ChatMessage], int] | None:
    """The last messages of ``path`` (at least ``least``) and the repairs made to them.

    None when the window grows to the whole file (or past ``TAIL_MAX_BYTES``), or a line
    in it does not parse: the caller loads the whole file, which reports such lines.
    Unanswered tool calls get the same synthetic results a full load gives them.
    """
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            while window <= TAIL_MAX_BYTES and window < size:
                handle.seek(size - window)
                found = _messages(handle.read(window))
                if found is None:
                    return None
                if len(found) >= least:
                    repaired, added, _ = repair_records(found)
                    return [r["message"] for r in repaired], added
                window *= 2
    except OSError:
        return None
    return None


def _messages(data: bytes) -> list[dict[str, Any]] | None:
    """The message records of the whole lines in ``data`` (its first line is cut)."""
    start = data.find(b"\n") + 1
    if not start:
        return []  # not one whole line: a bigger window is needed
    parsed = parse_lines(data[start:], record_checker())
    return None if parsed.problems else by_type(parsed.records)[2]
