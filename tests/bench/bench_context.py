"""Benchmark: counting and fitting one model call on a 5,000-message chat (goal < 5 ms).

The fitter runs before every model call, so it must cost nothing a person could notice.
The chat is the realistic one of ``bench_load_chat`` (tool rounds with 0.2-4 KB
results); the window is 8,192 tokens, so the fitter has to cut results and leave turns
out — the slow path. ``--limit`` is ``agent.history_limit`` (200 by default; 5000 makes
the whole chat a candidate). Run on demand (pytest ignores ``tests/bench``)::

    .venv/bin/python tests/bench/bench_context.py [--messages 5000] [--runs 50] [--limit 5000]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load_chat import _turn

from tuibot.agent.fit import Measure, fit_request
from tuibot.agent.tokens import TokenCounter


def main() -> int:
    """Build the chat in memory, then time several fits of one request."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--limit", type=int, default=5000)
    parser.add_argument("--window", type=int, default=8192)
    options = parser.parse_args()
    rng = random.Random(42)
    history: list[dict] = []
    n = 0
    while len(history) < options.messages:
        history.extend(_turn(rng, n))
        n += 1
    history = history[: options.messages]
    tools = [
        {"type": "function", "function": {"name": f"t{i}", "parameters": {}}} for i in range(20)
    ]
    counter = TokenCounter()
    counter.report("m", "c", 40_000, 20, 11_000)  # a calibrated model, as after one call
    measure = Measure(counter, "m", "c")
    times = []
    for _ in range(options.runs):
        start = time.perf_counter()
        fitted = fit_request(
            "You are helpful. " * 60, tools, history, options.limit, options.window - 1024, measure
        )
        times.append(time.perf_counter() - start)
    median = statistics.median(times) * 1000
    print(
        f"{options.messages} messages, history_limit {options.limit}, window {options.window}: "
        f"sent {len(fitted.messages)} messages, ~{fitted.tokens} tokens "
        f"({fitted.cut_results} results cut, {fitted.dropped} messages left out)"
    )
    low, high = min(times) * 1000, max(times) * 1000
    print(f"count + fit median {median:.2f} ms (min {low:.2f}, max {high:.2f}); goal < 5 ms")
    json.dumps(fitted.messages)  # the request must be serialisable as sent
    return 0 if median < 5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
