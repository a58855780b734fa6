"""What masking secrets costs ``ask`` per streamed delta (see ``tuibot/system/masking.py``).

    .venv/bin/python tests/bench/bench_masking.py [--deltas 200000]

Each delta is a 4-character ``TextDelta`` passed through ``Masked`` to a listener that
does nothing, so the numbers are the masking alone:

- (a) no wrapper: the listener called directly (the floor);
- (b) ``Masked`` with no secret known (every ``ask`` against a local server);
- (c) ``Masked`` with one API key known (the stream is scanned for its start);
- (d) for scale: the engine's JSON round trip (``engine_prepare.redacted``) on each delta, which
  masking must not cost.

Goals: (b) under 1 µs a delta (a check of two empty things, no copy, no buffer); (c) under
10 µs a delta (at 100 deltas/s, a millisecond per second of streaming). Exit code 1 when a
goal is missed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from tuibot.engine.prepare import redacted as _redacted
from tuibot.events import Event, TextDelta
from tuibot.system.masking import Masked
from tuibot.system.secrets import remember_secret


def _per_delta(send: Callable[[Event], None], deltas: list[TextDelta]) -> float:
    """Seconds per delta for ``send`` over all of ``deltas`` (best of three)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for delta in deltas:
            send(delta)
        best = min(best, time.perf_counter() - started)
    return best / len(deltas)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=200_000)
    args = parser.parse_args()
    words = "the answer streams in small pieces, some with tokens like sk- or s in them. "
    text = (words * (args.deltas * 4 // len(words) + 1))[: args.deltas * 4]
    deltas = [TextDelta("c1", "t1", text[i : i + 4]) for i in range(0, len(text), 4)]

    def nothing(event: Event) -> None:
        return None

    floor = _per_delta(nothing, deltas)
    unknown = _per_delta(Masked(nothing), deltas)
    remember_secret("sk-bench-9f8e7d6c5b4a3f2e1d0c")
    known = _per_delta(Masked(nothing), deltas)
    round_trip = _per_delta(lambda e: nothing(_redacted(e.delta)), deltas[: len(deltas) // 4])

    for label, value in [
        ("(a) no wrapper", floor),
        ("(b) Masked, no secret known", unknown),
        ("(c) Masked, one secret known", known),
        ("(d) JSON round trip per delta", round_trip),
    ]:
        print(f"{label:34} {value * 1e6:7.3f} µs/delta")
    ok = unknown < 1e-6 and known < 10e-6
    print("PASS" if ok else "FAIL: a goal was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
