"""Start-up tool loading: tuibot's own tools load cheaply, a user's stay under the guard.

Bundled tools ship inside the package, like tuibot's own modules, so they are imported
in the calling thread from their cached bytecode; a user's tool files still run in a
time-limited thread and are compiled from source on every load.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from tuibot.toolkit import ToolRegistry
from tuibot.toolkit.catalog import ToolCatalog

WHERE = """
    import threading

    from tuibot import tool

    LOADED_IN = threading.current_thread().name

    @tool
    def {name}() -> str:
        '''Say where this file was imported.'''
        return LOADED_IN
"""


def write_tool(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(WHERE.format(name=name)), encoding="utf-8")
    return path


def load(tmp_path: Path) -> tuple[ToolCatalog, Path, Path]:
    own = write_tool(tmp_path / "bundled", "own_tool")
    users = write_tool(tmp_path / "user", "user_tool")
    catalog = ToolCatalog(
        ToolRegistry(), [(tmp_path / "bundled", "bundled"), (tmp_path / "user", "user")]
    )
    catalog.load_all()
    return catalog, own, users


def loaded_in(catalog: ToolCatalog, name: str) -> str:
    spec = catalog.registry.get(name)
    assert spec is not None, name
    return str(spec.func.__globals__["LOADED_IN"])


def test_bundled_tools_load_in_the_calling_thread_user_tools_in_a_guarded_one(
    tmp_path: Path,
) -> None:
    catalog, _, _ = load(tmp_path)
    assert loaded_in(catalog, "own_tool") == "MainThread"
    assert loaded_in(catalog, "user_tool") == "tuibot-import-user_tool.py"


def test_bundled_tools_use_cached_bytecode_user_tools_never(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _, own, users = load(tmp_path)
    assert Path(importlib.util.cache_from_source(str(own))).is_file()
    assert not Path(importlib.util.cache_from_source(str(users))).exists()
