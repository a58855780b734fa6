"""Config values: how they are checked, parsed from text, shown and masked.

Why apart from the schema: these are pure functions of a type hint and a value, used by
the loader, ``config set``, ``config show`` and the docs generator alike. A wrong value
raises ``ValueError`` whose message says what was expected; the schema module turns that
into a ``ConfigError`` naming the key and where the value came from.
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "authorization")
"""A free-form key whose name has a word ending in one of these holds a secret."""


def format_value(value: Any, limit: int = 80) -> str:
    """A value as TOML would spell it, shortened for messages."""
    if value is None:
        text = "(not set)"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(format_value(v, 10**6) for v in value) + "]"
    elif isinstance(value, dict):
        inner = ", ".join(f"{format_key(k)} = {format_value(v, 10**6)}" for k, v in value.items())
        text = "{" + (f" {inner} " if inner else "") + "}"
    elif isinstance(value, float) and math.isfinite(value):
        text = repr(value)
    else:
        text = str(value).lower() if isinstance(value, float) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_key(name: str) -> str:
    """A key bare when TOML allows it, quoted otherwise."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else format_value(name, 10**6)


def is_secret_name(name: str) -> bool:
    """Whether a free-form key name looks like it holds a secret (``api_key``, ``authToken``).

    Words are split on ``_ - .`` and camel case; ``max_tokens`` and ``keywords`` stay
    visible because no word of theirs *ends* in a secret word.
    """
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    words = [w for w in re.split(r"[_\-.\s]+", spaced.lower()) if w]
    return any(w.endswith(s) for w in words for s in SECRET_WORDS)


def mask(value: Any) -> str:
    """``****`` plus the last 4 characters of a long string; ``****`` for anything else."""
    if isinstance(value, str) and len(value) >= 12:
        return "****" + value[-4:]
    return "****"


def parse_text(raw: str) -> Any:
    """A string as a TOML value when it is one (``3``, ``true``, ``[1, 2]``), else as is."""
    import tomllib  # the stdlib parser: an env override alone should not import tomlkit

    try:
        data = tomllib.loads(f"v = {raw}\n")
    except tomllib.TOMLDecodeError:
        return raw
    return data["v"] if list(data) == ["v"] else raw


def from_text(hint: Any, raw: str) -> Any:
    """Text given on the command line or in the environment, as a value for ``hint``.

    A string field keeps the text as typed, unless the text is itself a quoted TOML string.
    """
    base, _ = strip_optional(hint)
    if base is str and not raw.lstrip(" \t").startswith(('"', "'")):
        return raw  # only a quoted TOML string reads as other text: no parser to import
    parsed = parse_text(raw)
    if base is str and not isinstance(parsed, str):
        return raw
    return parsed


def strip_optional(hint: Any) -> tuple[Any, bool]:
    """``float | None`` → ``(float, True)``: the type to check and whether unset is allowed."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return (args[0] if len(args) == 1 else Any), True
    return hint, False


def expected(hint: Any, limits: Mapping[str, Any]) -> str:
    """What a value of this type and these limits must look like, for messages and docs."""
    base, _ = strip_optional(hint)
    if limits.get("choices"):
        return "one of " + ", ".join(limits["choices"])
    unit = f" {limits['unit']}" if limits.get("unit") else ""
    if "off" in limits:
        return f"{_num(limits['off'])} (off) or at least {_num(limits['ge'])}{unit}"
    ops = (("gt", ">"), ("ge", ">="), ("le", "<="))
    bounds = [f"{op} {_num(limits[k])}" for k, op in ops if k in limits]
    suffix = (" " + " and ".join(bounds) + unit) if bounds else ""
    if base is bool:
        return "true or false"
    if base is int:
        return "an integer" + suffix
    if base is float:
        return "a number" + suffix
    if base is str:
        kind = "a path" if limits.get("path") else "a string"
        return ("a non-empty string" if limits.get("nonempty") else kind) + suffix
    if typing.get_origin(base) is list:
        return "a list of strings"
    if typing.get_origin(base) is dict:
        return "a table of integers" + suffix if typing.get_args(base)[1:] == (int,) else "a table"
    return "a value"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def coerce(hint: Any, limits: Mapping[str, Any], value: Any) -> Any:
    """The value checked against its type and limits; ``ValueError(expected)`` when wrong."""
    base, optional = strip_optional(hint)
    if value is None and optional:
        return None
    result = _coerce_type(base, limits, value)
    if result is _BAD or not _within(limits, result):
        raise ValueError(expected(hint, limits))
    return result


_BAD = object()


def _coerce_type(base: Any, limits: Mapping[str, Any], value: Any) -> Any:
    if base is Any:
        return value
    if base is bool:
        return value if isinstance(value, bool) else _BAD
    if base is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _BAD
    if base is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if ok and math.isfinite(value) else _BAD
    if base is str:
        if not isinstance(value, str) or (limits.get("nonempty") and not value.strip()):
            return _BAD
        choices = limits.get("choices", ())
        if not choices:
            return value
        return next((c for c in choices if c.casefold() == value.casefold()), _BAD)
    origin = typing.get_origin(base)
    if origin is list:
        (item,) = typing.get_args(base)
        ok = isinstance(value, list) and all(isinstance(v, item) for v in value)
        return list(value) if ok else _BAD
    if origin is dict:
        return dict(value) if isinstance(value, dict) else _BAD
    return value if isinstance(value, base) else _BAD


def _within(limits: Mapping[str, Any], value: Any) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return True
    if "off" in limits and value == limits["off"]:
        return True
    if "gt" in limits and not value > limits["gt"]:
        return False
    within: bool = limits.get("ge", -math.inf) <= value <= limits.get("le", math.inf)
    return within
