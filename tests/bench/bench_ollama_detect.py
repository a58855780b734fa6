"""Benchmark: what detecting Ollama by ``/api/version`` costs ``ask``'s start-up.

Only the first run against an address probes (one loopback GET); later runs read the
answer from ``servers.json``. Measured in-process, on loopback, median of ``--runs``:
the probe against a scripted Ollama server (an answer: cached), against a scripted
OpenAI-compatible server (a 404: cached too), and the cached lookup a later run does::

    .venv/bin/python tests/bench/bench_ollama_detect.py [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from ollama_server import OllamaServer  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402

from tuibot.llm.ollama_detect import ServerKinds  # noqa: E402


async def probe_ms(url: str, runs: int) -> float:
    """Median milliseconds of a first probe (fresh cache each time)."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            kinds = ServerKinds(Path(folder) / "servers.json")
            start = time.perf_counter()
            await kinds.probe(url)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def cached_ms(url: str, runs: int) -> float:
    """Median milliseconds of a later run's lookup (reads servers.json)."""
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(ServerKinds(Path(folder) / "servers.json").probe(url))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            ServerKinds(Path(folder) / "servers.json").known(url)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    """Print the three figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    with OllamaServer() as ollama, ScriptedServer() as other:
        print(f"first probe, Ollama:       {asyncio.run(probe_ms(ollama.url, runs)):.2f} ms")
        print(f"first probe, not Ollama:   {asyncio.run(probe_ms(other.url, runs)):.2f} ms")
        print(f"later runs (cached):       {cached_ms(ollama.url, runs):.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
