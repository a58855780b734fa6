"""Check a model's tool arguments against the tool's schema, in words a model can act on.

Models get arguments wrong in small ways (a number as a string, a misspelt name). Each
problem becomes one short sentence naming the argument, what was expected and what came,
so the next attempt is right. This covers exactly the schema subset that ``schema.py``
emits (plus ``anyOf`` with ``null``); ``jsonschema`` would cost more to import than the
whole toolkit.
"""

from __future__ import annotations

import json
from typing import Any

_ARTICLE = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}
_SHOWN_CHARS = 80


def validate_arguments(args: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Every problem with ``args`` under ``schema``; an empty list means valid."""
    if not isinstance(args, dict):
        return [f"arguments must be a JSON object, got {_show(args)}"]
    return _check_object(args, schema, prefix="")


def _check(value: Any, schema: dict[str, Any], where: str) -> list[str]:
    """Problems with one value; the type is checked first since the rest depends on it."""
    if "anyOf" in schema:
        return _check_any_of(value, schema["anyOf"], where)
    kind = schema.get("type")
    if kind is not None and not _has_type(value, kind):
        return [f"argument '{where}' must be {_expected(kind)}, got {_show(value)}"]
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(json.dumps(o, ensure_ascii=False) for o in schema["enum"])
        return [f"argument '{where}' must be one of [{options}], got {_show(value)}"]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        return _check_bounds(value, schema, where)
    if isinstance(value, str):
        return _check_length(value, schema, where)
    if isinstance(value, list):
        return _check_array(value, schema, where)
    if isinstance(value, dict):
        return _check_object(value, schema, prefix=f"{where}.")
    return []


def _check_any_of(value: Any, options: list[dict[str, Any]], where: str) -> list[str]:
    """Valid when one branch accepts; otherwise report against the non-null branches."""
    results = [_check(value, option, where) for option in options]
    if any(not problems for problems in results):
        return []
    real = [r for r, o in zip(results, options, strict=True) if o.get("type") != "null"]
    if len(real) == 1:
        return real[0]
    kinds = [o.get("type") for o in options]
    expected = " or ".join(_expected(k) if k else "a matching value" for k in kinds)
    return [f"argument '{where}' must be {expected}, got {_show(value)}"]


def _check_bounds(value: float, schema: dict[str, Any], where: str) -> list[str]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and value < low:
        return [f"argument '{where}' must be >= {_num(low)}, got {_show(value)}"]
    if high is not None and value > high:
        return [f"argument '{where}' must be <= {_num(high)}, got {_show(value)}"]
    return []


def _check_length(value: str, schema: dict[str, Any], where: str) -> list[str]:
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None and len(value) < low:
        need = _count(low, "character")
        return [f"argument '{where}' must be at least {need}, got {_show(value)}"]
    if high is not None and len(value) > high:
        got = _count(len(value), "character")
        return [f"argument '{where}' must be at most {_count(high, 'character')}, got {got}"]
    return []


def _check_array(value: list[Any], schema: dict[str, Any], where: str) -> list[str]:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None and len(value) < low:
        return [f"argument '{where}' must have at least {_count(low, 'item')}, got {len(value)}"]
    if high is not None and len(value) > high:
        return [f"argument '{where}' must have at most {_count(high, 'item')}, got {len(value)}"]
    items = schema.get("items")
    if not isinstance(items, dict):
        return []
    problems: list[str] = []
    for index, item in enumerate(value):
        problems.extend(_check(item, items, f"{where}[{index}]"))
    return problems


def _check_object(value: dict[str, Any], schema: dict[str, Any], prefix: str) -> list[str]:
    """Missing, unknown, then per-value problems, in the schema's property order."""
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    problems = [
        f"missing required argument '{prefix}{name}'"
        for name in schema.get("required", [])
        if name not in value
    ]
    if extra is False:
        valid = ", ".join(properties) if properties else "none; this takes no arguments"
        problems.extend(
            f"unknown argument '{prefix}{key}' (valid: {valid})"
            for key in value
            if key not in properties
        )
    for name, sub_schema in properties.items():
        if name in value:
            problems.extend(_check(value[name], sub_schema, f"{prefix}{name}"))
    if isinstance(extra, dict):
        for key, item in value.items():
            if key not in properties:
                problems.extend(_check(item, extra, f"{prefix}{key}"))
    return problems


def _has_type(value: Any, kind: str | list[str]) -> bool:
    """JSON-schema type test; ``True`` is not an integer, ``1.0`` is not an integer here."""
    if isinstance(kind, list):
        return any(_has_type(value, k) for k in kind)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "null":
        return value is None
    return True


def _same(value: Any, option: Any) -> bool:
    """Enum membership without ``True == 1`` and ``1 == 1.0`` surprises."""
    return type(value) is type(option) and value == option


def _expected(kind: str | list[str]) -> str:
    if isinstance(kind, list):
        return " or ".join(_ARTICLE.get(k, k) for k in kind)
    return _ARTICLE.get(kind, kind)


def _show(value: Any) -> str:
    """The value as JSON (what the model wrote), shortened when long."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > _SHOWN_CHARS:
        text = f"{text[: _SHOWN_CHARS - 1]}…"
    return text


def _num(value: float) -> str:
    """``1.0`` shown as ``1`` so bounds read as written."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
