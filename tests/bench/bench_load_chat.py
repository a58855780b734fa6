"""Benchmark: how long ``ChatStore.load`` takes for a 10,000-message chat.

Opening a long chat must feel instant in the TUI, and the engine loads a chat at the start
of every turn. Run on demand (pytest ignores ``tests/bench``)::

    .venv/bin/python tests/bench/bench_load_chat.py [--messages 10000] [--runs 9]

Prints the file size and the median, min and max load time.
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    """Build the chat once, then time several loads of it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = ChatStore(Path(folder) / "chats")
        chat_id = build(store, options.messages)
        size = store.path(chat_id).stat().st_size
        times = []
        for _ in range(options.runs):
            start = time.perf_counter()
            chat = store.load(chat_id)
            times.append(time.perf_counter() - start)
            assert len(chat.messages) == options.messages and not chat.problems
    median = statistics.median(times) * 1000
    print(f"{options.messages} messages, {size / 1e6:.1f} MB, {options.runs} runs")
    print(
        f"ChatStore.load median {median:.1f} ms (min {min(times) * 1000:.1f}, "
        f"max {max(times) * 1000:.1f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
