"""``tuibot delegations``: list delegated work and show one record, from the terminal.

Reads the delegation journal directly, without starting an engine, so it also works while
a TUI or an ``ask`` holds the same data folder. Reading never changes a file: it takes no
lock and sets nothing aside. A torn or malformed line is reported on stderr as a warning
and left for the engine to set aside the next time it loads the journal.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.commands.output import emit

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation, Pause, Usage

RECENT_SECONDS = 24 * 3600
"""Ended work younger than this is listed without ``--all``."""
INDENT = "  "
"""One level of depth in a ``--chat`` tree."""

_PREFIX = re.compile(r"(?:dlg_)?[0-9a-f]{1,16}")

_PAUSES = {
    "time": "its time limit was reached",
    "steps": "its step limit was reached",
    "budget": "its budget limit was reached",
    "loop": "it repeated the same tool call",
    "restart": "tuibot restarted while it was open",
}


class BadInput(Exception):
    """An id that matches nothing, several records, or is not an id at all (exit 2)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot delegations [list|show ID|cancel ID]``."""
    parser = subparsers.add_parser(
        "delegations",
        help="list delegated work or show one delegation",
        description="List delegations (the default) or show one, read from the journal.",
    )
    actions = parser.add_subparsers(dest="delegations_action", metavar="ACTION")
    listing = actions.add_parser(
        "list", help="open work first, then ended work; newest first within each"
    )
    listing.add_argument(
        "--chat",
        metavar="ID",
        help="only the work this chat gave, and the work below it (a chat id or unique prefix)",
    )
    listing.add_argument(
        "--all", action="store_true", help="include work that ended more than 24 hours ago"
    )
    listing.add_argument("--json", action="store_true", help="one JSON record per line")
    show = actions.add_parser("show", help="print every field of one delegation")
    show.add_argument(
        "delegation", metavar="ID", help="a delegation id or a unique prefix ('dlg_' optional)"
    )
    show.add_argument("--json", action="store_true", help="print the record as JSON")
    stop = actions.add_parser(
        "cancel", help="stop one delegation and the work below it; its giver is told"
    )
    stop.add_argument("delegation", metavar="ID", help="a delegation id or a unique prefix")
    stop.add_argument("--reason", default="", help="why (kept in the record and the notice)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``delegations list``, ``show`` or ``cancel``; 0 ok, 1 journal unreadable (or
    nothing to cancel), 2 bad id."""
    from tuibot.store.chats import ChatNotFound, InvalidChatId
    from tuibot.store.jsonl import StorageError
    from tuibot.system.paths import DataPaths

    paths = DataPaths.default()
    as_json = bool(getattr(args, "json", False))
    action = getattr(args, "delegations_action", None)
    showing = action == "show"
    try:
        if action == "cancel":
            from tuibot.commands.delegation_cancel import cancel

            _id_prefix(args.delegation)
            return cancel(paths, args.delegation, args.reason)
        if showing:
            _id_prefix(args.delegation)  # a typo is reported before any journal warning
        records = _read(paths.delegations)
        if showing:
            return _show(records, args.delegation, as_json)
        chat = getattr(args, "chat", None)
        chat_id = None if chat is None else _resolve_chat(paths.chats, records, chat)
        return _list(records, chat_id, bool(getattr(args, "all", False)), as_json)
    except (BadInput, InvalidChatId, ChatNotFound) as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 2
    except StorageError as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 1


def _read(path: Path) -> list[Delegation]:
    """The latest revision of every record, oldest first; bad lines warned about.

    ``DelegationJournal.load`` would set bad lines aside (rewriting the file) under its
    lock file, so the file is read here without either.
    """
    from tuibot.delegation.records import Delegation, RecordError
    from tuibot.store.jsonl import StorageError, read_lines

    def check(data: dict[str, object]) -> str | None:
        try:
            Delegation.from_json(data)
        except RecordError as exc:
            return str(exc)
        return None

    try:
        result = read_lines(path, set_aside=False, check=check)
    except StorageError as exc:
        message = f"could not read delegations from {path}: {exc.reason}"
        raise StorageError(message, path=path, reason=exc.reason, errno=exc.errno) from exc
    latest: dict[str, Delegation] = {}
    for data in result.records:
        record = Delegation.from_json(data)
        known = latest.get(record.id)
        if known is None or record.rev >= known.rev:
            latest[record.id] = record
    for problem in result.problems:
        where = f"line {problem.line}" if problem.line else "file"
        emit(sys.stderr, f"tuibot: warning: {path}, {where}: {problem.reason} (left in place)")
    return sorted(latest.values(), key=lambda record: record.created)


def _ordered(records: Iterable[Delegation]) -> list[Delegation]:
    """Open work first (newest start first), then ended work (latest end first).

    Times are kept to the millisecond, so two records can tie; the one written later to
    the journal is the newer, hence the reversal before the (stable) sorts.
    """
    items = list(records)[::-1]
    opened = sorted((r for r in items if r.is_open), key=lambda r: r.created, reverse=True)
    ended = sorted((r for r in items if not r.is_open), key=lambda r: r.updated, reverse=True)
    return opened + ended


def _resolve_chat(folder: Path, records: list[Delegation], prefix: str) -> str:
    """The chat ``prefix`` names (``c_`` optional), preferring chats the journal knows.

    A chat that gave or did work matches even when its file is gone; a prefix that
    matches no such chat falls back to the saved chats (which then show no delegations).
    """
    from tuibot.store.chats import ChatNotFound, ChatStore

    wanted = prefix.strip()
    named = {r.parent.chat for r in records} | {r.chat for r in records if r.chat}
    for candidate in (wanted, f"c_{wanted}"):
        if wanted and candidate in named:
            return candidate
    starts = (wanted,) if wanted.startswith("c_") else (wanted, f"c_{wanted}")
    found = sorted(chat for chat in named if wanted and chat.startswith(starts))
    if len(found) == 1:
        return found[0]
    if found:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise ChatNotFound(f"chat id {prefix!r} is ambiguous: it matches {shown}")
    return ChatStore(folder).resolve(prefix)


def _tree(
    records: list[Delegation], chat: str, keep: Callable[[Delegation], bool]
) -> list[tuple[int, Delegation]]:
    """The work ``chat`` gave and everything below it, as (depth, record) in display order.

    A record that ``keep`` refuses still shows when something below it is kept, so every
    line has its parent above it. A task chat shared by several rounds has its work listed
    under the newest round only; a chat already visited is not entered again.
    """
    given: dict[str, list[Delegation]] = {}
    for record in records:
        given.setdefault(record.parent.chat, []).append(record)
    seen: set[str] = set()

    def below(parent_chat: str, depth: int) -> list[tuple[int, Delegation]]:
        seen.add(parent_chat)
        lines: list[tuple[int, Delegation]] = []
        for record in _ordered(given.get(parent_chat, [])):
            inner: list[tuple[int, Delegation]] = []
            if record.chat and record.chat not in seen:
                inner = below(record.chat, depth + 1)
            if keep(record) or inner:
                lines.append((depth, record))
                lines.extend(inner)
        return lines

    return below(chat, 0)


def _list(records: list[Delegation], chat: str | None, everything: bool, as_json: bool) -> int:
    from tuibot.delegation.records import describe

    since = time.time() - RECENT_SECONDS

    def keep(record: Delegation) -> bool:
        return everything or record.is_open or record.updated >= since

    if chat is None:
        lines = [(0, record) for record in _ordered(records) if keep(record)]
        hidden = len(records) - len(lines)
    else:
        lines = _tree(records, chat, keep)
        hidden = len(_tree(records, chat, lambda record: True)) - len(lines)
    if as_json:
        for _, record in lines:
            emit(sys.stdout, json.dumps(record.to_json(), ensure_ascii=False))
        return 0
    if not lines:
        emit(sys.stdout, "No delegations.")
    for depth, record in lines:
        emit(sys.stdout, INDENT * depth + describe(record))
    if hidden:
        noun = "delegation" if hidden == 1 else "delegations"
        emit(sys.stdout, f"({hidden} {noun} ended over 24 h ago not shown; --all lists them)")
    return 0


def _id_prefix(prefix: str) -> str:
    """``prefix`` as the start of a full id (``dlg_…``); :class:`BadInput` if it is none."""
    wanted = prefix.strip().lower()
    if not _PREFIX.fullmatch(wanted):
        raise BadInput(f"invalid delegation id {prefix!r} (expected 'dlg_' and hex digits)")
    return wanted if wanted.startswith("dlg_") else f"dlg_{wanted}"


def _find(records: list[Delegation], prefix: str) -> Delegation:
    """The one record whose id starts with ``prefix``; :class:`BadInput` naming the choices."""
    full = _id_prefix(prefix)
    found = [record for record in records if record.id.startswith(full)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise BadInput(f"no delegation matches {prefix!r} (`tuibot delegations list --all`)")
    found.sort(key=lambda record: record.id)
    shown = ", ".join(f"{r.id} ({r.status}, {r.bot})" for r in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    raise BadInput(f"delegation id {prefix!r} is ambiguous: it matches {shown}{more}")


def _show(records: list[Delegation], prefix: str, as_json: bool) -> int:
    record = _find(records, prefix)
    if as_json:
        emit(sys.stdout, json.dumps(record.to_json(), ensure_ascii=False))
        return 0
    for line in render(record, records):
        emit(sys.stdout, line)
    return 0


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _seconds(ms: int) -> str:
    text = f"{ms / 1000:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + " s"


def _usd(micros: int) -> str:
    """Exact dollars from micro-USD: 1200 -> $0.0012, 1_500_000 -> $1.50."""
    dollars, rest = divmod(micros, 1_000_000)
    return f"${dollars}.{f'{rest:06d}'.rstrip('0').ljust(2, '0')}"


def _budget(micros: int) -> str:
    return f"{micros} µ$ ({_usd(micros)})"


def _limit_lines(record: Delegation) -> list[str]:
    used, limits = record.used(), record.limits
    steps = "no limit" if limits.steps is None else str(limits.steps)
    budget = "no limit" if limits.budget_micros is None else _budget(limits.budget_micros)
    return [
        "used / limits",
        f"  time       {_seconds(used.time_ms)} / {_seconds(limits.time_ms)}",
        f"  steps      {used.steps} / {steps}",
        f"  budget     {_budget(used.cost_micros)} / {budget}",
    ]


def _total(usage: Usage) -> str:
    steps = "1 step" if usage.steps == 1 else f"{usage.steps} steps"
    return f"{_seconds(usage.time_ms)}, {steps}, {_budget(usage.cost_micros)}"


def _pause_lines(pause: Pause) -> list[str]:
    why = _PAUSES.get(pause.limit, f"its {pause.limit} limit was reached")
    if pause.delegation:
        above = f"{pause.delegation}, the work above it"
        lines = [f"paused     since {_when(pause.at)}: {above} is paused ({pause.limit})"]
        lines.append(f"waits on   the decision about {pause.delegation}")
        return lines
    lines = [f"paused     since {_when(pause.at)}: {why}"]
    if pause.request:
        lines.append(f"waits on   a person's answer to request {pause.request}")
    else:
        lines.append("waits on   a person's answer (not asked yet)")
    return lines


def _block(label: str, text: str | None, empty: str) -> list[str]:
    if not text:
        return [f"{label:<10} {empty}"]
    return [label, *(f"  {line}" for line in text.splitlines())]


def render(record: Delegation, records: list[Delegation]) -> list[str]:
    """Every field of ``record`` as plain lines; ``records`` to name its relatives."""
    from tuibot.delegation.records import Usage, describe

    parent = record.parent
    lines = [record.id, f"status     {record.status}"]
    if record.pause is not None:
        lines += _pause_lines(record.pause)
    lines.append(f"bot        {record.bot}")
    given = f"given by   {record.giver_bot} in chat {parent.chat}"
    above = [r for r in records if r.chat == parent.chat]
    if above:
        given += f" (task chat of {above[-1].id})"
    lines.append(given)
    if parent.turn or parent.tool_call:
        lines.append(f"           turn {parent.turn or '-'}, tool call {parent.tool_call or '-'}")
    lines.append(f"task chat  {record.chat or '(not started)'}")
    lines += _limit_lines(record)
    if record.window != Usage():
        lines.append(f"in all     {_total(record.usage)} (limits restarted since)")
    lines.append(f"created    {_when(record.created)}")
    lines.append(f"updated    {_when(record.updated)}")
    lines.append(f"rev        {record.rev}")
    lines += _block("task", record.task, "(empty)")
    lines += _block("reason", record.reason, "(none given)")
    lines += _block("result", record.result, "(none yet)" if record.is_open else "(none)")
    gave = [r for r in records if record.chat and r.parent.chat == record.chat]
    if gave:
        lines.append("gave")
        lines += [f"  {describe(r)}" for r in _ordered(gave)]
    else:
        lines.append("gave       (nothing)")
    return lines
