"""``tuibot doctor`` against a real loopback server: one line per check, honest exit code."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from scripted_server import ScriptedServer
from trust_helpers import write_trusted


def doctor(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``tuibot doctor`` as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "tuibot", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_reachable_server_with_the_model(server: ScriptedServer) -> None:
    result = doctor("--base-url", server.url, "--model", "test-model")

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("ok") and "'test-model' present" in line for line in lines)
    assert any("tools" in line and "read_file" in line for line in lines)
    assert "Traceback" not in result.stderr


def test_missing_model_fails(server: ScriptedServer) -> None:
    result = doctor("--base-url", server.url, "--model", "no-such-model")

    assert result.returncode == 1
    assert "'no-such-model' NOT FOUND" in result.stdout


def test_server_down_fails_with_advice() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = doctor("--base-url", f"http://127.0.0.1:{port}/v1")

    assert result.returncode == 1
    assert "Cannot reach the model server" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_broken_user_tool_is_reported(server: ScriptedServer, hermetic: Path) -> None:
    tools = hermetic / "home" / "tools"
    tools.mkdir()
    (tools / "broken.py").write_text("def oops(:\n")

    result = doctor("--base-url", server.url, "--model", "test-model")

    assert result.returncode == 1
    assert any(
        line.startswith("FAIL") and "broken.py:1" in line for line in result.stdout.splitlines()
    )


def test_bad_config_is_exit_2(hermetic: Path) -> None:
    write_trusted(hermetic / "work" / "tuibot.toml", "[agent]\nmax_rounds = 'ten'\n")

    result = doctor()

    assert result.returncode == 2
    assert "agent.max_rounds" in result.stdout


def test_the_model_is_looked_for_only_where_it_routes(
    server: ScriptedServer, hermetic: Path
) -> None:
    write_trusted(
        hermetic / "work" / "tuibot.toml",
        f'[agent]\nmodel = "test-model"\nprovider = "local"\n\n'
        f'[providers.local]\nbase_url = "{server.url}"\n\n'
        f'[providers.other]\nbase_url = "{server.url}"\n',
    )

    result = doctor()

    assert result.returncode == 0, result.stdout
    other = next(line for line in result.stdout.splitlines() if "provider other" in line)
    assert other.startswith("ok") and "NOT FOUND" not in other
