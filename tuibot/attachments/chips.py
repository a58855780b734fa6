"""One short label per attachment, for the chip a front end shows under the message.

Why here: the engine puts these labels on ``TurnStarted`` and the TUI draws the same
labels from a stored chat, so a live message and a reloaded one look alike. Names are
made visible (control characters escaped): a file name is the person's own, but it may
have come from anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tuibot.visible import visible


def chip_label(ref: Mapping[str, Any]) -> str:
    """``📎 notes.md · text · 2 KiB``."""
    name = visible(str(ref.get("name", "?")), keep_newlines=False)
    return f"📎 {name} · {ref.get('kind', '?')} · {_size(int(ref.get('size', 0) or 0))}"


def chip_labels(refs: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """The labels of a message's attachments, in order."""
    return tuple(chip_label(ref) for ref in refs if isinstance(ref, Mapping))


def _size(count: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count} B"
