"""MCP servers that go wrong: every fault ends as ``failed`` with a reason, never a hang.

Each case runs the real fault server (tests/mcp_fault_server.py) as a process through
the real ``mcp`` client; the tuibot side is the ServerConnection and the manager's
``run_call`` that the registry's MCP tools use.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp_helpers import fault_server

from tuibot.mcp.connection import ServerConnection
from tuibot.mcp.manager import run_call
from tuibot.settings.mcp import McpServerSettings


def _keep(data: bytes, mime: str) -> str:
    return f"kept:{mime}:{len(data)}"


async def _connected(server: McpServerSettings, **options: object) -> ServerConnection:
    connection = ServerConnection(server, cwd=Path.cwd(), **options)  # type: ignore[arg-type]
    connection.start()
    await connection.wait_settled(server.startup_timeout + 30)  # + stopping it
    return connection


async def test_a_good_server_is_ready_with_its_tools() -> None:
    connection = await _connected(fault_server())
    try:
        assert connection.state == "ready", connection.reason
        names = {tool["name"] for tool in connection.tools or []}
        assert {"echo", "crash", "hang", "huge", "fail", "picture"} <= names
        text = await run_call(connection, "echo", {"text": "hi"}, _keep)
        assert text.endswith("echo: hi") and text.startswith("[untrusted content")
    finally:
        await connection.close()


async def test_a_server_that_exits_at_start_fails_with_its_stderr() -> None:
    connection = await _connected(fault_server("f", "--exit-at-start"), restart=False)
    try:
        assert connection.state == "failed"
        assert "cannot open the database" in connection.stderr_tail
        assert connection.reason
        refusal = connection.refusal()
        assert refusal is not None and "\n" not in refusal and "'f' failed" in refusal
    finally:
        await connection.close()


async def test_a_missing_program_fails_and_says_why() -> None:
    server = McpServerSettings(name="nope", command="/nonexistent/mcp-server")
    connection = await _connected(server, restart=False)
    try:
        assert connection.state == "failed"
        assert "nonexistent" in connection.reason or "No such file" in connection.reason
    finally:
        await connection.close()


async def test_a_slow_start_is_waited_for_by_a_call_within_startup_timeout() -> None:
    server = fault_server("slow", "--slow-start", "1.5")
    connection = ServerConnection(server, cwd=Path.cwd())
    connection.start()
    try:
        await asyncio.sleep(0)
        assert connection.state == "starting"  # the call below is made before it is up
        text = await run_call(connection, "echo", {"text": "late"}, _keep)
        assert text.endswith("echo: late")
    finally:
        await connection.close()


async def test_a_start_slower_than_startup_timeout_fails_instead_of_hanging() -> None:
    server = fault_server("slow", "--slow-start", "30", startup_timeout=1)
    connection = await _connected(server, restart=False)
    try:
        assert connection.state == "failed"
        assert "startup_timeout" in connection.reason
    finally:
        await connection.close()


async def test_garbage_on_stdout_fails_the_server() -> None:
    connection = await _connected(fault_server("junk", "--garbage"), restart=False)
    try:
        assert connection.state == "failed"
        assert "not MCP" in connection.reason
    finally:
        await connection.close()


async def test_a_crash_mid_call_is_an_error_result_and_the_server_restarts() -> None:
    states: list[str] = []
    connection = await _connected(fault_server(), on_change=lambda c: states.append(c.state))
    try:
        async with asyncio.timeout(30):
            text = await run_call(connection, "crash", {}, _keep)
        assert text.startswith("Error:") and "closed" in text.lower()
        async with asyncio.timeout(90):  # restarted after the backoff (1 s first)
            while states[-1:] != ["ready"] or states.count("ready") < 2:
                await asyncio.sleep(0.1)
        assert states == ["starting", "ready", "failed", "starting", "ready"]
        assert "closed" in connection.reason
        assert (await run_call(connection, "echo", {"text": "back"}, _keep)).endswith("back")
    finally:
        await connection.close()


async def test_a_hang_past_timeout_is_cancelled_and_the_server_is_told(tmp_path: Path) -> None:
    server = fault_server("slowpoke", "--marks", str(tmp_path), timeout=1)
    connection = await _connected(server)
    try:
        async with asyncio.timeout(30):
            text = await run_call(connection, "hang", {}, _keep)
        assert text.startswith("Error:") and "timeout" in text
        async with asyncio.timeout(10):  # notifications/cancelled reached the handler
            while not (tmp_path / "hang-cancelled").exists():
                await asyncio.sleep(0.05)
        assert connection.state == "ready"
    finally:
        await connection.close()


async def test_cancelling_the_caller_sends_notifications_cancelled(tmp_path: Path) -> None:
    connection = await _connected(fault_server("c", "--marks", str(tmp_path)))
    try:
        call = asyncio.ensure_future(run_call(connection, "hang", {}, _keep))
        async with asyncio.timeout(10):
            while not (tmp_path / "hang-started").exists():
                await asyncio.sleep(0.05)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        async with asyncio.timeout(10):
            while not (tmp_path / "hang-cancelled").exists():
                await asyncio.sleep(0.05)
    finally:
        await connection.close()


async def test_a_huge_result_is_cut_to_max_output() -> None:
    connection = await _connected(fault_server(max_output=4096))
    try:
        text = await run_call(connection, "huge", {}, _keep)
        assert len(text) < 4096 + 200
        assert "[output cut at 4 KB]" in text
    finally:
        await connection.close()


async def test_is_error_reaches_the_model_as_an_error() -> None:
    connection = await _connected(fault_server())
    try:
        text = await run_call(connection, "fail", {}, _keep)
        assert text.startswith("Error:") and "the disk is on fire" in text
    finally:
        await connection.close()


async def test_an_image_is_kept_aside_not_pasted_as_base64() -> None:
    connection = await _connected(fault_server())
    try:
        text = await run_call(connection, "picture", {}, _keep)
        assert "kept:image/png:" in text and "iVBOR" not in text
    finally:
        await connection.close()


def test_restarts_back_off_from_one_second_to_a_minute() -> None:
    from tuibot.mcp.connection import backoff

    assert [backoff(n) for n in (1, 2, 3, 4, 7, 8, 50)] == [1, 2, 4, 8, 60, 60, 60]
