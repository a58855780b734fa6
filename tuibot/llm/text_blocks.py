"""Tool calls wrapped in markers that may stand anywhere in an answer.

Each dialect here opens with a marker a model only writes to call a tool (``<tool_call>``,
``[TOOL_CALLS]``, DeepSeek's ``<｜tool▁calls▁begin｜>``, ...). :func:`resolve` decides
what a block opened at some position is: not yet known (the answer is still streaming),
a call (or an empty block to drop), or plain text. A block whose body is not a call
in its dialect's exact form stays text; nothing is dug out of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tuibot.llm.text_offered import Offered, TextToolCall, json_sequence, json_value_at
from tuibot.llm.text_python import pythonic_calls

Calls = list[TextToolCall]
Parser = Callable[[str, Offered], "Calls | None"]

DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
MARKERS = (
    "<tool_call>",
    "<function=",
    '<function name="',
    "<|python_tag|>",
    "<|python_start|>",
    "[TOOL_CALLS]",
    DS_BEGIN,
)
_FIRST = {m[0] for m in MARKERS}
_LONGEST = max(map(len, MARKERS))
_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_FUNCTION_HEAD = re.compile(r'<function(?:=([A-Za-z_][\w.-]*)| name="([A-Za-z_][\w.-]*)")>')
_FUNCTION_PART = re.compile(r'<function(?:=(?:[A-Za-z_][\w.-]*)?| name="(?:[A-Za-z_][\w.-]*"?)?)\Z')
"""An opening ``<function…>`` tag the stream has not finished yet."""
_PARAMETER = re.compile(r"<parameter=([^>\s]+)>")
_GLM_PAIR = re.compile(r"<arg_key>([^<]*)</arg_key>\s*<arg_value>")
_MISTRAL = re.compile(r"([A-Za-z_][\w.-]*)(?:\[CALL_ID\][\w-]*)?(?:\[ARGS\])?")
_DS_FENCED = re.compile(
    r"\A\w+" + re.escape(DS_SEP) + r"([\w.-]+)\s*```(?:json)?\s*(.*?)\s*```\Z", re.S
)
_DS_PLAIN = re.compile(r"\A([\w.-]+)" + re.escape(DS_SEP) + r"(.*)\Z", re.S)


@dataclass(frozen=True)
class Resolved:
    """A block's fate: it ends at ``end``; ``calls`` None means it is plain text."""

    end: int
    calls: Calls | None


def next_marker(text: str, start: int) -> int:
    """Where the next marker opens at or after ``start`` (-1 if none)."""
    found = [i for m in MARKERS if (i := text.find(m, start)) >= 0]
    return min(found, default=-1)


def held_tail(text: str) -> int:
    """How many characters at the end of ``text`` may be the start of a marker."""
    for i in range(max(0, len(text) - _LONGEST + 1), len(text)):
        if text[i] in _FIRST and any(m.startswith(text[i:]) for m in MARKERS):
            return len(text) - i
    return 0


def may_end_here(chunk: str) -> bool:
    """Whether newly streamed text could close a block (every closer has ``<`` or ``>``)."""
    return "<" in chunk or ">" in chunk


def resolve(text: str, start: int, final: bool, offered: Offered) -> Resolved | None:
    """What the block opening at ``start`` is; None while it cannot be known yet."""
    if text.startswith(("<function=", '<function name="'), start):
        return _function_block(text, start, final, offered)
    if text.startswith("[TOOL_CALLS]", start):
        if text[_skip(text, start + len("[TOOL_CALLS]")) :][:1] in ("[", "{"):
            return _mistral_json(text, start, final, offered)
        return _to_the_end(text, start, "[TOOL_CALLS]", final, offered, _mistral)
    opener = next(m for m in _CLOSED if text.startswith(m, start))
    closers, parse, open_end = _CLOSED[opener]
    return _closed(text, start, opener, closers, final, offered, parse, open_end)


def _closed(
    text: str,
    start: int,
    opener: str,
    closers: tuple[str, ...],
    final: bool,
    offered: Offered,
    parse: Parser,
    open_end: Parser | None,
) -> Resolved | None:
    """A block ending at the first closer after which its body reads as calls."""
    body = start + len(opener)
    position, first_close = body, -1
    while (found := _find_any(text, closers, position)) is not None:
        index, closer = found
        first_close = first_close if first_close >= 0 else index + len(closer)
        calls = parse(text[body:index], offered)
        if calls is not None:
            return Resolved(index + len(closer), calls)
        position = index + 1
    if not final:
        return None
    if open_end and (calls := open_end(text[body:], offered)):
        return Resolved(len(text), calls)  # the closing marker never came
    return Resolved(first_close if first_close >= 0 else body, None)


def _to_the_end(
    text: str, start: int, opener: str, final: bool, offered: Offered, parse: Parser
) -> Resolved | None:
    """A block that runs to the end of the answer (known only once it has ended)."""
    if not final:
        return None
    calls = parse(text[start + len(opener) :], offered)
    return Resolved(len(text), calls) if calls else Resolved(start + len(opener), None)


def _function_block(text: str, start: int, final: bool, offered: Offered) -> Resolved | None:
    """``<function=NAME>`` with JSON (Functionary) or ``<parameter=…>`` (Qwen3-Coder) inside;
    ``<function name="NAME">`` with JSON (a variant llama.cpp's Hermes parser reads)."""
    head = _FUNCTION_HEAD.match(text, start)
    if head is None:
        if not final and _FUNCTION_PART.match(text, start):
            return None
        return Resolved(start + len("<function"), None)
    name = head.group(1) or head.group(2)

    def parse(body: str, offered: Offered) -> Calls | None:
        call = _function_body(name, body, offered)
        return [call] if call else None

    return _closed(text, start, head.group(0), ("</function>",), final, offered, parse, None)


def _function_body(name: str, body: str, offered: Offered) -> TextToolCall | None:
    """The call a ``<function=NAME>`` body makes, or None."""
    stripped = body.strip()
    if not stripped:
        return offered.call(name, {})
    if stripped.startswith("{"):
        values = json_sequence(stripped)
        return offered.call(name, values[0]) if values and len(values) == 1 else None
    arguments = _xml_parameters(name, body, offered)
    return offered.call(name, arguments) if arguments is not None else None


def _xml_parameters(name: str, body: str, offered: Offered) -> dict[str, Any] | None:
    """``<parameter=K>V</parameter>`` pairs; a value ends at a closer followed by the next pair."""
    arguments: dict[str, Any] = {}
    position = 0
    while (position := _skip(body, position)) < len(body):
        head = _PARAMETER.match(body, position)
        if head is None:
            return None
        end = _value_end(body, head.end(), "</parameter>", "<parameter=")
        if end is None:
            return None
        raw = body[head.end() : end]
        raw = raw[1:] if raw.startswith("\n") else raw
        raw = raw[:-1] if raw.endswith("\n") else raw
        arguments[head.group(1)] = offered.typed(name, head.group(1), raw)
        position = end + len("</parameter>")
    return arguments


def _value_end(body: str, start: int, closer: str, next_open: str) -> int | None:
    """The closer after which only whitespace and then the next pair (or the end) follow."""
    index = body.find(closer, start)
    while index >= 0:
        after = _skip(body, index + len(closer))
        if after == len(body) or body.startswith(next_open, after):
            return index
        index = body.find(closer, index + 1)
    return None


def _tool_call_body(body: str, offered: Offered) -> Calls | None:
    """Inside ``<tool_call>``: JSON (Hermes), ``<function=…>`` (Qwen3-Coder) or GLM's form."""
    stripped = body.strip()
    if not stripped:
        return []  # an empty block is dropped from the answer
    if stripped[0] in "{[":
        values = json_sequence(stripped)
        return offered.from_values(values) if values else None
    head = _FUNCTION_HEAD.match(stripped)
    if head is not None:
        if not stripped.endswith("</function>"):
            return None
        name = head.group(1) or head.group(2)
        call = _function_body(name, stripped[head.end() : -len("</function>")], offered)
        return [call] if call else None
    return _glm(stripped, offered)


def _tool_call_unclosed(body: str, offered: Offered) -> Calls | None:
    """A ``<tool_call>`` the answer ended inside: JSON or Qwen3-Coder only, never GLM."""
    stripped = body.strip()
    if not stripped.startswith(("{", "[", "<function=")):
        return None
    return _tool_call_body(stripped, offered)


def _glm(body: str, offered: Offered) -> Calls | None:
    """``NAME<arg_key>k</arg_key><arg_value>v</arg_value>…`` (GLM 4.5 and later)."""
    name = _NAME.match(body)
    if name is None:
        return None
    arguments: dict[str, Any] = {}
    position = _skip(body, name.end())
    while position < len(body):
        pair = _GLM_PAIR.match(body, position)
        if pair is None:
            return None
        end = _value_end(body, pair.end(), "</arg_value>", "<arg_key>")
        if end is None:
            return None
        key = pair.group(1).strip()
        arguments[key] = offered.typed(name.group(0), key, body[pair.end() : end])
        position = _skip(body, end + len("</arg_value>"))
    call = offered.call(name.group(0), arguments)
    return [call] if call else None


def _json_calls(body: str, offered: Offered) -> Calls | None:
    """JSON call objects separated by ``;`` (Llama 3.1's ``<|python_tag|>``)."""
    values = json_sequence(body)
    return offered.from_values(values) if values else None


def _mistral(body: str, offered: Offered) -> Calls | None:
    """``[{…}]`` (Mistral v3), or ``name{…}`` / ``name[ARGS]{…}`` split by ``[TOOL_CALLS]``."""
    stripped = body.strip()
    if stripped.startswith(("[", "{")):
        return _json_calls(stripped, offered)
    calls: Calls = []
    for piece in stripped.split("[TOOL_CALLS]"):
        piece = piece.strip()
        head = _MISTRAL.match(piece)
        value = json_value_at(piece, head.end()) if head else None
        if head is None or value is None or piece[value[1] :].strip():
            return None
        call = offered.call(head.group(1), value[0])
        if call is None:
            return None
        calls.append(call)
    return calls


def _mistral_json(text: str, start: int, final: bool, offered: Offered) -> Resolved | None:
    """``[TOOL_CALLS]`` then a JSON list (or object) of calls: the block ends with the JSON,
    so text after it (Mistral v3 models sometimes add a line) stays prose."""
    body = _skip(text, start + len("[TOOL_CALLS]"))
    value = json_value_at(text, body)
    if value is None:
        if not final:
            return None
        return _to_the_end(text, start, "[TOOL_CALLS]", final, offered, _mistral)
    calls = offered.from_values([value[0]])
    if calls is None:
        return Resolved(start + len("[TOOL_CALLS]"), None)
    return Resolved(value[1], calls)


def _deepseek(body: str, offered: Offered) -> Calls | None:
    """``<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>`` items, in the R1/V3 and V3.1 forms."""
    calls: Calls = []
    rest = body.strip()
    while rest:
        if not rest.startswith(DS_CALL) or DS_CALL_END not in rest:
            return None
        item, _, rest = rest[len(DS_CALL) :].partition(DS_CALL_END)
        rest = rest.strip()
        match = _DS_FENCED.match(item.strip()) or _DS_PLAIN.match(item.strip())
        values = json_sequence(match.group(2)) if match else None
        if match is None or values is None or len(values) != 1:
            return None
        call = offered.call(match.group(1), values[0])
        if call is None:
            return None
        calls.append(call)
    return calls or None


def _pythonic(body: str, offered: Offered) -> Calls | None:
    """Llama 4's ``<|python_start|>[f(x=1)]<|python_end|>``."""
    return pythonic_calls(body.strip(), offered)


def _find_any(text: str, needles: tuple[str, ...], start: int) -> tuple[int, str] | None:
    """The earliest of ``needles`` at or after ``start``."""
    hits = [(i, n) for n in needles if (i := text.find(n, start)) >= 0]
    return min(hits) if hits else None


def _skip(text: str, position: int) -> int:
    """The first non-whitespace position at or after ``position``."""
    while position < len(text) and text[position].isspace():
        position += 1
    return position


_CLOSED: dict[str, tuple[tuple[str, ...], Parser, Parser | None]] = {
    "<tool_call>": (("</tool_call>",), _tool_call_body, _tool_call_unclosed),
    "<|python_tag|>": (("<|eom_id|>", "<|eot_id|>"), _json_calls, _json_calls),
    "<|python_start|>": (("<|python_end|>",), _pythonic, _pythonic),
    DS_BEGIN: ((DS_END,), _deepseek, _deepseek),
}
"""Marker -> (closing markers, body parser, parser for a body the answer ended inside)."""
