"""The app's one clock: wall time for ages, countdowns and log times.

Every pane asks :func:`now` rather than ``time.time()``, so snapshot tests can freeze
the clock and get the same picture on every run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_source: Callable[[], float] = time.time


def now() -> float:
    """Seconds since the epoch, from the current source."""
    return _source()


def freeze(at: float | None) -> None:
    """Stop the clock at ``at`` (tests); None lets it run again."""
    global _source
    _source = time.time if at is None else (lambda: at)
