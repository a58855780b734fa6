"""Benchmark: how long ``ChatStore.load`` takes for a 10,000-message chat.

Opening a long chat must feel instant in the TUI, and the engine loads a chat at the start
of every turn. Run on demand (pytest ignores ``tests/bench``)::

    .venv/bin/python tests/bench/bench_load_chat.py [--messages 10000] [--runs 9]

Prints the file size, the median, min and max load time, and the CPU time of a load
against the floor measured in the same rounds (paired): the same file's bytes read and
each line given to ``json.loads``. Goals (issue 19): a median load of at most 100 ms, and
at most 1.05x the floor's CPU time (median of the per-round ratios).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tuibot.store.chats import ChatStore

GOAL_MS = 100.0
GOAL_RATIO = 1.05
"""Issue 19: the median load, and its CPU time over plain ``json.loads`` of each line."""

WORDS = (
    "the",
    "a",
    "file",
    "tool",
    "model",
    "chat",
    "result",
    "error",
    "value",
    "line",
    "path",
    "list",
    "read",
    "write",
    "run",
)


def _text(rng: random.Random, low: int, high: int) -> str:
    """Prose-like text of ``low``..``high`` characters, with line breaks."""
    size = rng.randint(low, high)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS) + ("\n" if rng.random() < 0.08 else "")
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def _turn(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """One realistic turn: a question, a tool round with 1-3 calls, an answer."""
    calls = [
        {
            "id": f"call_{n}_{i}",
            "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/m{i}.py"})},
        }
        for i in range(rng.randint(1, 3))
    ]
    usage = {"prompt_tokens": rng.randint(500, 9000), "completion_tokens": 200, "cost_micros": 0}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": _text(rng, 40, 600), "turn": f"t{n}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": calls,
            "turn": f"t{n}",
            "reasoning": _text(rng, 100, 800),
            "bot": "Assistant",
            "usage": usage,
        },
    ]
    for call in calls:
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "name": "read_file",
                "content": _text(rng, 200, 4000),
                "turn": f"t{n}",
            }
        )
    messages.append({"role": "assistant", "content": _text(rng, 200, 2000), "turn": f"t{n}"})
    return messages


def build(store: ChatStore, count: int) -> str:
    """Write a chat of ``count`` messages, a turn per append, as the engine would."""
    rng = random.Random(42)
    chat = store.create()
    written, n = 0, 0
    while written < count:
        turn = _turn(rng, n)[: count - written]
        store.append(chat.id, turn)
        written += len(turn)
        n += 1
    return chat.id


def floor(path: Path) -> list[Any]:
    """The least any loader does: read the bytes, ``json.loads`` each non-empty line."""
    data = path.read_bytes()
    return [json.loads(line) for line in data.split(b"\n") if line]


def cpu(work: Any) -> tuple[float, float, Any]:
    """Run ``work()``: its wall and CPU seconds, and what it returned.

    A full collection first, so neither side pays for garbage the other left.
    """
    gc.collect()
    wall, used = time.perf_counter(), time.process_time()
    value = work()
    return time.perf_counter() - wall, time.process_time() - used, value


def verdict(passed: bool) -> str:
    """PASS or FAIL, as every benchmark prints it."""
    return "PASS" if passed else "FAIL"


def main() -> int:
    """Build the chat once, then time several loads of it, each paired with the floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = ChatStore(Path(folder) / "chats")
        chat_id = build(store, options.messages)
        size = store.path(chat_id).stat().st_size
        path = store.path(chat_id)
        times, ratios, cpus, floors = [], [], [], []
        for round_no in range(options.runs + 1):
            chat = lines = None  # the last round's results are not live during this one
            if round_no % 2:  # alternate which goes first: neither always warms the other
                wall, used, chat = cpu(lambda: store.load(chat_id))
                _, base, lines = cpu(lambda: floor(path))
            else:
                _, base, lines = cpu(lambda: floor(path))
                wall, used, chat = cpu(lambda: store.load(chat_id))
            assert chat is not None and lines is not None
            assert len(chat.messages) == options.messages and not chat.problems
            assert len(lines) == options.messages + 1  # the header
            if round_no:  # round 0 warms the page cache and the allocator
                times.append(wall)
                cpus.append(used)
                floors.append(base)
                ratios.append(used / base)
    median = statistics.median(times) * 1000
    ratio = statistics.median(ratios)
    print(f"{options.messages} messages, {size / 1e6:.1f} MB, {options.runs} runs")
    print(
        f"ChatStore.load median {median:.1f} ms (min {min(times) * 1000:.1f}, "
        f"max {max(times) * 1000:.1f}): {verdict(median <= GOAL_MS)} (goal <= {GOAL_MS:.0f} ms)"
    )
    print(
        f"CPU: load {statistics.median(cpus) * 1000:.1f} ms, json.loads per line "
        f"{statistics.median(floors) * 1000:.1f} ms; paired ratio {ratio:.3f} "
        f"(spread {min(ratios):.3f}-{max(ratios):.3f}; fastest over fastest "
        f"{min(cpus) / min(floors):.3f}): "
        f"{verdict(ratio <= GOAL_RATIO)} (goal <= {GOAL_RATIO}x)"
    )
    return 0 if median <= GOAL_MS and ratio <= GOAL_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
