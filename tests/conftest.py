"""Shared fixtures: every test is hermetic and the model server is a real loopback one.

``TUIBOT_HOME`` and ``TUIBOT_DATA`` point at temporary folders for every test, and the
working directory is a temporary workspace, so no test reads or writes a user's files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_server import ScriptedServer

from tuibot.system import secrets

pytest_plugins = ["keyring_fixtures", "job_helpers", "llama_fixtures"]


@pytest.fixture(autouse=True)
def hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary config home, data home and workspace; no provider env vars leak in, and
    no secret an earlier test made known masks this test's output."""
    home, data, workspace = tmp_path / "home", tmp_path / "data", tmp_path / "work"
    for folder in (home, data, workspace):
        folder.mkdir()
    monkeypatch.setenv("TUIBOT_HOME", str(home))
    monkeypatch.setenv("TUIBOT_DATA", str(data))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(workspace)
    monkeypatch.setattr(secrets, "_live_secrets", set())
    monkeypatch.setattr(secrets, "_longest_first", ())
    return tmp_path


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A started scripted OpenAI-compatible server on loopback."""
    with ScriptedServer() as scripted:
        yield scripted
