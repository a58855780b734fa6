"""What every text tool-call dialect shares: the tools offered, and reading one call.

Only a tool the turn offers can be called from text, so prose that happens to look
like a call to something else never runs anything. The tools' schemas also type the
values that XML-style dialects write as bare text.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from tuibot.typed_values import typed_value

_CALL_KEYS = {"name", "arguments", "parameters", "id", "type", "function"}
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class TextToolCall:
    """A call found in text: the tool's name and its arguments as a JSON string."""

    name: str
    arguments: str


class Offered:
    """The tools a turn offers, by name, with each one's parameter schema."""

    def __init__(self, known: Collection[str]) -> None:
        schemas = known if isinstance(known, Mapping) else {key: {} for key in known}
        self.schemas: dict[str, dict[str, Any]] = {k: v or {} for k, v in schemas.items()}

    def __contains__(self, name: object) -> bool:
        return name in self.schemas

    def call(self, name: Any, arguments: Any) -> TextToolCall | None:
        """A call to an offered tool; None for another name or arguments of no known shape."""
        if not isinstance(name, str) or name not in self.schemas:
            return None
        if isinstance(arguments, str):
            return TextToolCall(name, arguments)
        if isinstance(arguments, dict):
            return TextToolCall(name, json.dumps(arguments, ensure_ascii=False))
        return None

    def from_object(self, item: Any) -> TextToolCall | None:
        """``{"name", "arguments" | "parameters"}``, or the OpenAI ``{"function": {...}}``."""
        if not isinstance(item, dict) or not set(item) <= _CALL_KEYS:
            return None
        inner = item.get("function")
        function = inner if isinstance(inner, dict) else item
        if function is not item and not set(function) <= _CALL_KEYS:
            return None
        arguments = function.get("arguments", function.get("parameters", {}))
        return self.call(function.get("name"), arguments)

    def from_values(self, values: list[Any]) -> list[TextToolCall] | None:
        """Calls from JSON values (objects, or one list of them); None unless all are calls."""
        items = values[0] if len(values) == 1 and isinstance(values[0], list) else values
        calls = [self.from_object(item) for item in items]
        if not calls or any(call is None for call in calls):
            return None
        return [call for call in calls if call is not None]

    def typed(self, tool: str, key: str, raw: str) -> Any:
        """A value written as text, typed by the parameter's schema; kept as text if it fails."""
        properties = self.schemas.get(tool, {}).get("properties", {})
        schema = properties.get(key) if isinstance(properties, dict) else None
        if not isinstance(schema, dict):
            return raw
        try:
            return typed_value(raw, schema)
        except ValueError:
            return raw  # the validator tells the model what it got wrong


def json_sequence(text: str) -> list[Any] | None:
    """JSON values separated by ``;`` or whitespace that make up all of ``text``, or None."""
    values: list[Any] = []
    position, end = 0, len(text)
    while True:
        position = _skip_space(text, position)
        if position == end:
            return values or None
        if values and text[position] == ";":
            position = _skip_space(text, position + 1)
        try:
            value, position = _DECODER.raw_decode(text, position)
        except ValueError:
            return None
        values.append(value)


def json_value_at(text: str, position: int) -> tuple[Any, int] | None:
    """The JSON value starting at ``position`` and where it ends, or None."""
    try:
        return _DECODER.raw_decode(text, position)
    except ValueError:
        return None


def _skip_space(text: str, position: int) -> int:
    """The first position at or after ``position`` that is not whitespace."""
    while position < len(text) and text[position].isspace():
        position += 1
    return position
