"""``tuibot ask | head``: a reader that goes away mid-stream must not hang or crash ask."""

from __future__ import annotations

import subprocess
import sys

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
