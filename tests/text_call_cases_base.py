"""Shared by the text tool-call tables: the tools offered, and the shape of a case.

A case is (answer text, expected calls as (name, arguments), expected leftover text);
``SAME`` as the leftover means the answer must stay exactly as it is, with no call.
"""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]
Case = tuple[str, list[Call], str | None]
SAME = None

TOOLS: dict[str, dict[str, Any]] = {
    "get_weather": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer"},
        },
        "required": ["city"],
    },
    "read_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "start": {"type": ["integer", "null"]}},
    },
    "write_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    },
    "calculate_area": {
        "type": "object",
        "properties": {
            "shape": {"type": "string"},
            "dimensions": {"type": "object"},
            "precision": {"type": "integer"},
        },
    },
    "search": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer"},
            "exact": {"type": "boolean"},
            "ratio": {"type": "number"},
        },
    },
    "set_tags": {"type": "object", "properties": {"tags": {"type": "array"}}},
    "get_time": {"type": "object", "properties": {}},
    "run_command": {"type": "object", "properties": {"command": {"type": "string"}}},
}

W = "get_weather"
