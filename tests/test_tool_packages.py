"""Folder tool packages: tool.py with private helpers, no clash between packages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tuibot.toolkit import ToolLoadError, ToolRegistry, load_tool_folder
from tuibot.toolkit.packages import load_tool_package

TOOL = """\
from tuibot import tool
from . import _helpers
from ._helpers import VALUE

@tool(name="{name}")
def run() -> str:
    '''Report the helper's value.'''
    return _helpers.VALUE + "/" + VALUE
"""


def _package(root: Path, name: str, value: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "tool.py").write_text(TOOL.format(name=name))
    (folder / "_helpers.py").write_text(f"VALUE = {value!r}\n")
    return folder


async def test_two_packages_with_same_helper_name_do_not_clash(tmp_path: Path) -> None:
    _package(tmp_path, "alpha", "A")
    _package(tmp_path, "beta", "B")
    (tmp_path / "single.py").write_text(
        "from tuibot import tool\n@tool\ndef single() -> str:\n    '''One.'''\n    return '1'\n"
    )
    specs, errors = load_tool_folder(tmp_path, "user")
    assert errors == []
    registry = ToolRegistry()
    for spec in specs:
        registry.register(spec)
    assert registry.names() == ["alpha", "beta", "single"]
    assert (await registry.execute("alpha", {})).output == "A/A"
    assert (await registry.execute("beta", {})).output == "B/B"
    assert "_helpers" not in sys.modules
    assert not any(str(tmp_path) in entry for entry in sys.path)
    alpha = registry.get("alpha")
    assert alpha is not None and alpha.path == tmp_path / "alpha" / "tool.py"


async def test_reload_rereads_helpers(tmp_path: Path) -> None:
    folder = _package(tmp_path, "alpha", "old")
    (spec,) = load_tool_package(folder, "user")
    (folder / "_helpers.py").write_text("VALUE = 'brand-new'\n")
    (fresh,) = load_tool_package(folder, "user")
    assert fresh.func() == "brand-new/brand-new"
    assert spec.func() == "old/old"


def test_broken_helper_reports_helper_line_and_keeps_old(tmp_path: Path) -> None:
    folder = _package(tmp_path, "alpha", "old")
    (spec,) = load_tool_package(folder, "user")
    (folder / "_helpers.py").write_text("x = 1\nraise RuntimeError('boom')\n")
    with pytest.raises(ToolLoadError) as info:
        load_tool_package(folder, "user")
    assert info.value.path == folder / "_helpers.py" and info.value.line == 2
    assert "RuntimeError: boom" in str(info.value)
    assert spec.func() == "old/old"
    (folder / "_helpers.py").write_text("VALUE = 'fixed'\n")
    (fixed,) = load_tool_package(folder, "user")
    assert fixed.func() == "fixed/fixed"


def test_syntax_error_in_helper_points_at_helper(tmp_path: Path) -> None:
    folder = _package(tmp_path, "alpha", "v")
    (folder / "_helpers.py").write_text("VALUE = (\n")
    specs, errors = load_tool_folder(tmp_path, "user")
    assert specs == []
    (error,) = errors
    assert error.path == folder / "_helpers.py" and error.line == 1


def test_folders_without_tool_py_or_private_are_ignored(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.py").write_text("raise SystemExit\n")
    _package(tmp_path, "_private", "x")
    assert load_tool_folder(tmp_path, "user") == ([], [])
