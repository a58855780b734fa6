"""Gating: a tool missing its platform or binaries stays listed and refuses in one line."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tuibot.toolkit.decorator import tool
from tuibot.toolkit.gating import unavailable_reason
from tuibot.toolkit.registry import ERROR_HINT, ToolRegistry


def _registry(fn: object) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(fn.__tool_meta__)  # type: ignore[attr-defined]
    return registry


async def test_missing_binary_is_listed_and_refuses_in_one_line() -> None:
    @tool(requires=["tuibot-no-such-binary-xyz"])
    def gpu() -> str:
        """Show the GPU."""
        raise AssertionError("must not run")

    registry = _registry(gpu)
    assert registry.names() == ["gpu"]
    assert [d["function"]["name"] for d in registry.definitions()] == ["gpu"]
    result = await registry.execute("gpu", {})
    assert not result.ok
    assert result.output == (
        "Error: gpu is not available here: needs tuibot-no-such-binary-xyz on PATH"
    )
    assert ERROR_HINT not in result.output and "\n" not in result.output


async def test_wrong_platform_refuses() -> None:
    @tool(platforms=["tuibot-os"])
    def only_there() -> str:
        """Nope."""
        return "ran"

    result = await _registry(only_there).execute("only_there", {})
    assert result.output.startswith("Error: only_there is not available here: needs platform")
    assert sys.platform in result.output


async def test_matching_platform_and_present_binary_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = tmp_path / "bin" / "fake-smi"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}")

    @tool(platforms=["linux", "darwin", "win32"], requires=["fake-smi"])
    def gpu() -> str:
        """Show the GPU."""
        return "ran"

    result = await _registry(gpu).execute("gpu", {})
    assert result.ok and result.output == "ran"


async def test_gate_is_checked_at_call_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    @tool(requires=["late-bin"])
    def late() -> str:
        """Late."""
        return "ran"

    registry = _registry(late)
    assert not (await registry.execute("late", {})).ok
    binary = tmp_path / "late-bin"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert (await registry.execute("late", {})).output == "ran"


def test_platform_prefix_matching() -> None:
    assert unavailable_reason(("linux",), (), platform="linux") is None
    assert unavailable_reason(("win",), (), platform="win32") is None
    assert unavailable_reason(("darwin",), (), platform="linux") is not None
    assert unavailable_reason((), (), platform="anything") is None


@pytest.mark.parametrize(
    ("option", "value"),
    [("requires", "nvidia-smi"), ("platforms", "linux"), ("requires", [""]), ("platforms", [3])],
)
def test_bad_gate_options_fail_at_definition(option: str, value: object) -> None:
    with pytest.raises(TypeError, match=option):
        tool(**{option: value})  # type: ignore[arg-type]
