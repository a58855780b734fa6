"""The installed ``tuibot`` in a real terminal (tmux), for the end-to-end tests.

Everything else tests the app in-process through ``App.run_test``; these helpers give
what a person gets: the installed entry point, a real pseudo-terminal, real key presses,
the rendered screen read back with ``capture-pane``. One way to start the app, so every
tmux test draws at the pane's real size (see :func:`start_app`).
CI installs tmux and sets ``TUIBOT_REQUIRE_TMUX=1`` so the tests fail rather than skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len
from scripted_server import ScriptedServer

TUIBOT = Path(sys.executable).with_name("tuibot")

Tmux = Callable[..., str]
"""``tmux(*args)``: one tmux command on the test's private server; its stdout."""


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """Run tmux commands on a private server socket, killed afterwards."""
    if shutil.which("tmux") is None:
        if os.environ.get("TUIBOT_REQUIRE_TMUX"):
            pytest.fail("tmux is required (TUIBOT_REQUIRE_TMUX is set) but not installed")
        pytest.skip("tmux is not installed")
    socket = f"tuibot-test-{uuid.uuid4().hex[:8]}"

    def run(*args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    yield run
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10)


def on_screen(tmux: Tmux) -> str:
    """The app's pane as drawn now (escapes have acted; no colours)."""
    return tmux("capture-pane", "-p", "-t", "app")


def wait_for_screen(tmux: Tmux, wanted: str, timeout: float = 30) -> str:
    """Poll the pane until ``wanted`` is on screen; fail with the screen if it never is."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = on_screen(tmux)
        if wanted in screen:
            return screen
        time.sleep(0.1)
    pytest.fail(f"{wanted!r} never appeared on screen:\n{screen}")


def wait_until_gone(tmux: Tmux, unwanted: str, timeout: float = 30) -> str:
    """Poll the pane until ``unwanted`` is off screen; fail with the screen if it stays."""
    deadline = time.monotonic() + timeout
    screen = on_screen(tmux)
    while time.monotonic() < deadline and unwanted in screen:
        time.sleep(0.1)
        screen = on_screen(tmux)
    if unwanted in screen:
        pytest.fail(f"{unwanted!r} stayed on screen:\n{screen}")
    return screen


def start_app(
    tmux: Tmux,
    server: ScriptedServer,
    hermetic: Path,
    *,
    size: tuple[int, int] = (160, 48),
    clipboard: bool = False,
    **env: str,
) -> None:
    """The installed ``tuibot`` in a tmux pane named ``app`` of ``size``, in the workspace.

    tmux hands its panes ``LINES=24 COLUMNS=80``, which Python's terminal-size lookup
    prefers to the pane's real size: without ``env -u`` the app draws 80x24 in any pane.
    ``clipboard`` lets the app's OSC 52 writes into tmux's buffers (``set-clipboard on``;
    its default, ``external``, ignores an application's). Returns once the app's first
    frame fills the pane (:func:`assert_fills_the_pane`).
    """
    width, height = (str(n) for n in size)
    env = {
        "TUIBOT_HOME": str(hermetic / "home"),
        "TUIBOT_DATA": str(hermetic / "data"),
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        **env,
    }
    app = [str(TUIBOT), "--base-url", server.url, "--model", "test-model"]
    unset = ["-u", "LINES", "-u", "COLUMNS"]
    command = " ".join(["env", *unset, *(f"{k}={v}" for k, v in env.items()), *app])
    # A first session, so that options are set before the app's pane opens.
    tmux("new-session", "-d", "-s", "idle", "-x", width, "-y", height, "sleep 600")
    if clipboard:
        tmux("set-option", "-g", "set-clipboard", "on")
    tmux(
        "new-session", "-d", "-s", "app", "-x", width, "-y", height, "-c", str(Path.cwd()), command
    )
    # Without a client some tmux builds keep 80x24; fix the size explicitly (per window:
    # tmux 3.3a's server exits on a global ``window-size manual`` before a client).
    tmux("set-option", "-t", "app", "window-size", "manual")
    tmux("resize-window", "-t", "app", "-x", width, "-y", height)
    assert_fills_the_pane(tmux)


def pane_size(tmux: Tmux) -> tuple[int, int]:
    """The app pane's size as tmux has it (columns, rows)."""
    width, height = tmux(
        "display-message", "-p", "-t", "app", "#{pane_width} #{pane_height}"
    ).split()
    return int(width), int(height)


def drawn_size(screen: str) -> tuple[int, int]:
    """How far a capture reaches: its widest line and its last non-blank row."""
    lines = screen.rstrip("\n").split("\n")
    rows = [i for i, line in enumerate(lines) if line.strip()]
    widest = max((cell_len(line.rstrip()) for line in lines), default=0)
    return widest, (rows[-1] + 1 if rows else 0)


def assert_fills_the_pane(tmux: Tmux, timeout: float = 30) -> None:
    """Wait for the app's frame to reach the pane's last column and last row; fail with
    the screen if it stays smaller (an app drawing 80x24 in a bigger pane)."""
    wanted = pane_size(tmux)
    deadline = time.monotonic() + timeout
    screen = on_screen(tmux)
    while time.monotonic() < deadline and drawn_size(screen) != wanted:
        time.sleep(0.1)
        screen = on_screen(tmux)
    assert drawn_size(screen) == wanted, f"drew {drawn_size(screen)} in a {wanted} pane:\n{screen}"
