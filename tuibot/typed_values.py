"""A value written as text, typed by the JSON schema of the parameter it is for.

A person typing ``/grep pattern=404`` and a model writing ``<parameter=limit>5</parameter>``
both give text; only the tool's schema says whether ``404`` is the string "404" or the
number 404. Guessing from the text alone (decode whatever parses as JSON) turns a
string parameter's "404" into a number the validator then refuses.
"""

from __future__ import annotations

import ast
import json
from typing import Any

_DECODED = {"integer", "number", "boolean", "array", "object"}


def schema_kinds(schema: dict[str, Any]) -> list[str]:
    """The JSON types a schema allows, in order (``[]`` when it does not say)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return []


def typed_value(raw: str, schema: dict[str, Any]) -> Any:
    """``raw`` as the type ``schema`` asks for; raises ValueError saying what was expected.

    A string parameter gets ``raw`` exactly. Numbers, booleans, arrays and objects are
    decoded (JSON, or a Python literal for arrays and objects, which small models write).
    ``null`` is None where the schema allows it. A schema without a type keeps the old
    reading: JSON when it parses, the text otherwise.
    """
    kinds = schema_kinds(schema)
    if "null" in kinds and raw.strip() == "null":
        return None
    wanted = [k for k in kinds if k != "null"]
    if not wanted or not set(wanted) <= _DECODED | {"string"}:
        return _loose(raw)
    if "string" in wanted:
        return raw
    for kind in wanted:
        value = _decoded(raw.strip(), kind)
        if value is not _NOTHING:
            return value
    raise ValueError(f"expected {' or '.join(wanted)}, got {raw!r}")


_NOTHING = object()


def _decoded(text: str, kind: str) -> Any:
    """``text`` read as one JSON type, or ``_NOTHING`` when it is not one."""
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    value = _literal(text, allow_python=kind in ("array", "object"))
    if kind == "integer" and type(value) is int:
        return value
    if kind == "number" and type(value) in (int, float):
        return value
    if kind == "array" and isinstance(value, list):
        return value
    if kind == "object" and isinstance(value, dict):
        return value
    return _NOTHING


def _literal(text: str, *, allow_python: bool) -> Any:
    """JSON, then (for containers) a Python literal read with ``ast`` — never eval."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    if allow_python:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    return _NOTHING


def _loose(raw: str) -> Any:
    """JSON when it parses, the text otherwise (for parameters of unknown type)."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw
