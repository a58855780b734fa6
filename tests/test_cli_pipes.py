"""``tuibot … | head``: a listing whose reader leaves ends quietly, exit 141, for every command.

Real processes and real pipes: the error only exists between two processes, and only the
exit flush of a real interpreter shows the "Exception ignored" half of it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tuibot.commands.output import EXIT_STDOUT_CLOSED
from tuibot.store.chats import ChatStore

PIPE_BUFFER = 64 * 1024
"""Linux's default pipe capacity: a listing longer than this cannot all be written early."""


def tuibot(*argv: str, **kwargs: object) -> subprocess.Popen[bytes]:
    """``python -m tuibot`` with stdout buffered as in a shell (PYTHONUNBUFFERED left out)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return subprocess.Popen(
        [sys.executable, "-m", "tuibot", *argv],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        **kwargs,  # type: ignore[call-overload]
    )


def many_chats(hermetic: Path) -> None:
    """Chats enough for a listing of about twice what a pipe holds."""
    store = ChatStore(hermetic / "data" / "chats")
    for number in range(600):
        store.create(title=f"chat {number} " + "about the weather " * 10)


def test_a_reader_that_takes_one_line_and_leaves(hermetic: Path) -> None:
    many_chats(hermetic)
    process = tuibot("chats", "list", stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    header = process.stdout.readline()  # `| head -1` …
    process.stdout.close()  # … and gone, with most of the listing still to come

    code = process.wait(timeout=60)
    errors = process.stderr.read().decode()

    assert header.startswith(b"ID ")
    assert errors == ""
    assert code == EXIT_STDOUT_CLOSED


def test_a_short_listing_whose_reader_is_already_gone(hermetic: Path) -> None:
    """Everything fits in stdout's buffer, so the write fails only at the final flush."""
    read, write = os.pipe()
    os.close(read)  # no reader at all: the first write to the pipe fails, every time
    try:
        process = tuibot("chats", "list", stdout=write)
    finally:
        os.close(write)
    assert process.stderr is not None

    code = process.wait(timeout=60)
    errors = process.stderr.read().decode()

    assert errors == ""
    assert code == EXIT_STDOUT_CLOSED


def test_the_long_listing_is_longer_than_a_pipe_holds(hermetic: Path) -> None:
    """The first test means something only if the listing cannot all be written early."""
    many_chats(hermetic)
    listing = subprocess.run(
        [sys.executable, "-m", "tuibot", "chats", "list"], capture_output=True, timeout=60
    )
    assert listing.returncode == 0 and len(listing.stdout) > 2 * PIPE_BUFFER
