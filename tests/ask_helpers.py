"""Running ``tuibot ask`` as a real process, and reading what it left behind.

The end-to-end, crash and canary tests all start ``python -m tuibot`` with the hermetic
environment the ``hermetic`` fixture set up (``TUIBOT_HOME``, ``TUIBOT_DATA``, cwd = the
workspace), so what they check is what a user's shell would see: exit codes, stdout,
stderr and the files on disk.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from scripted_server import ScriptedServer

from tuibot.store.chats import Chat, ChatStore

CHAT_LINE = re.compile(r"^tuibot: chat (c_[0-9A-Za-z_-]+)$", re.MULTILINE)
"""The status line ``ask`` prints on stderr when it starts a new chat."""


@dataclass(frozen=True)
class Ran:
    """One finished process: its exit code and everything it printed."""

    code: int
    stdout: str
    stderr: str

    @property
    def chat(self) -> str:
        """The id of the chat ``ask`` started (from the stderr status line)."""
        found = CHAT_LINE.search(self.stderr)
        assert found, f"no 'tuibot: chat' line in stderr: {self.stderr!r}"
        return found.group(1)


def tuibot_argv(*args: str) -> list[str]:
    """The command line that runs tuibot from this interpreter."""
    return [sys.executable, "-m", "tuibot", *args]


def ask_argv(server: ScriptedServer | str, *args: str) -> list[str]:
    """``tuibot ask`` pointed at the scripted server (or a URL) with the test model."""
    url = server if isinstance(server, str) else server.url
    return tuibot_argv("ask", "--base-url", url, "--model", "test-model", *args)


def child_env(**extra: str) -> dict[str, str]:
    """The test's environment (hermetic folders included), without retries, plus ``extra``."""
    env = dict(os.environ)
    env["TUIBOT_PROVIDERS__LOCAL__MAX_RETRIES"] = "0"  # a closed port fails at once
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def run(
    argv: Sequence[str],
    *,
    stdin: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> Ran:
    """Run a command to the end with ``stdin`` piped in (empty: not a TTY, nothing to read)."""
    done = subprocess.run(
        list(argv),
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env or child_env(),
        cwd=Path.cwd(),
        timeout=timeout,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def run_ask(server: ScriptedServer | str, *args: str, stdin: str = "", **env: str) -> Ran:
    """``tuibot ask ARGS`` against the server, to the end."""
    return run(ask_argv(server, *args), stdin=stdin, env=child_env(**env))


def start(argv: Sequence[str], *, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start a command with stdout and stderr piped and no stdin, for tests that interrupt it."""
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env or child_env(),
        cwd=Path.cwd(),
    )


def read_until(stream: IO[bytes], wanted: bytes, timeout: float = 20) -> bytes:
    """Read a pipe until ``wanted`` appears; what was read so far (AssertionError on timeout)."""
    import select

    fd, seen = stream.fileno(), b""
    deadline = time.monotonic() + timeout
    while wanted not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{wanted!r} did not arrive; got {seen!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                raise AssertionError(f"the pipe closed before {wanted!r}; got {seen!r}")
            seen += chunk
    return seen


def read_at_least(stream: IO[bytes], count: int, timeout: float = 20) -> bytes:
    """Read a pipe until ``count`` bytes arrived (AssertionError on timeout or EOF)."""
    import select

    fd, seen = stream.fileno(), b""
    deadline = time.monotonic() + timeout
    while len(seen) < count:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(left, 0))
        if not ready:
            raise AssertionError(f"only {len(seen)} of {count} bytes arrived: {seen!r}")
        chunk = os.read(fd, 4096)
        if not chunk:
            raise AssertionError(f"the pipe closed after {len(seen)} bytes: {seen!r}")
        seen += chunk
    return seen


def finish(process: subprocess.Popen[bytes], timeout: float = 20) -> tuple[int, str, str]:
    """Wait for a started process; (code, rest of stdout, rest of stderr)."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the process did not end in {timeout} s; stderr: {err!r}") from None
    return process.returncode, out.decode(), err.decode()


def kill(process: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to a process this test started."""
    os.kill(process.pid, sig)


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def data_home() -> Path:
    """The hermetic data home of this test."""
    return Path(os.environ["TUIBOT_DATA"])


def config_home() -> Path:
    """The hermetic config home of this test."""
    return Path(os.environ["TUIBOT_HOME"])


def chat_store() -> ChatStore:
    """The chats ``ask`` wrote, as tuibot reads them."""
    return ChatStore(data_home() / "chats")


def load_chat(chat_id: str, *, readonly: bool = True) -> Chat:
    """A chat ``ask`` wrote (read-only by default, so the test changes nothing)."""
    return chat_store().load(chat_id, readonly=readonly)


def write_user_tool(name: str, source: str) -> Path:
    """A tool file in the config home's tools folder, where ``ask`` loads user tools."""
    folder = config_home() / "tools"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def chat_bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    """The JSON bodies of every chat request the server received, in order."""
    return [r.body for r in server.requests if r.path.endswith("/chat/completions") and r.body]


def sent(server: ScriptedServer, index: int = -1) -> list[dict[str, Any]]:
    """The messages of one recorded chat request (the last by default)."""
    bodies = chat_bodies(server)
    assert bodies, "the server received no chat request"
    return bodies[index]["messages"]


def assert_well_formed(messages: list[dict[str, Any]]) -> None:
    """Every tool call is answered by a tool message, and every tool message answers one."""
    called = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    answered = [str(m.get("tool_call_id")) for m in messages if m.get("role") == "tool"]
    assert sorted(called) == sorted(answered), (called, answered)


def json_lines(ran: Ran) -> list[dict[str, Any]]:
    """stdout of ``ask --json`` as records; every line must parse and carry a type."""
    import json

    records = [json.loads(line) for line in ran.stdout.splitlines()]
    assert records and all(isinstance(r.get("type"), str) for r in records), ran.stdout
    return records


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The ``--json`` records of one type."""
    return [r for r in records if r["type"] == kind]


def assert_clean_stderr(ran: Ran) -> None:
    """No traceback, whatever happened."""
    assert "Traceback" not in ran.stderr, ran.stderr


def run_on_terminal(
    argv: Sequence[str],
    *,
    prompt: bytes | tuple[bytes, ...],
    answer: bytes | signal.Signals | Callable[[], bytes],
    timeout: float = 30,
) -> tuple[int, str, str]:
    """Run with stdin and stderr on a pseudo-terminal, answering every ``prompt`` it shows.

    ``answer`` is typed in (a function: called for each prompt), or, when it is a signal,
    sent to the process (Ctrl+C is SIGINT). Several prompts may be given.
    Returns (exit code, stdout, everything the terminal showed, echoes included).
    """
    import pty
    import select

    master, slave = pty.openpty()
    process = subprocess.Popen(
        list(argv),
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=child_env(),
        cwd=Path.cwd(),
        start_new_session=True,
    )
    os.close(slave)
    assert process.stdout is not None
    out_fd, out, screen, answered = process.stdout.fileno(), b"", b"", 0
    open_fds = {master, out_fd}
    deadline = time.monotonic() + timeout
    try:
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no end after {timeout} s; terminal: {screen!r}")
            for fd in select.select(list(open_fds), [], [], left)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the terminal's other side is closed
                    chunk = b""
                if not chunk:
                    open_fds.discard(fd)
                elif fd == out_fd:
                    out += chunk
                else:
                    screen += chunk
                    prompts = prompt if isinstance(prompt, tuple) else (prompt,)
                    while sum(screen.count(p) for p in prompts) > answered:
                        if isinstance(answer, bytes):
                            os.write(master, answer)
                        elif callable(answer):
                            os.write(master, answer())
                        else:
                            os.kill(process.pid, answer)
                        answered += 1
        code = process.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
        process.stdout.close()
    return code, out.decode(), screen.decode(errors="replace")
