"""What MCP servers cost: ``ask``'s time to first token, and one MCP call's overhead.

    .venv/bin/python tests/bench/bench_mcp.py [--runs 5]

(a) ``tuibot ask`` with no MCP server against the same with three configured servers
whose tool lists are cached (``ask`` starts a server only on its first call; the goal is
within 10 %), in paired rounds whose order flips each round; the per-round ratio's median
and range are printed, since on a shared machine the load drifts between runs.
(b) ``registry.execute`` of the tests' MCP ``echo`` tool over stdio against a
Python tool doing the same, in one process, after both are warm.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
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


def _first_byte(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds to the first byte on stdout (the first token printed), and the child's CPU
    seconds (user + sys: less swayed by the other processes of a loaded machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert process.stdout is not None
    process.stdout.read(1)
    elapsed = time.perf_counter() - started
    process.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def ttft(runs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch, ScriptedServer() as server:
        home, data = Path(scratch, "home"), Path(scratch, "data")
        home.mkdir()
        env = {**os.environ, "TUIBOT_HOME": str(home), "TUIBOT_DATA": str(data),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        argv = [sys.executable, "-m", "tuibot", "ask", "--base-url", server.url,
                "--model", "m", "hi"]  # fmt: skip
        blocks = [toml_server(f"s{i}", sys.executable, [str(FAULT_SERVER)]) for i in range(3)]
        results: dict[str, list[tuple[float, float]]] = {"none": [], "3 servers": []}
        cases = [("none", ""), ("3 servers", "\n".join(blocks))]
        for round_ in range(runs):
            # paired rounds, the order flipped each round so drifting load favours neither
            for label, config in cases if round_ % 2 == 0 else cases[::-1]:
                (home / "config.toml").write_text(config)
                if label == "3 servers" and not (data / "mcp" / "tools").exists():
                    subprocess.run([sys.executable, "-m", "tuibot", "mcp", "list"], env=env,
                                   capture_output=True, check=False)  # fmt: skip
                server.enqueue(text("hello there"))
                results[label].append(_first_byte(argv, env))
        for metric, index in (("ttft", 0), ("cpu", 1)):
            _report(metric, {label: [r[index] for r in rs] for label, rs in results.items()})


def _report(metric: str, results: dict[str, list[float]]) -> None:
    """Each case's median and runs, then the per-round ratio's median and range."""
    for label, values in results.items():
        print(f"ask {metric}, {label:<10} median {statistics.median(values) * 1000:7.1f} ms  "
              f"runs (ms): {' '.join(f'{v * 1000:.0f}' for v in values)}")  # fmt: skip
    pairs = zip(results["none"], results["3 servers"], strict=True)
    ratios = sorted(b / a - 1 for a, b in pairs)
    print(f"{metric}: 3 servers vs none, paired per round: median {statistics.median(ratios):+.1%},"
          f" range {ratios[0]:+.1%} .. {ratios[-1]:+.1%} (goal: within 10 %)")  # fmt: skip


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
    for name, label in (("echo", "python tool call"), ("f__echo", "MCP tool call   ")):
        deciles = statistics.quantiles(timings[name], n=10)
        print(f"{label} median {statistics.median(timings[name]) * 1e6:8.1f} us "
              f"(p10 {deciles[0] * 1e6:.1f}, p90 {deciles[-1] * 1e6:.1f})")  # fmt: skip
    direct, mcp = (statistics.median(timings[n]) for n in ("echo", "f__echo"))
    print(f"MCP call overhead over a Python call: {(mcp - direct) * 1e3:.2f} ms (medians)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args()
    asyncio.run(overhead(options.calls))
    ttft(options.runs)


if __name__ == "__main__":
    main()
