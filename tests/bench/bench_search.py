"""Benchmark: searching 1,000 chats of 100 messages each (the goal is < 200 ms).

The chats pane searches as you type, so one search must stay well under a keystroke's
patience. Run on demand (pytest ignores ``tests/bench``)::

    .venv/bin/python tests/bench/bench_search.py [--chats 1000] [--messages 100] [--runs 9]

Prints the folder size, the first (cold: files read) search and the median, min and max
of the following ones (warm: files unchanged, read from the cache), for a word found in
a few chats, a word found nowhere, and a word that is in every file only as a JSON key.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tuibot.store.chats import ChatStore
from tuibot.store.search import ChatSearch

VOCABULARY = 20_000
"""Distinct words in the corpus, drawn Zipf-like (a few common, many rare) like prose."""
QUERIES = ("needle haystack", "zebra", "content")


def fill(store: ChatStore, chats: int, messages: int, rng: random.Random) -> None:
    """``chats`` chats of ``messages`` prose messages; every 100th holds "needle haystack"."""
    words_of = [_word(rng) for _ in range(VOCABULARY)]
    weights = [1 / (rank + 1) for rank in range(VOCABULARY)]
    for index in range(chats):
        meta = store.create(title=f"Chat {index}")
        batch = []
        for n in range(messages):
            words = rng.choices(words_of, weights, k=rng.randint(20, 120))
            if index % 100 == 0 and n == messages // 2:
                words[5:5] = ["needle", "in", "the", "haystack"]
            role = "user" if n % 2 == 0 else "assistant"
            batch.append({"role": role, "content": " ".join(words)})
        store.append(meta.id, batch)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("etaoinshrdlucmfwypvbgk") for _ in range(rng.randint(2, 11)))


def measure(search: ChatSearch, query: str, runs: int) -> tuple[float, list[float], int]:
    """(cold seconds, warm seconds, hits) for one query on a fresh cache."""
    search._entries.clear()
    start = time.perf_counter()
    hits = len(search.search(query))
    cold = time.perf_counter() - start
    warm = []
    for _ in range(runs):
        start = time.perf_counter()
        search.search(query)
        warm.append(time.perf_counter() - start)
    return cold, warm, hits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = ChatStore(Path(folder))
        fill(store, args.chats, args.messages, random.Random(17))
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
        print(f"{args.chats} chats x {args.messages} messages, {size / 1e6:.1f} MB")
        search = ChatSearch(store)
        worst = 0.0
        for query in QUERIES:
            cold, warm, hits = measure(search, query, args.runs)
            worst = max(worst, statistics.median(warm))
            print(
                f"{query!r:20} hits {hits:3}  cold {cold * 1000:6.0f} ms  warm median "
                f"{statistics.median(warm) * 1000:6.0f} ms  min {min(warm) * 1000:5.0f}  "
                f"max {max(warm) * 1000:5.0f}"
            )
    print(f"goal < 200 ms (warm): {'met' if worst < 0.2 else 'NOT met'}")
    return 0 if worst < 0.2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
