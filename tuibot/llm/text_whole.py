"""Tool calls that count only as the whole answer: bare JSON, pythonic lists, fences, ...

These forms have no marker a model writes only to call a tool — JSON and Python lists
also appear in ordinary answers — so they are calls only when they are all there is:
Llama 3.x JSON objects (``;``-separated for parallel calls), a pythonic list,
Firefunction's ``functools[…]``, Functionary's ``>>>name`` segments, the JSON calls
Hermes-style models wrap in ``<response>``, ``<tools>``, ``<function_call>`` or ``<json>``
instead of ``<tool_call>`` (llama.cpp's Hermes 2 Pro parser accepts them too), or a fence
tagged json/xml around any of them. A sentence with JSON in it is never a call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tuibot.llm.text_offered import Offered, TextToolCall, json_sequence, json_value_at
from tuibot.llm.text_python import OPENING, pythonic_calls

_FENCE = re.compile(r"\A\s*```([\w-]*)[ \t]*\n(.*?)\n?[ \t]*```\s*\Z", re.S)
_FENCE_TAGS = {"", "json", "xml", "tool_call"}
_FENCE_HEAD = re.compile(r"\A\s*```([\w-]*)")
_FUNCTOOLS = re.compile(r"\A\s*functools(\[.*\])\s*\Z", re.S)
_SEGMENT = re.compile(r">>>([A-Za-z_][\w.-]*)\n")
_WRAPPERS = ("response", "tools", "tool", "function_call", "json", "JSON")
_WRAPPED = re.compile(r"\A\s*<(" + "|".join(_WRAPPERS) + r")>(.*)</\1>\s*\Z", re.S)
_WRAP_HEAD = re.compile(r"<(" + "|".join(_WRAPPERS) + r")>")
_PREFIXES = ("{", "[", "```", "functools", ">>>", *(f"<{w}>" for w in _WRAPPERS))

Inner = Callable[[str], "tuple[str, list[TextToolCall]]"]


@dataclass(frozen=True)
class Whole:
    """A whole answer read as calls, with the prose some forms carry (Functionary's)."""

    calls: list[TextToolCall]
    prose: str = ""


def whole_answer(text: str, offered: Offered, inner: Inner) -> Whole | None:
    """The calls ``text`` makes as a whole, or None when it is not all calls.

    ``inner`` reads a fence's contents (any dialect), so a fenced block is a call only
    when everything inside it is one.
    """
    stripped = text.strip()
    if not stripped:
        return None
    if stripped[0] == "{" or stripped.startswith("[{"):
        values = json_sequence(stripped)
        calls = offered.from_values(values) if values else None
        return Whole(calls) if calls else None
    if stripped.startswith("["):
        calls = pythonic_calls(stripped, offered)
        return Whole(calls) if calls else None
    if fence := _FENCE.match(text):
        prose, calls = inner(fence.group(2)) if fence.group(1) in _FENCE_TAGS else ("x", [])
        return Whole(calls) if calls and not prose.strip() else None
    if functools := _FUNCTOOLS.match(text):
        values = json_sequence(functools.group(1))
        calls = offered.from_values(values) if values else None
        return Whole(calls) if calls else None
    if stripped.startswith(">>>"):
        return _functionary(stripped, offered)
    if wrapped := _WRAPPED.match(text):
        values = json_sequence(wrapped.group(2))
        calls = offered.from_values(values) if values else None
        return Whole(calls) if calls else None
    return None


def _functionary(text: str, offered: Offered) -> Whole | None:
    """Functionary v3.2: ``>>>name\\n{json}`` segments, ``>>>all\\n`` ones holding prose."""
    calls: list[TextToolCall] = []
    prose: list[str] = []
    position = 0
    while position < len(text):
        head = _SEGMENT.match(text, position)
        if head is None:
            return None
        if head.group(1) == "all":
            end = text.find(">>>", head.end())
            end = len(text) if end < 0 else end
            prose.append(text[head.end() : end])
            position = end
            continue
        value = json_value_at(text, head.end())
        call = offered.call(head.group(1), value[0]) if value else None
        if value is None or call is None:
            return None
        calls.append(call)
        position = value[1]
        while position < len(text) and text[position].isspace():
            position += 1
    return Whole(calls, "".join(prose).strip())


def may_be_whole(text: str, offered: Offered) -> bool:
    """Whether a still-streaming answer could yet turn out to be a whole-answer call.

    False only when no continuation can make it one, so text held back while this is
    True is shown (or turned into calls) once it is False or the answer ends.
    """
    stripped = text.lstrip()
    if not stripped or any(p.startswith(stripped) for p in _PREFIXES):
        return True
    if stripped[0] == "{" or stripped.startswith("[{"):
        return _json_may_be_calls(stripped, offered)
    if stripped[0] == "[":
        return _python_may_be_calls(stripped)
    if stripped.startswith("```"):
        return _fence_may_be_call(text)
    if wrap := _WRAP_HEAD.match(stripped):
        return _wrapped_may_be_call(stripped[wrap.end() :], wrap.group(1), offered)
    return stripped.startswith(("functools", ">>>"))


def _wrapped_may_be_call(body: str, tag: str, offered: Offered) -> bool:
    """After ``<response>`` and the like: JSON calls, then the closing tag, then nothing."""
    body = body.lstrip()
    if not body:
        return True
    if body[0] != "{":
        return False
    value = json_value_at(body, 0)
    if value is None:
        return True  # still streaming (or broken: then it is shown when the answer ends)
    if offered.from_values([value[0]]) is None:
        return False
    rest, closer = body[value[1] :].strip(), f"</{tag}>"
    return closer.startswith(rest) or rest == closer or rest.startswith(("{", ";"))


def _json_may_be_calls(text: str, offered: Offered) -> bool:
    """False once a complete JSON value is not a call, or is followed by other text."""
    position, first = 0, True
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return True
        if not first and text[position] == ";":
            position += 1
            continue
        if not first and text[position] != "{":
            return False
        value = json_value_at(text, position)
        if value is None:
            return True  # incomplete (or broken: then it is shown when the answer ends)
        if offered.from_values([value[0]]) is None:
            return False
        position, first = value[1], False


def _python_may_be_calls(text: str) -> bool:
    """A pythonic list must open as ``[name(``; anything else (a Markdown link) is text."""
    if OPENING.match(text):
        return True
    return re.fullmatch(r"\[\s*[A-Za-z_]?\w*\s*", text) is not None


def _fence_may_be_call(text: str) -> bool:
    """A fence counts only with a json/xml tag; such a fence is held until the answer ends."""
    head = _FENCE_HEAD.match(text)
    if head is None:
        return True
    return "\n" not in text[head.end() :] or head.group(1) in _FENCE_TAGS
