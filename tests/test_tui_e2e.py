"""The real ``tuibot`` binary in a real terminal (tmux): type a message, read the answer.

Everything else tests the app in-process through ``App.run_test``; this one checks what
a person gets: the installed entry point, a real pseudo-terminal, real key presses.
CI installs tmux and sets ``TUIBOT_REQUIRE_TMUX=1`` so the test fails rather than skips.
"""

from __future__ import annotations

import time
from pathlib import Path

from attach_helpers import png_bytes
from scripted_server import ScriptedServer, text
from tmux_helpers import Tmux, on_screen, start_app, tmux, wait_for_screen, wait_until_gone

__all__ = ["tmux"]  # the fixture, from tmux_helpers


def test_type_a_message_and_read_the_answer_off_the_screen(
    server: ScriptedServer, hermetic: Path, tmux: Tmux
) -> None:
    server.enqueue(text("The answer is forty-two."))
    start_app(tmux, server, hermetic)
    wait_for_screen(tmux, "127.0.0.1")  # the engine is up and the server answered
    tmux("send-keys", "-t", "app", "-l", "What is the answer?")
    tmux("send-keys", "-t", "app", "Enter")
    screen = wait_for_screen(tmux, "The answer is forty-two.")
    # At 160 columns the task board shows the message too; the conversation's copy is
    # the one behind the user's bar, with the answer below it.
    lines = screen.splitlines()
    asked = [i for i, line in enumerate(lines) if "█ What is the answer?" in line]
    assert asked, f"the message is not in the conversation:\n{screen}"
    assert "The answer is forty-two." in "\n".join(lines[asked[0] + 1 :]), screen
    chats = list((hermetic / "data" / "chats").glob("*.jsonl"))
    assert len(chats) == 1, "the conversation is on disk"
    assert "forty-two" in chats[0].read_text(encoding="utf-8")
    tmux("send-keys", "-t", "app", "C-q")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and "app" in tmux("list-sessions"):
        time.sleep(0.1)
    assert "app" not in tmux("list-sessions"), "ctrl+q quits when nothing is running"


def test_a_bracketed_paste_of_an_image_path_attaches_it_once(
    server: ScriptedServer, hermetic: Path, tmux: Tmux
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


def test_a_session_working_scrolling_sending_again_and_copying(
    server: ScriptedServer, hermetic: Path, tmux: Tmux
) -> None:
    """What a person does in their first minutes, at 120×40, read off the real screen."""
    first = "First answer begins.\n\n" + "\n\n".join(f"Paragraph {i}." for i in range(60))
    server.enqueue(text(first, pieces=40, delay=0.1))  # about four seconds of streaming
    server.enqueue(text("The second answer is here."))
    start_app(tmux, server, hermetic, size=(120, 40), clipboard=True)
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
