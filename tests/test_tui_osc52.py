"""A copy in the app reaches a real terminal as OSC 52 (tmux takes it into a buffer).

The in-process tests (``test_tui_copy``) read the app's clipboard; this one runs the real
``tuibot`` in tmux and checks the terminal got the escape. tmux accepts OSC 52 from an
application only with ``set-clipboard on`` (its default, ``external``, ignores it), and
then stores the text as a paste buffer, which ``show-buffer`` prints.
CI installs tmux and sets ``TUIBOT_REQUIRE_TMUX=1`` so the test fails rather than skips.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, text
from tmux_helpers import Tmux, start_app, tmux, wait_for_screen

__all__ = ["tmux"]  # the fixture, from tmux_helpers

ANSWER = "Run this:\n\n```sh\necho copied-by-osc52\n```\n"


def wait_for_buffer(tmux: Tmux, wanted: str, timeout: float = 10) -> None:
    """Wait until the newest paste buffer is ``wanted``; fails with what it held."""
    deadline = time.monotonic() + timeout
    held = ""
    while time.monotonic() < deadline:
        held = tmux("show-buffer")
        if held == wanted:
            return
        time.sleep(0.1)
    pytest.fail(f"tmux's buffer never held {wanted!r}; it held {held!r}")


def test_copying_an_answer_sends_osc52_to_the_terminal(
    server: ScriptedServer, hermetic: Path, tmux: Tmux
) -> None:
    server.enqueue(text(ANSWER))
    start_app(tmux, server, hermetic, size=(120, 40), clipboard=True)
    wait_for_screen(tmux, "127.0.0.1")  # the engine is up and the server answered
    tmux("send-keys", "-t", "app", "-l", "How do I copy?")
    tmux("send-keys", "-t", "app", "Enter")
    wait_for_screen(tmux, "echo copied-by-osc52")
    assert tmux("show-buffer") == "", "nothing copied yet"

    tmux("send-keys", "-t", "app", "M-c")  # alt+c: the answer, as Markdown
    wait_for_buffer(tmux, ANSWER)
    tmux("send-keys", "-t", "app", "M-k")  # alt+k: its code block, without the fence
    wait_for_buffer(tmux, "echo copied-by-osc52\n")
    tmux("send-keys", "-t", "app", "C-q")
