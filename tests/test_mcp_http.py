"""A streamable-HTTP MCP server whose bearer token comes from the keyring, never the file.

The server is the tests' MCPServer behind a check that refuses any request without the
right ``Authorization`` header; tuibot fills ``{credential}`` in its configured header
from the credential (the real keyring, or the credential's environment variable).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_helpers import FAULT_SERVER

from tuibot.mcp.connection import ServerConnection
from tuibot.mcp.manager import keyring_secret, run_call
from tuibot.settings.mcp import McpServerSettings
from tuibot.system.secrets import SecretStore, resolve_api_key

TOKEN = "mcp-token-0123456789abcdef"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    argv = [sys.executable, str(FAULT_SERVER), "--http", str(port), "--token", TOKEN,
            "--marks", str(tmp_path)]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()


def _settings(url: str) -> McpServerSettings:
    return McpServerSettings(
        name="web", url=url, credential="mcp-web",
        headers={"Authorization": "Bearer {credential}"}, startup_timeout=60,
    )  # fmt: skip


async def _call(url: str, secret: object) -> tuple[ServerConnection, str]:
    connection = ServerConnection(_settings(url), cwd=Path.cwd(), secret=secret, restart=False)  # type: ignore[arg-type]
    connection.start()
    await connection.wait_settled(90)
    text = await run_call(connection, "echo", {"text": "over http"}, lambda d, m: "")
    await connection.close()
    return connection, text


async def test_the_header_secret_comes_from_the_keyring(
    http_server: str, secret_store: SecretStore
) -> None:
    secret_store.set("mcp-web", TOKEN)
    connection, text = await _call(
        http_server, lambda name: resolve_api_key(name, store=secret_store)
    )
    assert connection.reason == "" or connection.state == "stopped"
    assert text.endswith("echo: over http"), text


async def test_the_credentials_env_var_stands_in(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_WEB_API_KEY", TOKEN)
    _, text = await _call(http_server, keyring_secret)
    assert text.endswith("echo: over http"), text


async def test_a_wrong_token_fails_the_server_with_a_reason(
    http_server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MCP_WEB_API_KEY", "wrong-token-0123456789")
    _, text = await _call(http_server, keyring_secret)
    assert text.startswith("Error:") and "'web' failed" in text
    assert (tmp_path / "refused").exists()


async def test_a_missing_credential_says_how_to_set_it(http_server: str) -> None:
    _, text = await _call(http_server, lambda name: None)
    assert "tuibot keys set mcp-web" in text
