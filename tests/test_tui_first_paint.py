"""The app's first frame waits only for what it shows.

Every module imported before the first paint delays it (tests/bench/bench_startup.py
measures the delay against a bare Textual app). So a real ``tuibot`` runs here on its own
pseudo-terminal, and the moment the first frame is on the screen (the app's ``on_ready``)
it writes the names in ``sys.modules`` and exits: whoever moves one of the modules listed
below back in front of that frame sees this test fail.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

from textual.widgets import TabbedContent
from tui_helpers import SIZE, make_app, ready

NOT_BEFORE_FIRST_PAINT = (
    # `tuibot` with no command parses only the app's options: no command is registered
    *(f"tuibot.commands.{name}" for name in ("chats", "chats_edit", "config", "delegations")),
    *(f"tuibot.commands.{name}" for name in ("doctor", "grants", "jobs", "keys", "mcp")),
    *(f"tuibot.commands.{name}" for name in ("run", "skills", "tools")),
    # no ./tuibot.toml to offer trust for: the offer's own modules stay out
    "tuibot.commands.trust_changes",
    "tuibot.settings.trust",
    # the side tabs hidden at start: their panes are mounted after it (tui/later_panes.py)
    "tuibot.tui.widgets.delegation_tree",
    "tuibot.tui.widgets.tool_log",
    "tuibot.tui.widgets.approvals",
)

DUMP_AT_FIRST_PAINT = (
    "import json, os, sys\n"
    "from tuibot.tui.app import TuibotApp\n"
    "def on_ready(self):\n"
    "    open(os.environ['MODULES_OUT'], 'w').write(json.dumps(sorted(sys.modules)))\n"
    "    os._exit(0)\n"
    "TuibotApp.on_ready = on_ready\n"
    "from tuibot.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
"""Runs ``tuibot ARGS`` and writes every imported module's name at the first frame."""


def modules_at_first_paint(argv: list[str], out: Path, timeout: float = 60) -> set[str]:
    """The modules imported when the app's first frame is on its terminal."""
    env = {**os.environ, "TERM": "xterm-256color", "MODULES_OUT": str(out)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: become tuibot, with the pty as its terminal
        os.execve(sys.executable, [sys.executable, "-c", DUMP_AT_FIRST_PAINT, *argv], env)
    seen = b""
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not out.exists():
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
    return set(json.loads(out.read_text()))


def test_the_first_frame_waits_for_no_module_it_does_not_use(tmp_path: Path) -> None:
    modules = modules_at_first_paint(["--base-url", "http://127.0.0.1:9/v1"], tmp_path / "m")

    assert {"tuibot.tui.app", "textual.app"} <= modules  # the dump is real
    early = [
        bad
        for bad in NOT_BEFORE_FIRST_PAINT
        if any(name == bad or name.startswith(bad + ".") for name in modules)
    ]
    assert early == []


async def test_a_pane_key_before_its_pane_is_mounted_does_nothing(tmp_path: Path) -> None:
    """F5 pressed in the instant between the first frame and the panes' mount."""
    app = make_app("http://127.0.0.1:9/v1")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await app.query_one("#delegations").remove()  # as before on_ready mounted it

        await pilot.press("f5")

        assert app.query_one("#side", TabbedContent).active == "tab-delegations"
        assert app.return_code is None  # no crash: the key found no pane to focus
