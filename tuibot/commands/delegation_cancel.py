"""``tuibot delegations cancel ID``: a person stops delegated work from the shell.

It does what cancelling in the app does, through the shared journal: the work and every
open piece of work below it are recorded ``cancelled`` (each change under the journal's
revision check, so a change another process makes meanwhile is never overwritten), and
the giver's chat is told in its history. A tuibot that is running the work sees the
record change at the work's next model step and stops it there; with none running, the
records are simply final.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from tuibot.commands.output import emit
from tuibot.store.chat_message import ChatMessage

if TYPE_CHECKING:
    from tuibot.delegation.journal import DelegationJournal
    from tuibot.delegation.records import Delegation
    from tuibot.system.paths import DataPaths


def cancel(paths: DataPaths, prefix: str, reason: str) -> int:
    """Cancel one delegation and the work below it; 0 done, 1 ended already or unsaved."""
    from tuibot.commands.delegations import _find
    from tuibot.delegation.journal import DelegationConflict, DelegationJournal
    from tuibot.store.chats import ChatNotFound, ChatStore

    journal = DelegationJournal(paths.delegations)
    journal.load()
    record = _find(journal.all(), prefix)
    if not record.is_open:
        emit(sys.stderr, f"tuibot: {record.id} has already ended ({record.status})")
        return 1
    why = reason or "cancelled by a person (tuibot delegations cancel)"
    below = _open_below(journal, record)
    try:
        for work in [*reversed(below), record]:  # from the bottom up, as the app does
            latest = journal.get(work.id) or work
            result = why if work is record else "stopped because the work above it was cancelled"
            journal.update(
                replace(latest, status="cancelled", result=result), expected_rev=latest.rev
            )
            emit(sys.stdout, f"{work.id}  cancelled  {work.bot}")
    except DelegationConflict as error:
        emit(sys.stderr, f"tuibot: {error}; run the command again")
        return 1
    notice = f"[tuibot] The work {record.id} that you gave to {record.bot} was stopped ({why})."
    try:
        ChatStore(paths.chats).append(record.parent.chat, [_notice(notice)])
    except ChatNotFound:
        emit(sys.stderr, f"tuibot: warning: the giver's chat {record.parent.chat} is gone")
    return 0


def _open_below(journal: DelegationJournal, record: Delegation) -> list[Delegation]:
    """Open work below ``record``, layer by layer (parents before children)."""
    found: list[Delegation] = []
    queue = [record.chat] if record.chat else []
    while queue:
        for child in journal.children(queue.pop(0)):
            if child.chat:
                queue.append(child.chat)
            if child.is_open:
                found.append(child)
    return found


def _notice(text: str) -> ChatMessage:
    """The giver's notice, kept in history (it starts no turn from the shell)."""
    return {"role": "user", "content": text, "notice": True}
