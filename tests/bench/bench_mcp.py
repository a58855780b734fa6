"""What MCP servers cost: ``ask``'s time to first token, and one MCP call's overhead.

    .venv/bin/python tests/bench/bench_mcp.py [--runs 5]

(a) ``tuibot ask`` with no MCP server against the same with three configured servers
whose tool lists are cached (the servers start in the background; the goal is within
10 %). (b) ``registry.execute`` of the tests' MCP ``echo`` tool over stdio against a
Python tool doing the same, in one process, after both are warm.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from mcp_helpers import FAULT_SERVER, fault_server, toml_server  # noqa: E402
from scripted_server import ScriptedServer, text  # noqa: E402


def _first_byte(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from start to the first byte on stdout (the first token printed)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert process.stdout is not None
    process.stdout.read(1)
    elapsed = time.perf_counter() - started
    process.communicate()
    return elapsed


def ttft(runs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch, ScriptedServer() as server:
        home, data = Path(scratch, "home"), Path(scratch, "data")
        home.mkdir()
        env = {**os.environ, "TUIBOT_HOME": str(home), "TUIBOT_DATA": str(data),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        argv = [sys.executable, "-m", "tuibot", "ask", "--base-url", server.url,
                "--model", "m", "hi"]  # fmt: skip
        blocks = [toml_server(f"s{i}", sys.executable, [str(FAULT_SERVER)]) for i in range(3)]
        results: dict[str, list[float]] = {"none": [], "3 servers": []}
        for _ in range(runs):
            for label, config in (("none", ""), ("3 servers", "\n".join(blocks))):
                (home / "config.toml").write_text(config)
                if label == "3 servers" and not (data / "mcp" / "tools").exists():
                    subprocess.run([sys.executable, "-m", "tuibot", "mcp", "list"], env=env,
                                   capture_output=True, check=False)  # fmt: skip
                server.enqueue(text("hello there"))
                results[label].append(_first_byte(argv, env))
        base = statistics.median(results["none"])
        for label, values in results.items():
            median = statistics.median(values)
            print(f"ask ttft, {label:<10} median {median * 1000:7.1f} ms "
                  f"({(median / base - 1) * 100:+.1f} %)  runs={values!r}")  # fmt: skip


async def overhead(calls: int) -> None:
    from tuibot.mcp.manager import McpManager
    from tuibot.toolkit.decorator import make_spec
    from tuibot.toolkit.registry import ToolRegistry

    registry = ToolRegistry()

    async def echo(text: str) -> str:
        """Say the text back."""
        return f"echo: {text}"

    registry.register(make_spec(echo))
    with tempfile.TemporaryDirectory() as scratch:
        manager = McpManager(
            {"f": fault_server("f")}, Path(scratch), cwd=Path.cwd(),
            publish=lambda source, specs: [registry.register(s) for s in specs],
        )  # fmt: skip
        manager.start()
        await manager.settle()
        timings: dict[str, list[float]] = {"echo": [], "f__echo": []}
        args: dict[str, Any] = {"text": "x"}
        for name in timings:
            await registry.execute(name, args)
            for _ in range(calls):
                started = time.perf_counter()
                result = await registry.execute(name, args)
                timings[name].append(time.perf_counter() - started)
                assert result.ok, result.output
        await manager.close()
    direct, mcp = (statistics.median(timings[n]) for n in ("echo", "f__echo"))
    print(f"python tool call median {direct * 1e6:8.1f} us")
    print(f"MCP tool call    median {mcp * 1e6:8.1f} us (overhead {(mcp - direct) * 1e3:.2f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args()
    asyncio.run(overhead(options.calls))
    ttft(options.runs)


if __name__ == "__main__":
    main()
