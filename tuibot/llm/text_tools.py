"""Tool calls that local models write as text instead of native calls.

Many local models (Qwen, Hermes, Llama 3.x, Mistral) sometimes put the call in the
answer text. With a provider's ``text_tool_calls`` on, the loop asks this module to find
such calls once the stream has ended. Only calls naming a known tool count, so prose
that merely contains JSON is left alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.S)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(.*?)\s*(?:</function>|\Z)", re.S)
_PYTHON_TAG = re.compile(r"<\|python_tag\|>\s*(.*?)\s*(?:<\|eom_id\|>|<\|eot_id\|>|\Z)", re.S)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(.*)\Z", re.S)
_FENCED = re.compile(r"\A\s*```(?:json)?\s*(.*?)\s*```\s*\Z", re.S)


@dataclass(frozen=True)
class TextToolCall:
    """A call found in text: the tool's name and its arguments as a JSON string."""

    name: str
    arguments: str


def extract_text_tool_calls(text: str, known: Collection[str]) -> tuple[str, list[TextToolCall]]:
    """Split ``text`` into the prose left over and the tool calls it contained."""
    for pattern in (_TAGGED, _PYTHON_TAG):
        calls = [c for m in pattern.finditer(text) for c in _calls_from_json(m.group(1), known)]
        if calls:
            return pattern.sub("", text).strip(), calls
    calls = [
        call
        for m in _FUNCTION_TAG.finditer(text)
        if m.group(1) in known
        for call in [TextToolCall(m.group(1), _as_json(m.group(2)))]
    ]
    if calls:
        return _FUNCTION_TAG.sub("", text).strip(), calls
    mistral = _MISTRAL.search(text)
    if mistral and (calls := _calls_from_json(mistral.group(1), known)):
        return text[: mistral.start()].strip(), calls
    fenced = _FENCED.match(text)
    body = fenced.group(1) if fenced else text.strip()
    if body.startswith(("{", "[")) and (calls := _calls_from_json(body, known)):
        return "", calls
    return text, []


def _calls_from_json(raw: str, known: Collection[str]) -> list[TextToolCall]:
    """Calls from a JSON object or list of objects with a name and arguments."""
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return []
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if not isinstance(item, dict):
            return []
        inner = item.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else item
        name = function.get("name")
        arguments = function.get("arguments", function.get("parameters", {}))
        if not isinstance(name, str) or name not in known:
            return []
        calls.append(TextToolCall(name, _as_json(arguments)))
    return calls


def _as_json(arguments: Any) -> str:
    """Arguments as the JSON string a native call would carry."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)
