"""The real ``tuibot`` binary in a real terminal (tmux): type a message, read the answer.

Everything else tests the app in-process through ``App.run_test``; this one checks what
a person gets: the installed entry point, a real pseudo-terminal, real key presses.
CI installs tmux and sets ``TUIBOT_REQUIRE_TMUX=1`` so the test fails rather than skips.
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
from attach_helpers import png_bytes
from scripted_server import ScriptedServer, text

TUIBOT = Path(sys.executable).with_name("tuibot")


@pytest.fixture
def tmux() -> Iterator[Callable[..., str]]:
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


def wait_for_screen(tmux: Callable[..., str], wanted: str, timeout: float = 30) -> str:
    """Poll the pane until ``wanted`` is on screen; fail with the screen if it never is."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", "app")
        if wanted in screen:
            return screen
        time.sleep(0.1)
    pytest.fail(f"{wanted!r} never appeared on screen:\n{screen}")


def start_app(tmux: Callable[..., str], server: ScriptedServer, hermetic: Path, **env: str) -> None:
    """The installed ``tuibot`` in a 160x48 tmux pane named ``app``, in the workspace."""
    env = {
        "TUIBOT_HOME": str(hermetic / "home"),
        "TUIBOT_DATA": str(hermetic / "data"),
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        **env,
    }
    command = " ".join(
        [
            "env",
            *(f"{key}={value}" for key, value in env.items()),
            str(TUIBOT),
            "--base-url",
            server.url,
            "--model",
            "test-model",
        ]
    )
    tmux("new-session", "-d", "-s", "app", "-x", "160", "-y", "48", "-c", str(Path.cwd()), command)
    # Without a client some tmux builds keep 80x24; fix the size explicitly.
    tmux("set-option", "-t", "app", "window-size", "manual")
    tmux("resize-window", "-t", "app", "-x", "160", "-y", "48")
    wait_for_screen(tmux, "Approvals")  # the first frame


def test_type_a_message_and_read_the_answer_off_the_screen(
    server: ScriptedServer, hermetic: Path, tmux: Callable[..., str]
) -> None:
    server.enqueue(text("The answer is forty-two."))
    start_app(tmux, server, hermetic)
    wait_for_screen(tmux, "127.0.0.1")  # the engine is up and the server answered
    tmux("send-keys", "-t", "app", "-l", "What is the answer?")
    tmux("send-keys", "-t", "app", "Enter")
    screen = wait_for_screen(tmux, "The answer is forty-two.")
    assert "What is the answer?" in screen
    chats = list((hermetic / "data" / "chats").glob("*.jsonl"))
    assert len(chats) == 1, "the conversation is on disk"
    assert "forty-two" in chats[0].read_text(encoding="utf-8")
    tmux("send-keys", "-t", "app", "C-q")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and "app" in tmux("list-sessions"):
        time.sleep(0.1)
    assert "app" not in tmux("list-sessions"), "ctrl+q quits when nothing is running"


def test_a_bracketed_paste_of_an_image_path_attaches_it_once(
    server: ScriptedServer, hermetic: Path, tmux: Callable[..., str]
) -> None:
    shot = Path("shots/a b.png")
    shot.parent.mkdir()
    shot.write_bytes(png_bytes())
    server.enqueue(text("A grey pixel."))
    start_app(tmux, server, hermetic, TUIBOT_PROVIDERS__LOCAL__VISION="true")
    wait_for_screen(tmux, "127.0.0.1")
    tmux("send-keys", "-t", "app", "-l", "what is")
    # what a terminal sends for a dragged file: its path, escaped, as a bracketed paste
    tmux("set-buffer", "-b", "drop", f"{Path.cwd()}/shots/a\\ b.png")
    tmux("paste-buffer", "-p", "-d", "-b", "drop", "-t", "app")
    screen = wait_for_screen(tmux, 'what is @"shots/a b.png"')
    assert screen.count("shots/a") == 1, screen  # pasted once, not twice
    tmux("send-keys", "-t", "app", "Enter")
    wait_for_screen(tmux, "A grey pixel.")
    wait_for_screen(tmux, "📎 shots/a b.png · image · 67 B")
    [chat] = list((hermetic / "data" / "chats").glob("*.jsonl"))
    assert '"kind":"image"' in chat.read_text(encoding="utf-8")
    tmux("send-keys", "-t", "app", "C-q")


def on_screen(tmux: Callable[..., str]) -> str:
    return tmux("capture-pane", "-p", "-t", "app")


def wait_until_gone(tmux: Callable[..., str], unwanted: str, timeout: float = 30) -> str:
    """Poll the pane until ``unwanted`` is off screen; fail with the screen if it stays."""
    deadline = time.monotonic() + timeout
    screen = on_screen(tmux)
    while time.monotonic() < deadline and unwanted in screen:
        time.sleep(0.1)
        screen = on_screen(tmux)
    if unwanted in screen:
        pytest.fail(f"{unwanted!r} stayed on screen:\n{screen}")
    return screen


def test_a_session_working_scrolling_sending_again_and_copying(
    server: ScriptedServer, hermetic: Path, tmux: Callable[..., str]
) -> None:
    """What a person does in their first minutes, at 120×40, read off the real screen."""
    first = "First answer begins.\n\n" + "\n\n".join(f"Paragraph {i}." for i in range(60))
    server.enqueue(text(first, pieces=40, delay=0.1))  # about four seconds of streaming
    server.enqueue(text("The second answer is here."))
    env = {
        "TUIBOT_HOME": str(hermetic / "home"),
        "TUIBOT_DATA": str(hermetic / "data"),
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
    }
    app = [str(TUIBOT), "--base-url", server.url, "--model", "test-model"]
    # tmux hands its panes LINES=24 COLUMNS=80, which Python's terminal size prefers
    # to the pane's real size: without -u the app draws 80x24 in a 120x40 pane.
    unset = ["-u", "LINES", "-u", "COLUMNS"]
    command = " ".join(["env", *unset, *(f"{k}={v}" for k, v in env.items()), *app])
    tmux("new-session", "-d", "-s", "idle", "-x", "120", "-y", "40", "sleep 600")
    tmux("set-option", "-g", "set-clipboard", "on")  # before the app's pane opens (OSC 52)
    tmux("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command)
    wait_for_screen(tmux, "127.0.0.1")  # the engine is up and the server answered
    tmux("send-keys", "-t", "app", "-l", "Tell me a lot")
    tmux("send-keys", "-t", "app", "Enter")
    working = wait_for_screen(tmux, "esc to stop")  # the working indicator, while it streams
    assert "writing" in working or "waiting for the model" in working
    wait_for_screen(tmux, "Paragraph 59.")
    wait_until_gone(tmux, "esc to stop")  # the turn ended: the indicator went

    assert "Delegations" in on_screen(tmux), "120 columns: the side pane shows"
    for _ in range(8):
        tmux("send-keys", "-t", "app", "PageUp")  # the composer pages the chat
    up = wait_for_screen(tmux, "First answer begins.")
    assert "Paragraph 59." not in up, "scrolled up, the end is out of view"
    for _ in range(10):
        tmux("send-keys", "-t", "app", "PageDown")
    wait_for_screen(tmux, "Paragraph 59.")

    tmux("send-keys", "-t", "app", "-l", "And briefly?")
    tmux("send-keys", "-t", "app", "Enter")
    screen = wait_for_screen(tmux, "The second answer is here.")
    assert "And briefly?" in screen

    assert tmux("show-buffer") == "", "nothing copied yet"
    tmux("send-keys", "-t", "app", "M-c")  # alt+c: the answer in view, as Markdown
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and tmux("show-buffer") != "The second answer is here.":
        time.sleep(0.1)
    assert tmux("show-buffer") == "The second answer is here.", "the terminal got OSC 52"
    tmux("send-keys", "-t", "app", "C-q")
