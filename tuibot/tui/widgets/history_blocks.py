"""A stored chat as the conversation draws it: one entry per block, drawn lazily.

Turning 5,000 stored messages into entries is cheap (no widgets); an entry is drawn
only when the person's view comes near it (see :mod:`tuibot.tui.widgets.history_lines`),
by the same widget a live block uses, so a reopened chat looks like it did live.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from textual.widget import Widget

from tuibot.attachments.chips import chip_labels
from tuibot.store.chat_message import ChatMessage
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.blocks import (
    MarkLine,
    NoticeBlock,
    ReasoningBlock,
    UserMessage,
    interrupted_mark,
)
from tuibot.tui.widgets.chips import AttachmentChips
from tuibot.tui.widgets.tool_call import RESULT_CHARS, ToolCallRow

ROUND_LIMIT_MARK = "⚠ stopped at the round limit for one turn"


@dataclass(frozen=True)
class Entry:
    """One block of a stored chat, not yet a widget."""

    kind: str
    """user, notice, attachments (chips under a user's message), reasoning, answer, tool
    or mark."""
    text: str = ""
    call_id: str = ""
    name: str = ""
    raw_arguments: object = ""
    """For tools: the arguments as stored (a JSON string), read when the call is drawn."""
    status: str = ""
    """For tools: running (no result stored yet), ok, error, interrupted.
    For marks: the MarkLine kind."""
    output: str | None = None
    duration: float | None = None
    """For tools finished while the chat was open: seconds the call took."""

    @property
    def arguments(self) -> dict[str, Any]:
        """For tools: the arguments, parsed (and repaired) as the agent loop reads them."""
        from tuibot.agent.calls import parse_arguments  # the agent loop: not before first paint

        raw = self.raw_arguments
        parsed = parse_arguments(raw) if isinstance(raw, str) else None
        return parsed.value if parsed and parsed.value is not None else {"_raw": raw}

    @property
    def foldable(self) -> bool:
        """Whether the block opens and closes (reasoning, tool calls)."""
        return self.kind in FOLDABLE


FOLDABLE = ("reasoning", "tool")
"""Entry kinds shown as a line that opens to the whole block."""


def text_of(content: object) -> str:
    """The text of a message's content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _calls(message: ChatMessage) -> Iterable[tuple[str, str, object]]:
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        raw = function.get("arguments") or ""
        yield str(call.get("id") or ""), str(function.get("name") or "?"), raw


def _tool_status(result: ChatMessage | None) -> tuple[str, str | None]:
    if result is None:
        return "running", None
    output = text_of(result.get("content"))
    if result.get("status") == "interrupted":
        return "interrupted", output
    failed = output.startswith(("Error:", "Denied by the user"))
    return ("error" if failed else "ok"), output


def _assistant(message: ChatMessage, results: dict[str, ChatMessage]) -> list[Entry]:
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


def entries_of(messages: Sequence[ChatMessage]) -> list[Entry]:
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
            if labels := chip_labels(message.get("attachments") or ()):
                entries.append(Entry("attachments", "\n".join(labels)))  # one line each
        elif role == "assistant":
            entries.extend(_assistant(message, results))
    return entries


def build(entry: Entry, *, reasoning: bool, tool_output: bool) -> Widget:
    """The widget for one entry; the flags say whether folds start open."""
    if entry.kind == "user":
        return UserMessage(entry.text)
    if entry.kind == "notice":
        return NoticeBlock(entry.text)
    if entry.kind == "attachments":
        return AttachmentChips(entry.text.split("\n"))
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
            duration=entry.duration,
            expanded=tool_output,
        )
    if entry.status == "interrupted":
        return interrupted_mark("interrupted")
    return MarkLine(entry.text, entry.status or "info")


def estimate_rows(entry: Entry, width: int, *, expanded: bool) -> int:
    """A cheap guess at the rows ``entry`` takes at ``width``, its top margin included.

    Blocks not drawn yet count this much; the guess only has to be near, since the
    view keeps what the person reads in place when a drawn block turns out taller.
    The weights were fitted to drawn answers and messages: a person's text is prose
    (a single line break does not break the line), an answer's line breaks are mostly
    in code, lists and tables, where they do.
    """
    text = entry.text
    inner = max(10, width - 4)
    if entry.kind == "answer":
        rows = 2.7 + 0.63 * len(text) / inner + 0.7 * text.count("\n")
        rows += 0.8 * text.count("\n\n") + 0.35 * text.count("```") + 0.95 * text.count("\n|")
        return round(rows)
    if entry.kind in ("user", "notice"):
        frame = 2 if entry.kind == "notice" else 0
        return round(1.5 + frame + len(text) / inner + 1.5 * text.count("\n\n"))
    if entry.kind == "attachments":
        return 1
    if not expanded or entry.kind == "mark":
        return 2
    if entry.kind == "reasoning":
        return 3 + len(text) // inner + text.count("\n")
    arguments = entry.arguments
    shown = str(arguments) + (entry.output or "")[:RESULT_CHARS]
    return 6 + len(arguments) + len(shown) // inner + shown.count("\n")


def answer_pieces(text: str, width: int, rows: int) -> list[str]:
    """``text`` cut between top-level Markdown blocks into pieces of about ``rows`` rows.

    The cuts come from the Markdown parser itself (where its top-level blocks start),
    so a piece renders as the same blocks it has in the whole answer. An answer that
    defines link references is not cut: a definition changes links in blocks before it.
    """
    from markdown_it import MarkdownIt

    env: dict[str, object] = {}
    tokens = MarkdownIt("gfm-like").parse(text, env)
    if env.get("references"):
        return [text]
    starts: list[int] = sorted(
        {t.map[0] for t in tokens if t.level == 0 and t.map and t.nesting >= 0}
    )
    offsets = [0]
    for text_line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(text_line))
    pieces: list[str] = []
    begin = 0
    for start in starts[1:]:
        cut = offsets[min(start, len(offsets) - 1)]
        if estimate_rows(Entry("answer", text[begin:cut]), width, expanded=False) >= rows:
            pieces.append(text[begin:cut])
            begin = cut
    rest = text[begin:]
    if pieces and estimate_rows(Entry("answer", rest), width, expanded=False) < rows // 2:
        pieces[-1] += rest  # too little for a piece of its own
    else:
        pieces.append(rest)
    return pieces


def still_running(messages: list[ChatMessage], repaired: int) -> list[ChatMessage]:
    """``messages`` of a chat whose turn runs now, its unanswered calls shown as running.

    Loading marks tool calls without a result as interrupted (in memory, for a read-only
    load), which is right after a crash but not while the turn is still running: those
    marks sit at the end, and are dropped here so the calls show as running until their
    results arrive.
    """
    end = len(messages)
    while repaired and end and messages[end - 1].get("status") == "interrupted":
        if messages[end - 1].get("role") != "tool":
            break
        end -= 1
        repaired -= 1
    return messages[:end]


def tail_start(messages: Sequence[ChatMessage], tail: Sequence[ChatMessage]) -> int | None:
    """Where ``tail`` (a chat's last messages, read first) starts in the whole history
    ``messages`` read after it: at its end, or before messages added since; None if it
    is not there (the file was rewritten meanwhile) or empty."""
    count = len(tail)
    for start in range(len(messages) - count, -1, -1) if count else ():
        if messages[start] == tail[0] and messages[start : start + count] == tail:
            return start
    return None


def stored_of_turn(messages: Sequence[ChatMessage], turn: str) -> tuple[str, str]:
    """Answer and reasoning text a running turn has already stored (finished rounds)."""
    text, reasoning = [], []
    for message in messages:
        if message.get("role") == "assistant" and message.get("turn") == turn:
            text.append(text_of(message.get("content")))
            if isinstance(message.get("reasoning"), str):
                reasoning.append(message["reasoning"])
    return "".join(text), "".join(reasoning)


def entry_of_message(messages: Sequence[ChatMessage], index: int) -> int | None:
    """The block that shows stored message ``index`` (a search result's message).

    A tool result is shown with its call, so it leads to the call's block; a message that
    draws nothing leads to the next block. None when the chat draws no blocks at all.
    """
    total = len(entries_of(messages))
    if not total or not 0 <= index < len(messages):
        return None
    before = entries_of(messages[:index])
    call_id = messages[index].get("tool_call_id") if messages[index].get("role") == "tool" else None
    if call_id:
        calls = [n for n, entry in enumerate(before) if entry.call_id == call_id]
        if calls:
            return calls[-1]
    return min(len(before), total - 1)
