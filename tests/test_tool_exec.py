"""The bundled exec tool: real /bin/sh, real process groups, and its guards."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_helpers import Recorder, ask, make_engine
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer

from tuibot.approvals import Decision
from tuibot.events import ApprovalRequested, ToolFinished
from tuibot.paths import bundled_dir
from tuibot.toolkit import ToolRegistry, load_tool_folder, use_workspace


@pytest.fixture
def registry() -> ToolRegistry:
    specs, errors = load_tool_folder(bundled_dir("tools"), "bundled")
    assert errors == []
    reg = ToolRegistry()
    for spec in specs:
        reg.register(spec)
    return reg


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    with use_workspace(root) as real:
        yield real


async def run(registry: ToolRegistry, command: str, **extra: object) -> str:
    result = await registry.execute("exec", {"command": command, **extra})
    return result.output


def _gone(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


async def test_output_exit_code_and_stderr(registry: ToolRegistry, workspace: Path) -> None:
    assert await run(registry, "echo hello") == "hello\n[exit code 0]"
    output = await run(registry, "echo out; echo err >&2; exit 3")
    assert output == "out\nerr\n[exit code 3]"


async def test_runs_in_the_workspace_with_stdin_closed(
    registry: ToolRegistry, workspace: Path
) -> None:
    assert await run(registry, "pwd") == f"{workspace}\n[exit code 0]"
    started = time.monotonic()
    assert await run(registry, "cat; echo done") == "done\n[exit code 0]"
    assert time.monotonic() - started < 5  # cat saw EOF, it did not wait for a keyboard


async def test_the_exact_string_runs_unchanged(registry: ToolRegistry, workspace: Path) -> None:
    (workspace / "a.txt").write_text("")
    (workspace / "b.txt").write_text("")
    output = await run(registry, """printf '%s\\n' "$HOME" '$HOME' *.txt "a  b" """)
    lines = output.splitlines()
    assert lines[0] == os.environ["HOME"]
    assert lines[1:] == ["$HOME", "a.txt", "b.txt", "a  b", "[exit code 0]"]


async def test_only_the_tail_of_big_output_is_kept(registry: ToolRegistry, workspace: Path) -> None:
    output = await run(registry, "head -c 300000 /dev/zero | tr '\\0' 'x'; echo; echo END")
    assert output.startswith("[... first ")
    cut = int(output.split("first ", 1)[1].split(" ", 1)[0])
    assert cut == 300000 + 1 + 4 - 200 * 1024
    assert output.endswith("x\nEND\n[exit code 0]")


async def test_non_utf8_output_is_replaced(registry: ToolRegistry, workspace: Path) -> None:
    output = await run(registry, "printf 'caf\\351\\n'")
    assert output == "caf\ufffd\n[exit code 0]"


async def test_timeout_kills_the_whole_group(registry: ToolRegistry, workspace: Path) -> None:
    command = "sleep 60 & echo $! > child.pid; sh -c 'sleep 60' & echo $! >> child.pid; wait"
    output = await run(registry, command, timeout=1)
    assert output.endswith("[killed after the 1 s timeout]")
    pids = [int(line) for line in (workspace / "child.pid").read_text().split()]
    assert len(pids) == 2 and all(_gone(pid) for pid in pids)


async def test_an_interrupted_turn_kills_the_group(registry: ToolRegistry, workspace: Path) -> None:
    task = asyncio.create_task(run(registry, "sleep 60 & echo $! > child.pid; wait"))
    pid_file = workspace / "child.pid"
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _gone(int(pid_file.read_text()))


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "rm -rf / --no-preserve-root",
        "sudo rm -fr ~",
        "rm -rf *",
        "rm -Rf $HOME/*",
        "mkfs.ext4 /dev/sda1",
        "dd if=/dev/zero of=/dev/sda bs=1M",
        "cat img > /dev/nvme0n1",
        "shutdown -h now",
        "echo bye; reboot",
        "sudo poweroff",
        ":(){ :|:& };:",
        "format c:",
        "del /f /s /q C:\\",
    ],
)
async def test_blocked_patterns_are_refused_without_asking(
    registry: ToolRegistry, workspace: Path, command: str
) -> None:
    spec = registry.get("exec")
    assert spec is not None and spec.confirmation_prompt({"command": command}) is None
    output = await run(registry, f"touch marker; {command}")
    assert output.startswith("Error: refused:") and "speed bump" in output
    assert not (workspace / "marker").exists()


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ./build",
        "rm -rf build/ dist/",
        "grep shutdown notes.txt",
        "echo reboot-later",
        "dd if=/dev/zero of=/dev/null count=1",
        "ls ~",
    ],
)
async def test_near_misses_are_asked_about_not_blocked(
    registry: ToolRegistry, workspace: Path, command: str
) -> None:
    spec = registry.get("exec")
    assert spec is not None
    prompt = spec.confirmation_prompt({"command": command})
    assert prompt is not None and command in prompt and str(workspace) in prompt


async def test_empty_and_nul_commands(registry: ToolRegistry, workspace: Path) -> None:
    assert (await run(registry, "  ")).startswith("Error: command is empty")
    assert (await run(registry, "echo a\0b")).startswith("Error: command contains a NUL")


@pytest.mark.parametrize("allow", [False, True])
async def test_through_the_engine_the_command_runs_only_when_allowed(
    server: ScriptedServer, hermetic: Path, allow: bool
) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    prompts: list[str] = []

    def answer(event: object) -> None:
        if isinstance(event, ApprovalRequested):
            prompts.append(event.summary)
            engine.decide(event.request_id, Decision(allow, reason="test"))

    engine.events.listen(answer)
    command = "echo ran > marker.txt"
    server.enqueue(tool_calls([("exec", json.dumps({"command": command}))]), text("ok"))

    await ask(engine, engine.new_chat().id, "make a marker")

    assert len(prompts) == 1 and command in prompts[0]
    assert (hermetic / "work" / "marker.txt").exists() is allow
    [finished] = seen.of(ToolFinished)
    assert finished.ok is allow
    await engine.close()
