"""CPU use of the app sitting idle while 50 delegations are live (goal: under 5 % of a core).

The real ``tuibot`` binary runs in tmux against a ScriptedServer in this process. One
message makes the bot delegate 50 tasks at once; every task chat's model call is then
held open by the server (silence), so all 50 stay ``running`` with nothing happening.
The CPU time of the tuibot process is read with psutil over a quiet window, once with
each side tab in front (the delegation tree's bars tick once a second).

    .venv/bin/python tests/bench/bench_idle.py [--window 15]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from scripted_server import ScriptedServer, silent, text, tool_calls  # noqa: E402

TUIBOT = Path(sys.executable).with_name("tuibot")
LIVE = 50
CONFIG = """\
[agent]
model = "test-model"

[providers.local]
base_url = "{url}"
stream_timeout = 3600
max_retries = 0

[delegation]
max_live_per_chat = 64
max_live_total = 100
"""


def task_requests(server: ScriptedServer) -> int:
    """Model calls of task chats received so far (each one is then held open)."""
    count = 0
    for request in list(server.requests):
        messages = (request.body or {}).get("messages") or []
        last = messages[-1].get("content") if messages else ""
        count += isinstance(last, str) and "gives you this task" in last
    return count


def responder(body: dict[str, Any]) -> Any:
    """The root chat delegates 50 tasks; task chats hang; the root then says done."""
    messages = body["messages"]
    last = messages[-1]
    content = last.get("content") if isinstance(last.get("content"), str) else ""
    if "gives you this task" in content:
        return silent(3600)
    if last.get("role") == "tool":
        return text("Delegated all the work.")
    calls = [
        (
            "delegate",
            json.dumps({"task": f"task {i}", "limits": {"timeMs": 3_600_000, "steps": 5}}),
            f"call_{i}",
        )
        for i in range(LIVE)
    ]
    return tool_calls(calls)


class Tmux:
    """A private tmux server holding the app's terminal."""

    def __init__(self) -> None:
        self.socket = f"tuibot-bench-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def wait_for(self, wanted: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if wanted in self("capture-pane", "-p", "-t", "app"):
                return
            time.sleep(0.2)
        raise RuntimeError(f"{wanted!r} never appeared:\n{self('capture-pane', '-p')}")


def cpu_percent(process: psutil.Process, window: float) -> float:
    """Percent of one core the process used over ``window`` seconds."""
    before = process.cpu_times()
    time.sleep(window)
    after = process.cpu_times()
    used = (after.user - before.user) + (after.system - before.system)
    return 100 * used / window


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=float, default=15.0)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("this benchmark needs tmux")
    with tempfile.TemporaryDirectory() as scratch, ScriptedServer() as server:
        server.responder = responder
        home, data = Path(scratch, "home"), Path(scratch, "data")
        home.mkdir()
        data.mkdir()
        (home / "config.toml").write_text(CONFIG.format(url=server.url), encoding="utf-8")
        env = f"env TUIBOT_HOME={home} TUIBOT_DATA={data} TERM=xterm-256color"
        tmux = Tmux()
        try:
            tmux("new-session", "-d", "-s", "app", "-x", "160", "-y", "48", f"{env} {TUIBOT}")
            tmux.wait_for("Approvals")
            tmux.wait_for("127.0.0.1")
            pid = int(tmux("display-message", "-p", "-t", "app", "#{pane_pid}").strip())
            process = psutil.Process(pid)
            print(f"idle, no work:           {cpu_percent(process, args.window):5.1f} % of a core")
            tmux("send-keys", "-t", "app", "-l", "Please split this work.")
            tmux("send-keys", "-t", "app", "Enter")
            tmux.wait_for("Delegated all the work.")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and task_requests(server) < LIVE:
                time.sleep(0.2)
            print(f"live delegations held open by the server: {task_requests(server)}")
            time.sleep(2)  # let the last events settle
            for key, tab in (("F4", "tasks"), ("F5", "delegation tree"), ("F6", "tool log")):
                tmux("send-keys", "-t", "app", key)
                time.sleep(1)
                used = cpu_percent(process, args.window)
                print(f"{LIVE} live, {tab + ' shown:':17} {used:5.1f} % of a core")
        finally:
            tmux("kill-server")


if __name__ == "__main__":
    main()
