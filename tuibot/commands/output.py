"""Printing for the command modules: one line at a time, readable on any terminal.

Also what happens when the reader goes away (``tuibot chats list | head -1``): every
command's output ends the same quiet way, decided once in ``tuibot.cli.main``.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from typing import TextIO

EXIT_STDOUT_CLOSED = 141
"""Exit code when stdout's reader left: 128 + SIGPIPE, as the shell reports for ``yes |
head`` and any program killed by the signal. Scripts that allow a closed pipe (``|| [ $?
-eq 141 ]``) then treat tuibot like every other tool, and it stays apart from the 1 that
tuibot's commands use for "not found" or "failed". Python ignores SIGPIPE (so ``ask`` can
finish a turn whose reader left); putting back the default would kill the app and
headless mode at the first closed socket, so the error is caught instead."""


def emit(stream: TextIO, text: str) -> None:
    """Write a line even if the terminal's encoding cannot show every character."""
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write((text + "\n").encode(encoding, "backslashreplace").decode(encoding))


def silence(stream: TextIO) -> bool:
    """Point a closed pipe's descriptor at /dev/null so the exit flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return True


def stdout_closed() -> int:
    """End a command whose stdout was closed: no traceback, no message, exit 141.

    The Python docs' recipe for ``BrokenPipeError``: what is still buffered can never be
    written, so the descriptor goes to /dev/null and the exit flush has nothing to fail.
    """
    silence(sys.stdout)
    return EXIT_STDOUT_CLOSED


def local_time(timestamp: float) -> str:
    """``2026-12-03 09:15``: a stored time as the reader's local clock shows it."""
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
