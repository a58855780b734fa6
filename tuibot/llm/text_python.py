"""Pythonic tool calls, ``[get_weather(city="Paris"), f(x=1)]`` (Llama 4, ToolACE).

The text is parsed with Python's ``ast`` and every argument must be a plain literal
(``ast.literal_eval``), so nothing the model wrote is ever evaluated: a call inside an
argument, a name, or an expression makes the whole list plain text.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from tuibot.llm.text_offered import Offered, TextToolCall

OPENING = re.compile(r"\[\s*[A-Za-z_]\w*\s*\(")
"""How a pythonic call list must begin."""


def pythonic_calls(text: str, offered: Offered) -> list[TextToolCall] | None:
    """The calls a ``[name(key=literal, ...), ...]`` list makes, or None."""
    if not OPENING.match(text):
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(tree.body, ast.List) or not tree.body.elts:
        return None
    calls = [_call(node, offered) for node in tree.body.elts]
    if any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _call(node: ast.expr, offered: Offered) -> TextToolCall | None:
    """One ``name(key=literal, ...)``; positional arguments are refused (no names)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
        return None
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    if not _json_safe(arguments):
        return None
    return offered.call(node.func.id, arguments)


def _json_safe(value: Any) -> bool:
    """Whether a literal maps onto JSON (no sets, bytes, tuples-as-keys or complex)."""
    if value is None or isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list | tuple):
        return all(_json_safe(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_safe(v) for k, v in value.items())
    return False
