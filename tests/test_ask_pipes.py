"""``tuibot ask | head``: a reader that goes away mid-stream must not hang or crash ask."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, text


@pytest.mark.parametrize("mode", [[], ["--json"]])
def test_closed_stdout_ends_quietly(server: ScriptedServer, mode: list[str]) -> None:
    server.enqueue(text("word " * 200, pieces=200, delay=0.005))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tuibot",
            "ask",
            *mode,
            "--base-url",
            server.url,
            "--model",
            "test-model",
            "talk",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(20)  # some of the answer arrived …
    process.stdout.close()  # … and the reader left, like `| head -c 20`

    code = process.wait(timeout=30)
    errors = process.stderr.read().decode()

    assert code == 0, errors
    assert "Traceback" not in errors and "BrokenPipe" not in errors


def test_a_slash_command_leaves_no_empty_chat(hermetic: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tuibot", "ask", "/help"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and "/read_file" in result.stdout
    chats = hermetic / "data" / "chats"
    assert not chats.exists() or list(chats.iterdir()) == []
    assert "tuibot: chat" not in result.stderr


def test_stdin_that_is_not_utf8_is_read_with_replacement(server: ScriptedServer) -> None:
    server.enqueue(text("got it"))
    result = subprocess.run(
        [sys.executable, "-m", "tuibot", "ask", "--base-url", server.url, "--model", "m", "x"],
        input=b"caf\xe9 au lait",
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    body = server.requests[-1].body
    assert body is not None and "caf\ufffd au lait" in body["messages"][-1]["content"]
