"""How ``tuibot ask`` prints a chat's events: text for a person, or JSON Lines.

Why a module of its own: this is the per-token path of ``ask`` (SDK chunk, engine event,
stdout), measured against a bare SDK script that writes each token (see
tests/bench/bench_ask.py). Answer text is not written and flushed once per token: the
pieces that arrive within one event-loop tick are joined and written once, at the end of
that tick (:class:`TickOut`), so a fast stream costs one write per tick, not per token,
and the first token still appears as soon as it arrives. Anything else that is printed
(a status line on stderr, the turn's end) first writes the text still pending, so the
order a person sees is the order things happened.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, TextIO

from tuibot.agent.calls import summarize_arguments
from tuibot.commands.output import silence
from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    CommandOutput,
    DelegationChanged,
    Event,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)
from tuibot.visible import visible

DIM, RESET = "\x1b[2m", "\x1b[0m"
RESULT_WIDTH = 120
"""Characters of a tool result's first line shown on its status line."""
REASON_WIDTH = 300
"""Longer for a failed call: a denial names the flag or setting that would allow it."""


class TickOut:
    """Text for one stream, written and flushed once per event-loop tick.

    Without a running loop (a synchronous caller) each piece is written at once. A closed
    pipe (``| head``) ends the writing quietly: :attr:`broken` says so.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.broken = False
        self._pending: list[str] = []

    def add(self, text: str) -> None:
        """Queue ``text``; the first piece of a tick schedules the write for its end."""
        if self.broken:
            return
        self._pending.append(text)
        if len(self._pending) == 1:
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:
                self.flush()

    def flush(self) -> None:
        """Write what is pending now (before other output, at the end of the run)."""
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        if self.broken:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except BrokenPipeError:
            self.broken = silence(self.stream)


class Printer:
    """Writes one chat's events for a person: answer to stdout, status to stderr."""

    def __init__(
        self, chat: str, out: TextIO, err: TextIO, in_tree: Callable[[str], bool] | None = None
    ) -> None:
        self.chat, self.out, self.err = chat, out, err
        self.in_tree = in_tree or (lambda chat: False)
        self.dim = err.isatty()
        self._ended_line = True
        self._text = TickOut(out)

    def __call__(self, event: Event) -> None:
        if isinstance(event, TextDelta):  # the hot path: two checks, one append
            if event.chat in (self.chat, ""):
                self._text.add(event.delta)
                self._ended_line = event.delta.endswith("\n")
            return
        self._text.flush()  # what streamed so far comes before anything else
        if isinstance(event, DelegationChanged) and self.in_tree(event.chat):
            self._delegation(event.record)
            return
        if event.chat not in (self.chat, ""):
            return
        try:
            self._show(event)
        except BrokenPipeError:
            self._text.broken = silence(self.out)  # `| head` closed stdout: finish quietly

    def flush(self) -> None:
        """Write the answer text still pending (the run is over)."""
        self._text.flush()

    def _show(self, event: Event) -> None:
        if isinstance(event, ReasoningDelta) and self.dim:
            self.err.write(f"{DIM}{event.delta}{RESET}")
            self.err.flush()
        elif isinstance(event, ToolStarted):
            self._status(f"→ {event.name}({summarize_arguments(event.arguments)})")
        elif isinstance(event, ToolFinished):
            mark = "✓" if event.ok else "✗"
            width = RESULT_WIDTH if event.ok else REASON_WIDTH  # why it failed, whole
            first = event.output.strip().splitlines()[0][:width] if event.output.strip() else ""
            first = visible(first, keep_newlines=False)  # a command's output may hold escapes
            detail = f"{len(event.output)} chars" if event.ok else first
            self._status(f"  {mark} {event.name} {event.duration_s * 1000:.0f} ms  {detail}")
        elif isinstance(event, Notice) and event.level != "info":
            self._status(f"tuibot: {event.level}: {visible(event.message)}")
        elif isinstance(event, CommandOutput):
            stream = self.out if event.ok else self.err
            stream.write(event.text.rstrip("\n") + "\n")
            stream.flush()
        elif isinstance(event, TurnFinished) and not self._ended_line and not self._text.broken:
            self.out.write("\n")
            self.out.flush()

    def _delegation(self, record: dict[str, Any]) -> None:
        """One status line per change of delegated work: id, bot, status, why."""
        pause = record.get("pause") or {}
        why = f" ({pause.get('limit')} limit)" if record["status"] == "paused" else ""
        self._status(f"  ↳ {record['id']} {record['bot']}: {record['status']}{why}")

    def _status(self, line: str) -> None:
        """A status line on stderr, starting on a fresh line."""
        self.err.write(line + "\n")
        self.err.flush()


class JsonPrinter:
    """Writes one chat's events as JSON Lines, one object per event, each with a type."""

    def __init__(
        self, chat: str, out: TextIO, in_tree: Callable[[str], bool] | None = None
    ) -> None:
        self.chat, self.out = chat, out
        self.in_tree = in_tree or (lambda chat: False)
        self._lines = TickOut(out)

    def __call__(self, event: Event) -> None:
        if self._lines.broken:
            return
        mine = event.chat in (self.chat, "")
        if not mine and not (isinstance(event, DelegationChanged) and self.in_tree(event.chat)):
            return
        record = json_record(event)
        if record is not None:
            self._lines.add(json.dumps(record, ensure_ascii=False) + "\n")

    def flush(self) -> None:
        """Write the lines still pending (the run is over)."""
        self._lines.flush()


def json_record(event: Event) -> dict[str, Any] | None:
    """The ``--json`` form of an event (None for events ``ask`` does not report)."""
    if isinstance(event, TextDelta):
        return {"type": "text", "delta": event.delta}
    if isinstance(event, ReasoningDelta):
        return {"type": "reasoning", "delta": event.delta}
    if isinstance(event, ToolStarted):
        return {
            "type": "tool_call",
            "id": event.call_id,
            "name": event.name,
            "arguments": event.arguments,
        }
    if isinstance(event, ToolFinished):
        return {
            "type": "tool_result",
            "id": event.call_id,
            "name": event.name,
            "ok": event.ok,
            "output": event.output,
            "duration_s": round(event.duration_s, 4),
        }
    if isinstance(event, Notice):
        return {"type": "notice", "level": event.level, "message": event.message}
    if isinstance(event, ApprovalRequested):
        return {
            "type": "approval",
            "id": event.request_id,
            "kind": event.kind,
            "summary": event.summary,
            "details": event.details,
        }
    if isinstance(event, ApprovalDecided):
        return {
            "type": "approval_decided",
            "id": event.request_id,
            "allowed": event.allowed,
            "reason": event.reason,
        }
    if isinstance(event, DelegationChanged):
        return {"type": "delegation", "record": event.record}
    if isinstance(event, CommandOutput):
        return {"type": "command", "command": event.command, "ok": event.ok, "text": event.text}
    if isinstance(event, TurnFinished):
        if event.status == "completed":
            return {
                "type": "done",
                "chat": event.chat,
                "text": event.text,
                "usage": event.usage.as_dict(),
                "context": event.context,
            }
        return {
            "type": "error",
            "chat": event.chat,
            "status": event.status,
            "message": event.error or event.status,
            "kind": event.error_kind,
            "text": event.text,
            "usage": event.usage.as_dict(),
        }
    return None
