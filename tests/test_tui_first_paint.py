"""The app's first frame waits only for what it shows.

Every module imported before the first paint delays it (tests/bench/bench_startup.py
measures the delay against a bare Textual app). So a real ``tuibot`` runs here on its own
pseudo-terminal, and the moment the first frame is on the screen (the app's ``on_ready``)
it writes the names in ``sys.modules`` and exits: whoever moves one of the modules listed
below back in front of that frame sees this test fail.
"""

from __future__ import annotations

import gc
import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static, TabbedContent
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.later_panes import ConversationSlot
from tuibot.tui.widgets.composer import Composer
from tuibot.tui.widgets.footer import AppFooter

NOT_BEFORE_FIRST_PAINT = (
    # `tuibot` with no command parses only the app's options: no command is registered
    *(f"tuibot.commands.{name}" for name in ("chats", "chats_edit", "config", "delegations")),
    *(f"tuibot.commands.{name}" for name in ("doctor", "grants", "jobs", "keys", "mcp")),
    *(f"tuibot.commands.{name}" for name in ("run", "skills", "tools")),
    # no ./tuibot.toml to offer trust for: the offer's own modules stay out
    "tuibot.commands.trust_changes",
    "tuibot.settings.trust",
    # the chat store (its files, locks, the instance lock): the engine opens it later
    "tuibot.store.chats",
    "tuibot.store.traces",
    # the conversation (empty until a chat opens, after the engine): a slot holds its place
    "tuibot.tui.widgets.conversation",
    "tuibot.tui.widgets.answer",
    "tuibot.tui.widgets.blocks",
    "tuibot.tui.widgets.history_lines",
    "tuibot.tui.widgets.history_drawing",
    # the side tabs hidden at start: their panes are mounted after it (tui/later_panes.py)
    "tuibot.tui.widgets.delegation_tree",
    "tuibot.tui.widgets.tool_log",
    "tuibot.tui.widgets.approvals",
)

APP_ARGV = ["--base-url", "http://127.0.0.1:9/v1"]
"""``tuibot`` with no command: the full-screen app (its server need not answer)."""

DUMP_AT_FIRST_PAINT = (
    "import gc, json, os, sys, time\n"
    "from tuibot.tui.app import TuibotApp\n"
    "def collections():\n"
    "    return sum(generation['collections'] for generation in gc.get_stats())\n"
    "def on_ready(self):\n"
    "    dump = {'modules': sorted(sys.modules), 'collections': collections() - before}\n"
    "    out = os.environ['DUMP_OUT']\n"
    "    open(out + '.part', 'w').write(json.dumps(dump))\n"
    "    os.replace(out + '.part', out)  # whole, or not there yet\n"
    "    time.sleep(0.3)  # the loop stands still: the writer thread sends what was drawn\n"
    "    os._exit(0)\n"
    "TuibotApp.on_ready = on_ready\n"
    "import tuibot.commands.tui as command\n"
    "def run(args, run=command.run):\n"
    "    global before\n"
    "    before = collections()\n"
    "    return run(args)\n"
    "command.run = run\n"
    "from tuibot.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
"""Runs ``tuibot ARGS``; at the first frame writes every imported module's name and how
many garbage collections ran since the app's command began (after parsing ``ARGS``), and
exits once what it had drawn has reached its terminal."""


def at_first_paint(argv: list[str], out: Path, timeout: float = 60) -> dict[str, Any]:
    """What the app had done when its first frame was on its terminal (see the dump), and
    under ``"terminal"`` everything it had written to the terminal by then."""
    env = {**os.environ, "TERM": "xterm-256color", "DUMP_OUT": str(out)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: become tuibot, with the pty as its terminal
        os.execve(sys.executable, [sys.executable, "-c", DUMP_AT_FIRST_PAINT, *argv], env)
    seen = b""
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:  # until the child has gone
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    seen += os.read(fd, 65536)  # keep the pty drained
                except OSError:  # the child has gone
                    break
    finally:
        os.kill(pid, signal.SIGKILL)  # a child that already exited is a zombie: no error
        os.waitpid(pid, 0)
        os.close(fd)
    assert out.exists(), f"the app never painted; its terminal showed {seen[-600:]!r}"
    return {**json.loads(out.read_text()), "terminal": seen}


def test_the_first_frame_waits_for_no_module_it_does_not_use(tmp_path: Path) -> None:
    modules = set(at_first_paint(APP_ARGV, tmp_path / "dump")["modules"])

    assert {"tuibot.tui.app", "textual.app"} <= modules  # the dump is real
    early = [
        bad
        for bad in NOT_BEFORE_FIRST_PAINT
        if any(name == bad or name.startswith(bad + ".") for name in modules)
    ]
    assert early == []


def test_the_first_frame_shows_the_footer_keys(tmp_path: Path) -> None:
    """A person sees the frame whole only with its footer's keys; Textual composes them a
    refresh or two after the rest, so they were drawn ~20 ms after the first frame."""
    terminal = at_first_paint(APP_ARGV, tmp_path / "dump")["terminal"]

    assert b"palette" in terminal and b"Help" in terminal


def test_no_garbage_collection_runs_before_the_first_frame(tmp_path: Path) -> None:
    """Start-up frees almost nothing: a collection before the first frame is wasted."""
    dump = at_first_paint(APP_ARGV, tmp_path / "dump")

    assert dump["collections"] == 0


async def test_collections_resume_once_the_first_frame_is_shown() -> None:
    """``tuibot`` turns the collector off before the app starts; the app turns it on."""
    app = make_app("http://127.0.0.1:9/v1")
    gc.disable()  # as tuibot.commands.tui.run does
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)

            assert gc.isenabled()
    finally:
        gc.enable()


async def test_a_pane_key_before_its_pane_is_mounted_does_nothing(tmp_path: Path) -> None:
    """F5 pressed in the instant between the first frame and the panes' mount."""
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await app.query_one("#delegations").remove()  # as before on_ready mounted it

        await pilot.press("f5")

        assert app.query_one("#side", TabbedContent).active == "tab-delegations"
        assert app.return_code is None  # no crash: the key found no pane to focus


def test_collections_resume_when_the_app_does_not_start(tmp_path: Path) -> None:
    """A config error ends ``tuibot`` before any frame: the collector is on again."""
    from tuibot.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text("[agent\n", encoding="utf-8")

    assert main(["--config", str(bad)]) == 2
    assert gc.isenabled()


class Slotted(App[None]):
    """The conversation's place as the app lays it out: the slot, or the conversation."""

    CSS = "#conversation { height: 1fr; }"

    def __init__(self, slot: bool) -> None:
        super().__init__()
        self.slot = slot

    def compose(self) -> ComposeResult:
        from tuibot.tui.widgets.conversation import Conversation

        yield ConversationSlot() if self.slot else Conversation(id="conversation")
        yield Static("the composer")


@pytest.mark.parametrize("size", [(100, 12), (40, 6)])
async def test_the_slot_looks_like_an_empty_conversation(size: tuple[int, int]) -> None:
    """What the first frame shows in the conversation's place is what it would show."""
    shots = []
    for slot in (True, False):
        app = Slotted(slot)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            shots.append(app.export_screenshot())

    assert shots[0] == shots[1]


async def test_the_conversation_takes_the_slots_place_once() -> None:
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert not app.query(ConversationSlot) and len(app.query("#conversation")) == 1
        await app.conversation.remove()
        await app.query_one("#main").mount(ConversationSlot(), before=0)

        first = app.conversation  # the slot is still there until it is pruned
        assert app.conversation is first
        await pilot.pause()

        assert len(app.query("#conversation")) == 1 and not app.query(ConversationSlot)
        assert app.query_one("#main").children[0] is first


async def test_keys_typed_ahead_of_the_conversation_reach_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keys typed before the first frame can run before ``on_ready`` has mounted the
    conversation (and before the engine exists): each finds it in place."""
    monkeypatch.setattr(TuibotApp, "start_engine", lambda self: None)  # no engine, ever
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not app.query(ConversationSlot))
        await app.conversation.remove()
        await app.query_one("#main").mount(ConversationSlot(), before=0)  # as at start

        app.action_toggle_reasoning()  # ctrl+r
        app.action_toggle_tool_output()  # ctrl+o
        app.on_composer_submitted(Composer.Submitted("typed ahead"))  # Enter
        app.action_scroll_chat(-1)  # page up
        app.action_copy_answer()
        await pilot.pause()

        assert app.conversation.is_mounted and app.show_reasoning and app.show_tool_output
        assert app.session.take_early_input() == [(None, "typed ahead")]
        assert app.return_code is None


async def test_the_footer_keys_are_drawn_before_the_heavy_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A person sees the frame whole only with the footer's keys: the conversation, the
    hidden panes and the engine (a few hundred ms of imports) wait until they are drawn."""
    from tuibot.tui.actions import lifecycle

    screens: list[str] = []

    def conversation_in(slot: ConversationSlot) -> Any:
        screens.append(slot.app.export_screenshot())  # what has been drawn so far
        return real(slot)

    real = lifecycle.conversation_in
    monkeypatch.setattr(lifecycle, "conversation_in", conversation_in)
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)

    assert len(screens) == 1 and "palette" in screens[0] and "Help" in screens[0]


async def test_the_footer_keeps_its_keys_when_they_would_not_change() -> None:
    """Textual rebuilds the footer on every focus or bindings change (five times as the
    app starts, ~40 ms each); a rebuild that would show the same keys is skipped."""
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        footer = app.query_one(AppFooter)
        keys = list(footer.children)

        await footer.recompose()
        assert list(footer.children) == keys

        app.query_one("#chats").focus()  # other keys: rebuilt
        await pilot.pause()
        assert list(footer.children) != keys
