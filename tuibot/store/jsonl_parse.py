"""Parsing JSON Lines bytes into records, and saying why a line was refused.

:mod:`tuibot.store.jsonl` reads files with it (and sets the refused lines aside); a
chat's tail is parsed from bytes the same way. Lines split on ``\\n`` only, a torn last
line is named as such, and a long chat's common line takes a short path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Check = Callable[[dict[str, Any]], str | None]
"""Extra validation for ``read_lines``: the reason a parsed record is bad, or None."""


@dataclass(frozen=True)
class LineProblem:
    """A line that could not be used: where it was, what it said, and why it was refused."""

    line: int
    """1-based line number in the file as it was read; 0 for a problem with the whole file."""
    text: str
    """The line's text (undecodable bytes kept as surrogate escapes)."""
    reason: str
    """Why the line was refused, for a person to read."""


@dataclass
class ReadResult:
    """The usable records of a file, in order, and the lines that were refused."""

    records: list[dict[str, Any]]
    problems: list[LineProblem] = field(default_factory=list)


@dataclass
class Parsed:
    """What a pass over the bytes found, plus the good lines' bytes for a rewrite."""

    result: ReadResult
    kept: list[bytes]
    """The good lines, without their newlines."""


def parse_line(raw: bytes, check: Check | None) -> tuple[dict[str, Any] | None, str]:
    """A record, or None and the reason it was refused."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte {exc.start + 1})"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {exc.msg} (column {exc.colno})"
    except (ValueError, RecursionError) as exc:
        return None, f"invalid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"not a JSON object (a {type(value).__name__})"
    reason = check(value) if check is not None else None
    return (None, reason) if reason else (value, "")


_DECODER = json.JSONDecoder()
"""The decoder ``json.loads`` uses when given no options (see :func:`parse_bytes`)."""


def parse_bytes(data: bytes, check: Check | None) -> Parsed:
    """Split on ``\\n`` only (never ``splitlines``: JSON text may hold U+2028 or \\r).

    A long chat is loaded at every turn, so the common line takes a short path: one
    ``raw_decode`` that must consume the whole line (what ``json.loads`` does, less its
    per-call checks). Anything else — bad UTF-8, leading or trailing whitespace, invalid
    JSON, a non-object — goes through :func:`parse_line` for the exact reason.
    """
    pieces = data.split(b"\n")
    tail = pieces.pop()  # b"" when the file ends in a newline
    parsed = Parsed(ReadResult([], []), [])
    records, kept, raw_decode = parsed.result.records, parsed.kept, _DECODER.raw_decode
    last = len(pieces) + 1
    for number, raw in enumerate([*pieces, tail] if tail else pieces, start=1):
        if not raw or raw.isspace():
            continue
        try:
            text = raw.decode("utf-8")
            value, end = raw_decode(text)
        except (ValueError, RecursionError):  # UnicodeDecodeError, JSONDecodeError
            value, end, text = None, -1, ""
        if end == len(text) and type(value) is dict:  # check is called once a line
            reason = (check(value) if check is not None else None) or ""
            record = None if reason else value
        else:
            record, reason = parse_line(raw, check)
        if record is not None:
            records.append(record)
            kept.append(raw)
            continue
        if number == last and reason.startswith(("invalid JSON", "not valid UTF-8")):
            reason = f"incomplete last line, a write was cut off ({reason})"
        text = raw.decode("utf-8", "surrogateescape")
        parsed.result.problems.append(LineProblem(number, text, reason))
    return parsed


def parse_lines(data: bytes, check: Check | None = None) -> ReadResult:
    """The records of whole JSONL lines in ``data`` and the lines refused, as
    :func:`~tuibot.store.jsonl.read_lines` reads a file (a chat's tail is read this way,
    from bytes)."""
    return parse_bytes(data, check).result
