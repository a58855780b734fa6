"""How long the bundled exec tool takes for a trivial command, and where the time goes.

exec now starts its command under a reaper process and scans the process table for the
run's mark when the shell exits (tuibot.toolkit.proctree), so a short command pays for
both. This prints the median and minimum of N runs of ``exec("true")`` through the
registry, of a bare ``/bin/sh -c true`` with asyncio (the floor), and of one member scan
(the tree alone, and the tree plus every process's environment).

    PYTHONPATH=$PWD .venv/bin/python tests/bench/bench_exec.py --runs 30
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from tuibot.system.paths import bundled_dir
from tuibot.toolkit import ToolRegistry, load_tool_folder, use_workspace
from tuibot.toolkit.proctree import find_members


async def timed(runs: int, action: Callable[[], Awaitable[object]]) -> list[float]:
    """Wall times of ``runs`` calls of ``action`` (after one warm-up call)."""
    await action()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await action()
        times.append(time.perf_counter() - started)
    return times


async def main(runs: int) -> None:
    specs, _ = load_tool_folder(bundled_dir("tools"), "bundled")
    registry = ToolRegistry()
    for spec in specs:
        registry.register(spec)

    async def via_exec() -> None:
        result = await registry.execute("exec", {"command": "true"})
        assert result.output == "[exit code 0]", result.output

    async def bare_sh() -> None:
        proc = await asyncio.create_subprocess_exec("/bin/sh", "-c", "true")
        await proc.wait()

    async def tree() -> None:
        find_members("no-such-run", os.getpid(), thorough=False)

    async def marks() -> None:
        find_members("no-such-run", os.getpid(), thorough=True)

    cases = (("exec true", via_exec), ("bare sh", bare_sh), ("tree", tree), ("tree+mark", marks))
    with use_workspace(Path.cwd()):
        for label, action in cases:
            times = await timed(runs, action)
            print(
                f"{label:10} median {statistics.median(times) * 1000:7.1f} ms"
                f"   min {min(times) * 1000:7.1f} ms"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    asyncio.run(main(parser.parse_args().runs))
