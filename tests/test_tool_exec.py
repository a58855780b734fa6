"""The bundled exec tool: real /bin/sh, real process groups, and its guards."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from engine_helpers import Recorder, ask, make_engine
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer

from tuibot.approvals import Decision
from tuibot.events import ApprovalRequested, ToolFinished
from tuibot.system.paths import bundled_dir
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
    """The process ended within ``within`` seconds. A zombie has ended too: when its
    parent (tuibot's reaper) was killed first, it waits for PID 1 to read its status,
    which some container inits never do, and ``kill(pid, 0)`` still finds it."""
    import psutil

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
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


# --- escapes: whatever a command starts ends with it ---------------------------------------
# Each attack leaves a `sleep N` (N unique to the test) that tries to outlive the command:
# in a new session, double-forked to another parent, ignoring SIGHUP or SIGTERM, or with
# its environment cleared. After exec returns, no such process may be alive.

ESCAPES = {
    "setsid": "setsid sh -c 'sleep {n}' &",
    "double fork": "(sh -c 'sleep {n} &' &)",
    "nohup": "nohup sleep {n} > /dev/null 2>&1 &",
    "ignores SIGTERM": "setsid sh -c \"trap '' TERM; sleep {n}; true\" &",
    "clears its environment": "env -i setsid sh -c 'sleep {n}' &",
}


def _sleepers(n: int) -> list[psutil.Process]:
    """Live (not zombie) processes running exactly ``sleep n``."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if proc.info["cmdline"] == ["sleep", str(n)] and proc.info["status"] != "zombie":
            found.append(proc)
    return found


def _none_left(n: int, within: float = 5.0) -> bool:
    """Whether every ``sleep n`` is gone (polled, at most ``within`` seconds)."""
    deadline = time.monotonic() + within
    while _sleepers(n):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def sleep_n() -> Iterator[int]:
    """A sleep length no other test uses; whatever survives a failed test is killed."""
    n = 400_000 + secrets.randbelow(500_000)
    yield n
    for proc in _sleepers(n):
        with contextlib.suppress(psutil.Error):
            proc.kill()


@pytest.mark.parametrize("kind", list(ESCAPES))
async def test_a_timeout_ends_every_escaped_process(
    registry: ToolRegistry, workspace: Path, sleep_n: int, kind: str
) -> None:
    command = ESCAPES[kind].format(n=sleep_n) + "\nsleep 60"
    output = await run(registry, command, timeout=1)
    assert output.endswith("[killed after the 1 s timeout]")
    assert _none_left(sleep_n), f"{kind}: a sleep {sleep_n} outlived the timeout"


@pytest.mark.parametrize("kind", list(ESCAPES))
async def test_cancelling_ends_every_escaped_process(
    registry: ToolRegistry, workspace: Path, sleep_n: int, kind: str
) -> None:
    task = asyncio.create_task(run(registry, ESCAPES[kind].format(n=sleep_n) + "\nsleep 60"))
    for _ in range(200):
        if _sleepers(sleep_n):
            break
        await asyncio.sleep(0.05)
    assert _sleepers(sleep_n), "the attack did not start"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _none_left(sleep_n), f"{kind}: a sleep {sleep_n} outlived the cancelled turn"


@pytest.mark.parametrize("kind", list(ESCAPES))
async def test_what_a_finished_command_left_running_is_ended(
    registry: ToolRegistry, workspace: Path, sleep_n: int, kind: str
) -> None:
    output = await run(registry, ESCAPES[kind].format(n=sleep_n) + "\necho started", timeout=20)
    assert output.startswith("started\n"), output
    assert "\n[exit code 0]\n" in output
    assert re.search(r"\[ended \d+ background process(es)? the command left running\]$", output)
    assert _none_left(sleep_n), f"{kind}: a sleep {sleep_n} outlived the command"


async def test_a_command_that_kills_its_reaper_is_still_ended(
    registry: ToolRegistry, workspace: Path, sleep_n: int
) -> None:
    # Out of the tree (its subreaper is gone), found by the run's mark in its environment.
    command = f"setsid sh -c 'sleep {sleep_n}' &\nkill -9 $PPID\nsleep 60"
    output = await run(registry, command, timeout=20)
    assert output.startswith("[exit status unknown: the command ended tuibot's process reaper]")
    assert _none_left(sleep_n), f"a sleep {sleep_n} outlived its killed reaper"
