"""The bundled system tools against this machine's real psutil readings."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tuibot.system.paths import bundled_dir
from tuibot.toolkit import ToolRegistry, load_tool_folder
from tuibot.toolkit.sizes import clip_output, human_bytes, human_duration


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    specs, errors = load_tool_folder(bundled_dir("tools"), "bundled")
    assert errors == []
    reg = ToolRegistry()
    for spec in specs:
        reg.register(spec)
    return reg


async def call(registry: ToolRegistry, tool: str, **arguments: object) -> str:
    result = await registry.execute(tool, arguments)
    return result.output


def test_sizes_and_durations() -> None:
    assert human_bytes(0) == "0 B"
    assert human_bytes(1023) == "1023 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(5 * 1024**3) == "5.0 GiB"
    assert human_bytes(3 * 1024**6) == "3072.0 PiB"
    assert human_duration(59) == "59s"
    assert human_duration(61) == "1m 1s"
    assert human_duration(3 * 3600 + 120) == "3h 2m"
    assert human_duration(93784) == "1d 2h 3m"
    assert clip_output("a\nb\nc", 100) == "a\nb\nc"
    assert clip_output("line1\nline2\nline3", 8) == "line1\n[output cut at 0 KB]"


async def test_disk_usage_agrees_with_the_os(registry: ToolRegistry, tmp_path: Path) -> None:
    output = await call(registry, "disk_usage", path=str(tmp_path))
    total = shutil.disk_usage(tmp_path).total
    assert output.startswith(f"{tmp_path} (filesystem mounted at ")
    assert f"total {human_bytes(total)}," in output


async def test_disk_usage_of_every_mount_includes_root(registry: ToolRegistry) -> None:
    output = await call(registry, "disk_usage", all=True)
    assert any(line.startswith("/ (") for line in output.splitlines())


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/no/such/place", "Error: path not found: /no/such/place"), ("a\0b", "Error: path contains")],
)
async def test_disk_usage_refuses_bad_paths(
    registry: ToolRegistry, path: str, expected: str
) -> None:
    assert (await call(registry, "disk_usage", path=path)).startswith(expected)


async def test_system_info_names_this_machine(registry: ToolRegistry) -> None:
    output = await call(registry, "system_info")
    assert f"host: {socket.gethostname()}" in output
    assert f"cpu: {os.cpu_count()} logical cores" in output
    assert "memory: " in output and "up: " in output


def _table(output: str) -> list[list[str]]:
    lines = output.splitlines()
    assert lines[0].split()[:4] == ["PID", "CPU%", "MEM%", "RSS"]
    return [line.split() for line in lines[1:] if not line.startswith("[")]


async def test_processes_finds_a_process_by_name(registry: ToolRegistry) -> None:
    sleeper = subprocess.Popen(["sleep", "61.5"])
    try:
        output = await call(registry, "processes", name="61.5", sort_by="pid")
        rows = _table(output)
        assert [int(row[0]) for row in rows] == [sleeper.pid]
        assert "sleep 61.5" in output
    finally:
        sleeper.kill()
        sleeper.wait()


async def test_a_command_line_with_line_breaks_stays_one_row(registry: ToolRegistry) -> None:
    script = "import time\n# 73.25 marker\ntime.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        output = await call(registry, "processes", name="73.25 marker", sort_by="pid")
        rows = _table(output)
        assert [int(row[0]) for row in rows] == [child.pid]
        assert len(output.splitlines()) == 2
        assert "import time\\n# 73.25 marker\\ntime.sleep(60)" in output
    finally:
        child.kill()
        child.wait()


async def test_processes_sorting_and_limit(registry: ToolRegistry) -> None:
    by_pid = _table(await call(registry, "processes", sort_by="pid", limit=50))
    pids = [int(row[0]) for row in by_pid]
    assert pids == sorted(pids) and 1 <= len(pids) <= 50

    units = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
    by_memory = _table(await call(registry, "processes", sort_by="memory", limit=10))
    rss = [float(row[3]) * units[row[4]] for row in by_memory]
    assert len(by_memory) <= 10 and rss == sorted(rss, reverse=True)

    limited = await call(registry, "processes", limit=1)
    assert len(_table(limited)) == 1 and "processes shown; raise limit or filter]" in limited


async def test_processes_survive_processes_exiting_mid_list(registry: ToolRegistry) -> None:
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            subprocess.run(["true"], check=False)

    worker = threading.Thread(target=churn, daemon=True)
    worker.start()
    try:
        for _ in range(3):
            output = await call(registry, "processes", limit=200)
            assert _table(output)
    finally:
        stop.set()
        worker.join()


async def test_no_match_is_said_plainly(registry: ToolRegistry) -> None:
    output = await call(registry, "processes", name="no-such-process-name-zz")
    assert output == "No processes match 'no-such-process-name-zz'."
