"""Cold start to first paint: ``tuibot`` against a minimal Textual app of the same widgets.

A terminal tool is judged by how fast its window appears. Each program runs as a fresh
process on its own pseudo-terminal (160x48); the time is from ``fork`` until the first
frame carrying the marker text has been written to the terminal. The minimal app uses
the same widget types as tuibot's layout (OptionList, VerticalScroll, Markdown, TextArea,
TabbedContent with four panes, Tree, DataTable, Footer), so the ratio shows what tuibot
adds on top of Textual itself. Goals: tuibot ≤ 1.3× the minimal app (issue 5), ≤ 1.15×
(issue 19); both are printed with PASS or FAIL.

    .venv/bin/python tests/bench/bench_startup.py [--runs 9]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import textwrap
import time
from pathlib import Path

from installed import compile_package

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
MARKER = b"Approvals"
"""Both apps show a tab with this label in their first frame."""

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
        times: dict[str, list[float]] = {name: [] for name in series}
        for argv in series.values():  # one warm-up each: the page cache, .pyc files
            first_paint(argv, env)
        for _ in range(args.runs):
            for name, argv in series.items():  # interleaved: machine noise hits both alike
                times[name].append(first_paint(argv, env))
    base = statistics.median(times["minimal Textual app"])
    print(f"cold start to first paint, {args.runs} runs each, median (min–max):")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:22} {median * 1000:7.0f} ms  ({min(values) * 1000:.0f}–"
            f"{max(values) * 1000:.0f})  {median / base:.2f}×"
        )
    ratio = max(statistics.median(values) for values in times.values()) / base
    for goal, issue in ((1.3, 5), (1.15, 19)):
        print(f"goal tuibot <= {goal}x the minimal app (issue {issue}): "
              f"{'PASS' if ratio <= goal else 'FAIL'} ({ratio:.2f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
