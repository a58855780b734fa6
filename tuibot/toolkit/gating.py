"""Gating: whether a tool can run on this machine (platform and required binaries).

A gated tool stays registered and listed, so the user sees it exists and why it is off;
only calling it is refused, with one line that says what is missing. Checks run at call
time, so installing the binary makes the tool work without a restart.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable


def normalize_names(values: Iterable[str] | None, option: str) -> tuple[str, ...]:
    """``values`` as a tuple of non-empty strings; a bare string is a mistake, not a list."""
    if values is None:
        return ()
    if isinstance(values, str):
        raise TypeError(f"@tool({option}=...) takes a list of strings, not a single string")
    names = tuple(values)
    for value in names:
        if not isinstance(value, str) or not value:
            raise TypeError(f"@tool({option}=...) takes non-empty strings, got {value!r}")
    return names


def unavailable_reason(
    platforms: tuple[str, ...], requires: tuple[str, ...], platform: str | None = None
) -> str | None:
    """Why a tool cannot run here (``needs nvidia-smi on PATH``), or None when it can.

    A platform matches by prefix of ``sys.platform`` (``"linux"`` matches ``linux``,
    ``"win"`` matches ``win32``), as Python's own docs recommend.
    """
    current = platform if platform is not None else sys.platform
    if platforms and not any(current.startswith(p) for p in platforms):
        return f"needs platform {' or '.join(platforms)} (this is {current})"
    missing = [name for name in requires if shutil.which(name) is None]
    if missing:
        return f"needs {', '.join(missing)} on PATH"
    return None
