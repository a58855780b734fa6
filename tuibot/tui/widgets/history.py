"""A stored chat as the conversation draws it: one entry per block, built lazily.

Turning 5,000 stored messages into entries is cheap (no widgets); only the entries near
the bottom become widgets when the chat opens, and earlier ones when the person scrolls
up. The entry kinds match the live blocks, so a reopened chat looks like it did live.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from textual.widget import Widget

from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.blocks import (
    MarkLine,
    NoticeBlock,
    ReasoningBlock,
    UserMessage,
    interrupted_mark,
)
from tuibot.tui.widgets.tool_call import ToolCallRow

ROUND_LIMIT_MARK = "⚠ stopped at the round limit for one turn"


@dataclass(frozen=True)
class Entry:
    """One block of a stored chat, not yet a widget."""

    kind: str
    """user, notice, reasoning, answer, tool or mark."""
    text: str = ""
    call_id: str = ""
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    status: str = ""
    """For tools: running (no result stored yet), ok, error, interrupted.
    For marks: the MarkLine kind."""
    output: str | None = None


def text_of(content: object) -> str:
    """The text of a message's content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _calls(message: dict[str, Any]) -> Iterable[tuple[str, str, dict[str, Any]]]:
    from tuibot.agent.calls import parse_arguments  # the agent loop: not before first paint

    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        raw = function.get("arguments") or ""
        parsed = parse_arguments(raw) if isinstance(raw, str) else None
        arguments = parsed.value if parsed and parsed.value is not None else {"_raw": raw}
        yield str(call.get("id") or ""), str(function.get("name") or "?"), arguments


def _tool_status(result: dict[str, Any] | None) -> tuple[str, str | None]:
    if result is None:
        return "running", None
    output = text_of(result.get("content"))
    if result.get("status") == "interrupted":
        return "interrupted", output
    failed = output.startswith(("Error:", "Denied by the user"))
    return ("error" if failed else "ok"), output


def _assistant(message: dict[str, Any], results: dict[str, dict[str, Any]]) -> list[Entry]:
    entries = []
    reasoning = message.get("reasoning")
    if isinstance(reasoning, str) and reasoning.strip():
        entries.append(Entry("reasoning", reasoning))
    text = text_of(message.get("content"))
    if text.strip():
        entries.append(Entry("answer", text))
    for call_id, name, arguments in _calls(message):
        status, output = _tool_status(results.get(call_id))
        entries.append(Entry("tool", "", call_id, name, arguments, status, output))
    ending = message.get("status")
    if ending == "interrupted":
        entries.append(Entry("mark", status="interrupted"))
    elif ending == "round_limit":
        entries.append(Entry("mark", ROUND_LIMIT_MARK, status="warning"))
    return entries


def entries_of(messages: Sequence[dict[str, Any]]) -> list[Entry]:
    """The blocks a stored history shows, in order (tool results join their calls)."""
    results = {
        str(m.get("tool_call_id")): m
        for m in messages
        if m.get("role") == "tool" and m.get("tool_call_id")
    }
    entries: list[Entry] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            kind = "notice" if message.get("notice") else "user"
            entries.append(Entry(kind, text_of(message.get("content"))))
        elif role == "assistant":
            entries.extend(_assistant(message, results))
    return entries


def build(entry: Entry, *, reasoning: bool, tool_output: bool) -> Widget:
    """The widget for one entry; the flags say whether folds start open."""
    if entry.kind == "user":
        return UserMessage(entry.text)
    if entry.kind == "notice":
        return NoticeBlock(entry.text)
    if entry.kind == "reasoning":
        return ReasoningBlock(entry.text, expanded=reasoning)
    if entry.kind == "answer":
        return AnswerView(entry.text)
    if entry.kind == "tool":
        return ToolCallRow(
            entry.call_id,
            entry.name,
            entry.arguments,
            status=entry.status,
            output=entry.output,
            expanded=tool_output,
        )
    if entry.status == "interrupted":
        return interrupted_mark("interrupted")
    return MarkLine(entry.text, entry.status or "info")


def stored_of_turn(messages: Sequence[dict[str, Any]], turn: str) -> tuple[str, str]:
    """Answer and reasoning text a running turn has already stored (finished rounds)."""
    text, reasoning = [], []
    for message in messages:
        if message.get("role") == "assistant" and message.get("turn") == turn:
            text.append(text_of(message.get("content")))
            if isinstance(message.get("reasoning"), str):
                reasoning.append(message["reasoning"])
    return "".join(text), "".join(reasoning)
