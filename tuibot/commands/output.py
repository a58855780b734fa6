"""Printing for the command modules: one line at a time, readable on any terminal."""

from __future__ import annotations

from datetime import datetime
from typing import TextIO


def emit(stream: TextIO, text: str) -> None:
    """Write a line even if the terminal's encoding cannot show every character."""
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write((text + "\n").encode(encoding, "backslashreplace").decode(encoding))


def local_time(timestamp: float) -> str:
    """``2026-12-03 09:15``: a stored time as the reader's local clock shows it."""
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
