"""Cold start to first paint: ``tuibot`` against a minimal Textual app of the same widgets.

A terminal tool is judged by how fast its window appears. Each program runs as a fresh
process on its own pseudo-terminal (160x48); the time is from ``fork`` until the first
frame with its footer's keys has been written to the terminal. The minimal app uses
the same widget types as tuibot's layout (OptionList, VerticalScroll, Markdown, TextArea,
TabbedContent with four panes, Tree, DataTable, Footer), so the ratio shows what tuibot
adds on top of Textual itself. Goals: tuibot ≤ 1.3× the minimal app (issue 5), ≤ 1.15×
(issue 19); both are printed with PASS or FAIL.

``--tmux`` measures what a person sees instead: each program starts in a new tmux pane
(160x48, then 80x24), and the time runs from asking tmux for the pane until tmux's own
copy of the screen (``capture-pane``, polled every 5 ms) shows the frame's footer. tmux
answers the terminal queries a bare pty leaves unanswered and parses every byte of the
frame, as it does for a person's terminal. The commands go through one tmux control-mode
client (``tmux -C``), so a poll costs ~0.2 ms and no process start.

    .venv/bin/python tests/bench/bench_startup.py [--runs 9] [--tmux]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shlex
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from installed import compile_package

Series = dict[str, list[str]]
"""Each program's name and its command line."""

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
FOOTER = "^p palette"
"""Both apps' footers end with this, on the frame's last row. Textual composes a footer's
keys a refresh or two after the rest of the first frame, so a frame with them is the
whole first frame, the one a person sees."""
MARKER = b"palette"
"""The footer's text as written to the terminal (its key and its label are styled apart)."""

MINIMAL_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.containers import Horizontal, Vertical, VerticalScroll
    from textual.widgets import (
        DataTable, Footer, Markdown, OptionList, Static, TabbedContent, TabPane, TextArea, Tree,
    )

    class Minimal(App):
        CSS = '''
        Horizontal { height: 1fr; }
        OptionList { width: 30; }
        Vertical { width: 1fr; }
        TextArea { height: 3; }
        TabbedContent { width: 40%; }
        '''

        def compose(self):
            yield Static("status")
            with Horizontal():
                yield OptionList("a chat")
                with Vertical():
                    yield VerticalScroll(Markdown("# conversation"))
                    yield TextArea()
                with TabbedContent():
                    with TabPane("Tasks"):
                        yield Static("tasks")
                    with TabPane("Delegations"):
                        yield Tree("work")
                    with TabPane("Tool log"):
                        yield DataTable()
                    with TabPane("Approvals"):
                        yield Static("none")
            yield Footer()

    Minimal().run()
    """
)


def first_paint(argv: list[str], env: dict[str, str], timeout: float = 30.0) -> float:
    """Seconds from fork until ``MARKER`` appears on the program's terminal."""
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the program
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
    seen = b""
    try:
        while time.perf_counter() - started < timeout:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
            if MARKER in seen:
                return time.perf_counter() - started
        raise RuntimeError(f"no first paint from {argv[-1]!r}; output: {seen[-400:]!r}")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--tmux", action="store_true", help="in tmux panes, as a person sees it")
    args = parser.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory() as scratch:
        home, data = Path(scratch, "home"), Path(scratch, "data")
        home.mkdir()
        data.mkdir()
        minimal = Path(scratch, "minimal.py")
        minimal.write_text(MINIMAL_APP, encoding="utf-8")
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "TUIBOT_HOME": str(home),
            "TUIBOT_DATA": str(data),
        }
        tuibot = [str(Path(PYTHON).with_name("tuibot")), "--base-url", "http://127.0.0.1:9/v1"]
        series = {"minimal Textual app": [PYTHON, str(minimal)], "tuibot": tuibot}
        if args.tmux:
            for size in ((160, 48), (80, 24)):
                with TmuxPanes(env, size) as panes:
                    report(f"in a {size[0]}x{size[1]} tmux pane", args.runs, series, panes.paint)
        else:
            report("on a 160x48 pty", args.runs, series, lambda argv: first_paint(argv, env))


def report(where: str, runs: int, series: Series, paint: Callable[[list[str]], float]) -> None:
    """Time each program's first paint ``runs`` times, interleaved; print the ratios."""
    times: dict[str, list[float]] = {name: [] for name in series}
    for argv in series.values():  # one warm-up each: the page cache, .pyc files
        paint(argv)
    for _ in range(runs):
        for name, argv in series.items():  # interleaved: machine noise hits both alike
            times[name].append(paint(argv))
    base = statistics.median(times["minimal Textual app"])
    load = " ".join(f"{n:.2f}" for n in os.getloadavg())
    print(f"cold start to first paint {where}, {runs} runs each, median (min–max), load {load}:")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:22} {median * 1000:7.0f} ms  ({min(values) * 1000:.0f}–"
            f"{max(values) * 1000:.0f})  {median / base:.2f}×"
        )
    ratio = statistics.median(times["tuibot"]) / base  # below 1 when tuibot paints first
    for goal, issue in ((1.3, 5), (1.15, 19)):
        print(f"goal tuibot <= {goal}x the minimal app (issue {issue}): "
              f"{'PASS' if ratio <= goal else 'FAIL'} ({ratio:.2f}x)")  # fmt: skip


class TmuxPanes:
    """A private tmux server driven through one control-mode client.

    ``paint(argv)`` starts ``argv`` in a new detached session of ``size`` (with ``LINES``
    and ``COLUMNS`` unset, as tests/tmux_helpers.py starts the app: tmux's values would
    make any app draw 80x24) and polls the pane until the footer is drawn.
    """

    POLL = 0.005
    """Seconds between two looks at the pane."""

    def __init__(self, env: dict[str, str], size: tuple[int, int]) -> None:
        self.env, self.size = env, size
        self.socket = f"tuibot-bench-{os.getpid()}-{size[0]}x{size[1]}"  # one server each
        self.client: subprocess.Popen[str] | None = None

    def __enter__(self) -> TmuxPanes:
        width, height = (str(n) for n in self.size)
        self.client = subprocess.Popen(
            ["tmux", "-L", self.socket, "-C", "new-session", "-s", "idle", "-x", width,
             "-y", height, "sleep 3600"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=self.env,
        )  # fmt: skip
        self.command("display-message -p ready")  # the server is up
        return self

    def __exit__(self, *_: object) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        if self.client is not None:
            self.client.wait(timeout=10)

    def command(self, line: str) -> list[str]:
        """Run one tmux command; its output lines (a block flagged 1: this client's)."""
        assert self.client is not None and self.client.stdin and self.client.stdout
        self.client.stdin.write(line + "\n")
        self.client.stdin.flush()
        output: list[str] | None = None
        while True:
            text = self.client.stdout.readline()
            if not text:
                raise RuntimeError(f"tmux went away during {line!r}")
            text = text.rstrip("\n")
            if output is None:
                if text.startswith("%begin ") and text.endswith(" 1"):
                    output = []
            elif text.startswith(("%end ", "%error ")) and text.endswith(" 1"):
                if text.startswith("%error"):
                    raise RuntimeError(f"tmux: {line!r}: {output}")
                return output
            else:
                output.append(text)

    def paint(self, argv: list[str], timeout: float = 30.0) -> float:
        """Seconds from asking tmux for the pane until its screen shows the footer."""
        width, height = self.size
        shown = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items() if k.startswith(
            ("TUIBOT_", "TERM")))  # fmt: skip
        program = f"env -u LINES -u COLUMNS {shown} {shlex.join(argv)}"
        started = time.perf_counter()
        self.command(f"new-session -d -s run -x {width} -y {height} {shlex.quote(program)}")
        try:
            while time.perf_counter() - started < timeout:
                screen = self.command("capture-pane -p -t run")
                if FOOTER in screen[-1] if screen else False:
                    return time.perf_counter() - started
                time.sleep(self.POLL)
            raise RuntimeError(f"no first frame from {argv!r}:\n" + "\n".join(screen))
        finally:
            self.command("kill-session -t run")


if __name__ == "__main__":
    main()
