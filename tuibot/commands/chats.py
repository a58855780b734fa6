"""``tuibot chats``: list saved chats and read one back, from the terminal.

For looking at history without starting the TUI, and for checking what a crash left
behind. Reading never changes a file: problems found on the way are reported on stderr
and left for the engine to repair the next time it opens the chat.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from tuibot.commands.chats_edit import add_actions, run_action
from tuibot.commands.output import emit, local_time
from tuibot.store.chat_message import ChatMessage
from tuibot.store.chats import Chat, ChatMeta, ChatNotFound, ChatStore, InvalidChatId
from tuibot.store.jsonl import LineProblem, StorageError, encode_record, read_lines
from tuibot.system.paths import DataPaths

RESULT_LINES = 5
"""Lines of a tool result shown before the rest is summarised."""
LINE_WIDTH = 200
"""Longest line shown for tool arguments and results."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot chats [list|show|rename|delete|fork|export]``."""
    parser = subparsers.add_parser(
        "chats",
        help="list, show, rename, delete, fork or export saved chats",
        description="List saved chats (the default), show, rename, delete, fork or export one.",
    )
    actions = parser.add_subparsers(dest="chats_action", metavar="ACTION")
    listing = actions.add_parser("list", help="saved chats, most recently updated first")
    listing.add_argument("--json", action="store_true", help="one JSON object per chat")
    show = actions.add_parser("show", help="print one conversation")
    show.add_argument("chat", metavar="ID", help="a chat id or a unique prefix of one")
    show.add_argument("--json", action="store_true", help="print the stored records as JSONL")
    add_actions(actions)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run a ``chats`` action; 0 ok, 1 not found, unreadable or unsaved, 2 bad input."""
    store = ChatStore(DataPaths.default().chats)
    as_json = bool(getattr(args, "json", False))
    action = getattr(args, "chats_action", None)
    try:
        if action == "show":
            return _show(store, args.chat, as_json)
        if action in ("rename", "delete", "fork", "export"):
            return run_action(action, store, args)
        return _list(store, as_json)
    except InvalidChatId as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 2
    except (ChatNotFound, StorageError) as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 1


def _list(store: ChatStore, as_json: bool) -> int:
    metas = store.list()
    if as_json:
        for meta in metas:
            emit(sys.stdout, json.dumps(asdict(meta), ensure_ascii=False))
        return 0
    if not metas:
        emit(sys.stdout, "no chats yet")
        return 0
    rows = [("ID", "KIND", "BOT", "UPDATED", "TITLE")]
    rows += [(m.id, m.kind, m.bot, local_time(m.updated), m.title or "(untitled)") for m in metas]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        emit(sys.stdout, "  ".join([*cells, row[4]]))
    return 0


def _report(chat_id: str, problems: list[LineProblem]) -> None:
    """Problems go to stderr; ``show`` leaves them in place for the engine to set aside."""
    for problem in problems:
        where = f"line {problem.line}" if problem.line else "file"
        emit(sys.stderr, f"tuibot: warning: chat {chat_id}, {where}: {problem.reason}")


def _show(store: ChatStore, prefix: str, as_json: bool) -> int:
    chat_id = store.resolve(prefix)
    if as_json:
        path = store.path(chat_id)
        try:
            result = read_lines(path, set_aside=False)
        except StorageError as exc:
            raise StorageError(f"could not load chat {chat_id} from {path}: {exc.reason}") from exc
        for record in result.records:
            emit(sys.stdout, encode_record(record).decode("utf-8").rstrip("\n"))
        _report(chat_id, result.problems)
        return 0
    chat = store.load(chat_id, readonly=True)
    for line in render_chat(chat):
        emit(sys.stdout, line)
    _report(chat_id, chat.problems)
    if chat.repaired:
        count = f"{chat.repaired} tool call{'s' if chat.repaired > 1 else ''}"
        emit(sys.stderr, f"tuibot: note: {count} had no result (tuibot stopped mid-turn)")
    return 0


def render_chat(chat: Chat) -> list[str]:
    """The conversation as plain lines: a heading, then each message under its label."""
    lines = _heading(chat.meta)
    marks = {record["upto"]: record for record in chat.compactions}
    for index, message in enumerate(chat.messages):
        if index in marks:
            lines.extend(["", *_compaction_lines(marks[index])])
        lines.append("")
        lines.extend(_render_message(message))
    return lines


def _compaction_lines(record: dict[str, Any]) -> list[str]:
    """Where a compaction happened: the model sees the summary instead of what is above."""
    when = local_time(record.get("ts") or 0)
    lines = [f"── compacted {when}: the model sees this summary instead of the messages above ──"]
    lines.extend(f"  {_cut(line)}" for line in str(record["summary"]).splitlines()[:RESULT_LINES])
    return lines


def _heading(meta: ChatMeta) -> list[str]:
    lines = [meta.title or "(untitled)"]
    when = f"created {local_time(meta.created)}, updated {local_time(meta.updated)}"
    lines.append(f"{meta.id} · {meta.kind} · {meta.bot} · {when}")
    if meta.parent:
        lines.append("given by " + ", ".join(f"{k} {v}" for k, v in meta.parent.items()))
    return lines


def _render_message(message: ChatMessage) -> list[str]:
    role = str(message.get("role"))
    label = role
    if role == "assistant" and message.get("bot"):
        label = f"assistant · {message['bot']}"
    elif role == "tool":
        label = f"tool {message.get('name') or message.get('tool_call_id') or ''}".rstrip()
    if message.get("status"):
        label += f" ({message['status']})"
    lines = [f"[{label}]"]
    reasoning = message.get("reasoning")
    if isinstance(reasoning, str) and reasoning.strip():
        lines.append("(reasoning)")
        lines.extend(f"  │ {line}" for line in reasoning.strip().splitlines())
    text = _content_text(message.get("content"))
    if role == "tool":
        lines.extend(_truncated(text))
    elif text:
        lines.extend(text.splitlines())
    lines.extend(_render_call(call) for call in message.get("tool_calls") or [])
    return lines


def _content_text(content: object) -> str:
    """String content as is; content parts as their text, other parts as ``[type]``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            text = part.get("text") if isinstance(part, dict) else None
            parts.append(text if isinstance(text, str) else f"[{kind or 'part'}]")
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def _cut(text: str, width: int = LINE_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _truncated(text: str) -> list[str]:
    lines = text.splitlines() or [""]
    shown = [f"  {_cut(line)}" for line in lines[:RESULT_LINES]]
    if len(lines) > RESULT_LINES:
        shown.append(f"  … ({len(lines) - RESULT_LINES} more lines)")
    return shown


def _render_call(call: object) -> str:
    """A tool call as ``→ name(args)``, the arguments on one line."""
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return f"→ {function.get('name', '?')}({_cut(' '.join(arguments.split()))})"
