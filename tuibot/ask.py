"""``tuibot ask``: one turn from a shell, for scripts and pipes.

The answer streams to stdout; status (tool calls, notices) goes to stderr, so
``tuibot ask … > answer.md`` captures only the answer. ``--json`` writes one JSON
object per line instead. Exit codes: 0 answered, 1 the turn failed, 2 usage or config
error, 3 the model server is unreachable or rejected the request, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from typing import Any, TextIO

from tuibot.agent.calls import summarize_arguments
from tuibot.approvals import Decision
from tuibot.engine import Engine
from tuibot.events import (
    ApprovalRequested,
    CommandOutput,
    Event,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)
from tuibot.slash import is_command
from tuibot.toolkit.threads import run_in_daemon_thread

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_MODEL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
DIM, RESET = "\x1b[2m", "\x1b[0m"


@dataclass(frozen=True)
class AskOptions:
    """What the command line asked for."""

    prompt: str
    chat: str | None = None
    bot: str | None = None
    """Pin the new chat to this bot."""
    json: bool = False
    yes: bool = False


def build_prompt(argument: str | None, stdin: TextIO) -> str:
    """The prompt from the argument and piped stdin (appended to it as context)."""
    # Bytes, decoded leniently: a stray Latin-1 byte must not crash ask or poison the chat.
    raw = getattr(stdin, "buffer", None)
    if stdin.isatty():
        piped = ""
    elif raw is not None:
        piped = raw.read().decode("utf-8", errors="replace")
    else:
        piped = stdin.read()
    parts = [part for part in (argument or "", piped.strip("\n")) if part.strip()]
    return "\n\n".join(parts)


def exit_code(outcome: TurnFinished | CommandOutput) -> int:
    """The process exit code for how the turn ended."""
    if isinstance(outcome, CommandOutput):
        return EXIT_OK if outcome.ok else EXIT_FAILED
    if outcome.status == "completed":
        return EXIT_OK
    if outcome.status == "cancelled":
        return EXIT_INTERRUPTED
    if outcome.error_kind in ("unreachable", "rejected"):
        return EXIT_MODEL
    if outcome.error_kind == "config":
        return EXIT_USAGE
    return EXIT_FAILED


class Printer:
    """Writes one chat's events for a person: answer to stdout, status to stderr."""

    def __init__(self, chat: str, out: TextIO, err: TextIO) -> None:
        self.chat, self.out, self.err = chat, out, err
        self.dim = err.isatty()
        self._ended_line = True
        self._broken = False

    def __call__(self, event: Event) -> None:
        if event.chat not in (self.chat, ""):
            return
        try:
            self._show(event)
        except BrokenPipeError:
            self._broken = silence(self.out)  # `| head` closed stdout: finish the turn quietly

    def _show(self, event: Event) -> None:
        if isinstance(event, TextDelta) and not self._broken:
            self.out.write(event.delta)
            self.out.flush()
            self._ended_line = event.delta.endswith("\n")
        elif isinstance(event, ReasoningDelta) and self.dim:
            self.err.write(f"{DIM}{event.delta}{RESET}")
            self.err.flush()
        elif isinstance(event, ToolStarted):
            self._status(f"→ {event.name}({summarize_arguments(event.arguments)})")
        elif isinstance(event, ToolFinished):
            mark = "✓" if event.ok else "✗"
            first = event.output.strip().splitlines()[0][:120] if event.output.strip() else ""
            detail = f"{len(event.output)} chars" if event.ok else first
            self._status(f"  {mark} {event.name} {event.duration_s * 1000:.0f} ms  {detail}")
        elif isinstance(event, Notice) and event.level != "info":
            self._status(f"tuibot: {event.level}: {event.message}")
        elif isinstance(event, CommandOutput):
            stream = self.out if event.ok else self.err
            stream.write(event.text.rstrip("\n") + "\n")
            stream.flush()
        elif isinstance(event, TurnFinished) and not self._ended_line and not self._broken:
            self.out.write("\n")
            self.out.flush()

    def _status(self, line: str) -> None:
        """A status line on stderr, starting on a fresh line."""
        self.err.write(line + "\n")
        self.err.flush()


class JsonPrinter:
    """Writes one chat's events as JSON Lines, one object per event, each with a type."""

    def __init__(self, chat: str, out: TextIO) -> None:
        self.chat, self.out = chat, out
        self._broken = False

    def __call__(self, event: Event) -> None:
        if event.chat not in (self.chat, "") or self._broken:
            return
        record = json_record(event)
        if record is not None:
            try:
                self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
                self.out.flush()
            except BrokenPipeError:
                self._broken = silence(self.out)


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
        }
    if isinstance(event, CommandOutput):
        return {"type": "command", "command": event.command, "ok": event.ok, "text": event.text}
    if isinstance(event, TurnFinished):
        if event.status == "completed":
            return {
                "type": "done",
                "chat": event.chat,
                "text": event.text,
                "usage": event.usage.as_dict(),
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


class Approver:
    """Answers tool confirmations: a terminal prompt, ``--yes``, or a clear denial."""

    def __init__(self, engine: Engine, chat: str, *, yes: bool, interactive: bool) -> None:
        self.engine, self.chat = engine, chat
        self.yes, self.interactive = yes, interactive
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, event: Event) -> None:
        if isinstance(event, ApprovalRequested) and event.chat == self.chat:
            task = asyncio.get_running_loop().create_task(self._answer(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, event: ApprovalRequested) -> None:
        if self.yes:
            decision = Decision(True, reason="allowed by --yes")
        elif not self.interactive:
            decision = Decision(
                False, reason="not confirmed: ask is not interactive (rerun with --yes to allow)"
            )
        else:
            reply = await run_in_daemon_thread(
                _prompt, f"tuibot: {event.summary}  [y]es / [a]lways in this chat / [N]o: "
            )
            decision = {
                "y": Decision(True, reason="allowed once"),
                "a": Decision(True, "chat", reason="allowed for this chat"),
            }.get(reply, Decision(False, reason="denied by the user"))
        self.engine.decide(event.request_id, decision)


def silence(stream: TextIO) -> bool:
    """Point a closed pipe's descriptor at /dev/null so the exit flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return True


def _prompt(question: str) -> str:
    """Ask on the terminal; end of input counts as no."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        return sys.stdin.readline().strip().lower()[:1]
    except (OSError, ValueError):
        return ""


async def run_ask(engine: Engine, options: AskOptions, out: TextIO, err: TextIO) -> int:
    """Run one input in a chat and report it; returns the exit code."""
    if options.chat:
        chat = engine.chats.resolve(options.chat)
    elif is_command(options.prompt):
        chat = ""  # commands keep no history: no empty chat file for `ask /help`
    else:
        chat = engine.new_chat(bot=options.bot).id
        err.write(f"tuibot: chat {chat}\n")
        err.flush()
    printer = JsonPrinter(chat, out) if options.json else Printer(chat, out, err)
    engine.events.listen(printer)
    engine.events.listen(
        Approver(engine, chat, yes=options.yes, interactive=sys.stdin.isatty() and err.isatty())
    )
    engine.load_tools()
    future = await engine.send(chat, options.prompt)
    try:
        outcome = await asyncio.shield(future)
    except asyncio.CancelledError:  # Ctrl+C: stop the turn, keep what streamed
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        engine.cancel(chat)
        outcome = await future
    return exit_code(outcome)
