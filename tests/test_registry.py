"""The registry: definitions, and ``execute`` turning every failure into text.

The loader's tests are in ``test_loader.py``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from typing import Any

import pytest

from tuibot import tool
from tuibot.toolkit import (
    ERROR_HINT,
    ToolRegistry,
    ToolResult,
    ToolSpec,
)

HINT = f"\n\n{ERROR_HINT}"


@tool
def echo(text: str, times: int = 1) -> str:
    """Repeat text."""
    return text * times


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def boom() -> str:
    """Always fails."""
    raise ValueError("the disk is on fire")


def spec_of(fn: Any) -> ToolSpec:
    return fn.__tool_meta__


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for fn in (echo, add, boom):
        reg.register(spec_of(fn))
    return reg


def test_names_specs_and_get(registry: ToolRegistry) -> None:
    assert registry.names() == ["add", "boom", "echo"]
    assert [s.name for s in registry.specs()] == ["add", "boom", "echo"]
    assert registry.get("echo") is spec_of(echo)
    assert registry.get("nope") is None
    assert "add" in registry and len(registry) == 3


def test_register_same_name_replaces_and_unregister(registry: ToolRegistry) -> None:
    @tool(name="echo")
    def loud(text: str) -> str:
        """Shout."""
        return text.upper()

    registry.register(spec_of(loud))
    assert registry.get("echo") is spec_of(loud)
    assert registry.names() == ["add", "boom", "echo"]
    registry.unregister("echo")
    registry.unregister("echo")  # absent: no error
    assert registry.names() == ["add", "boom"]


def test_definitions_are_openai_format_filtered_and_copied(registry: ToolRegistry) -> None:
    defs = registry.definitions()
    assert [d["function"]["name"] for d in defs] == ["add", "boom", "echo"]
    assert defs[0] == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": spec_of(add).parameters,
        },
    }
    only = registry.definitions(allowed={"echo", "missing"})
    assert [d["function"]["name"] for d in only] == ["echo"]
    only[0]["function"]["parameters"]["properties"].clear()
    assert spec_of(echo).parameters["properties"], "mutating a definition must not touch the spec"


async def test_sync_and_async_tools_run(registry: ToolRegistry) -> None:
    assert await registry.execute("echo", {"text": "ab", "times": 2}) == ToolResult(True, "abab")
    assert await registry.execute("add", {"a": 2, "b": 3}) == ToolResult(True, "5")


async def test_unknown_tool_lists_available(registry: ToolRegistry) -> None:
    result = await registry.execute("ech", {})
    assert result == ToolResult(
        False, "Error: unknown tool 'ech'. Available tools: add, boom, echo" + HINT
    )


async def test_unknown_tool_in_empty_registry() -> None:
    result = await ToolRegistry().execute("x", {})
    assert result.output.startswith("Error: unknown tool 'x'. Available tools: (none)")


async def test_invalid_arguments_report_every_problem(registry: ToolRegistry) -> None:
    result = await registry.execute("echo", {"txt": "a", "times": "2"})
    assert result == ToolResult(
        False,
        "Error: invalid arguments for echo: missing required argument 'text'; "
        "unknown argument 'txt' (valid: text, times); "
        "argument 'times' must be an integer, got \"2\"" + HINT,
    )


async def test_exception_becomes_error_and_traceback_is_logged(
    registry: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="tuibot.tools"):
        result = await registry.execute("boom", {})
    assert result == ToolResult(False, "Error: ValueError: the disk is on fire" + HINT)
    record = next(r for r in caplog.records if r.name == "tuibot.tools")
    assert record.levelno == logging.DEBUG
    assert record.exc_info is not None and record.exc_info[0] is ValueError


async def test_exception_without_message_and_system_exit() -> None:
    @tool
    def quits() -> None:
        """Calls sys.exit."""
        raise SystemExit(3)

    @tool
    async def bare() -> None:
        """Raises with no message."""
        raise KeyError

    reg = ToolRegistry()
    reg.register(spec_of(quits))
    reg.register(spec_of(bare))
    assert (await reg.execute("quits", {})).output == "Error: SystemExit: 3" + HINT
    assert (await reg.execute("bare", {})).output == "Error: KeyError" + HINT


async def test_timeout_of_async_tool() -> None:
    @tool(timeout=0.05)
    async def slow() -> str:
        """Sleeps."""
        await asyncio.sleep(30)
        return "never"

    reg = ToolRegistry()
    reg.register(spec_of(slow))
    started = time.monotonic()
    result = await reg.execute("slow", {})
    assert time.monotonic() - started < 5
    assert result == ToolResult(False, "Error: tool 'slow' timed out after 0.05 s" + HINT)


async def test_timeout_of_sync_tool_returns_while_thread_still_runs() -> None:
    release = threading.Event()

    @tool(timeout=0.05)
    def stuck() -> str:
        """Blocks until released."""
        release.wait(10)
        return "late"

    reg = ToolRegistry()
    reg.register(spec_of(stuck))
    try:
        result = await reg.execute("stuck", {})
    finally:
        release.set()
    assert result.ok is False
    assert result.output.startswith("Error: tool 'stuck' timed out after 0.05 s")


async def test_tool_raising_timeout_error_itself_is_not_reported_as_our_timeout() -> None:
    @tool(timeout=30)
    def dial() -> str:
        """A socket timeout inside the tool."""
        raise TimeoutError("connect timed out")

    reg = ToolRegistry()
    reg.register(spec_of(dial))
    assert (await reg.execute("dial", {})).output == (
        "Error: TimeoutError: connect timed out" + HINT
    )


async def test_sync_tool_runs_in_worker_thread_with_context() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    seen: dict[str, Any] = {}

    @tool
    def where() -> str:
        """Reports its thread and context."""
        seen["thread"] = threading.get_ident()
        return var.get()

    reg = ToolRegistry()
    reg.register(spec_of(where))
    var.set("from the turn")
    result = await reg.execute("where", {})
    assert result == ToolResult(True, "from the turn")
    assert seen["thread"] != threading.get_ident()


async def test_sync_tools_do_not_block_the_loop() -> None:
    @tool
    def nap() -> str:
        """Sleeps in its thread."""
        time.sleep(0.3)
        return "rested"

    reg = ToolRegistry()
    reg.register(spec_of(nap))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        assert (await reg.execute("nap", {})).output == "rested"
    finally:
        task.cancel()
    assert ticks >= 5  # ~30 expected; a blocked loop would give 0


async def test_error_text_result_gets_the_hint() -> None:
    @tool
    def missing() -> str:
        """Reports an error as text."""
        return "Error: file not found: x.txt"

    reg = ToolRegistry()
    reg.register(spec_of(missing))
    assert await reg.execute("missing", {}) == ToolResult(
        False, "Error: file not found: x.txt" + HINT
    )


@pytest.mark.parametrize(
    ("value", "output"),
    [
        ({"name": "Zoë", "n": [1, 2]}, '{"name": "Zoë", "n": [1, 2]}'),
        ([1, "a"], '[1, "a"]'),
        (3.5, "3.5"),
        (True, "true"),
        (None, "(no output)"),
        ("", "(no output)"),
        ({"when": time}, '{"when": "' + str(time) + '"}'),
    ],
)
async def test_result_encoding(value: Any, output: str) -> None:
    @tool
    def give() -> Any:
        """Returns a value."""
        return value

    reg = ToolRegistry()
    reg.register(spec_of(give))
    assert await reg.execute("give", {}) == ToolResult(True, output)


async def test_cancellation_propagates() -> None:
    started = asyncio.Event()

    @tool
    async def wait_forever() -> None:
        """Waits."""
        started.set()
        await asyncio.sleep(30)

    reg = ToolRegistry()
    reg.register(spec_of(wait_forever))
    task = asyncio.create_task(reg.execute("wait_forever", {}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
