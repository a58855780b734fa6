"""What the chats pane knows about each chat, kept up to date from engine events alone.

The pane must stay cheap while many chats and delegations run: it reads the store once
(:meth:`ChatRows.load`) and then follows events, each touching only the chats it names.
:meth:`ChatRows.apply` says which rows to redraw, or that the order changed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    DelegationChanged,
    Event,
    TurnFinished,
    TurnStarted,
)
from tuibot.store.history import auto_title, clean_title

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.store.chats import ChatMeta

Status = Literal["idle", "working", "waiting for approval", "paused"]
RESHAPE = "*"
"""Returned by :meth:`ChatRows.apply` in place of chat ids when rows were added or moved."""


@dataclass
class Change:
    """Which rows an event changed: their ids, or ``reshape`` when the order changed."""

    chats: set[str] = field(default_factory=set)
    reshape: bool = False


class ChatRows:
    """Every chat's header, status and unread mark, and the order the pane shows them in."""

    def __init__(self) -> None:
        self.metas: dict[str, ChatMeta] = {}
        """Chat id → its header as last known."""
        self.roots: list[str] = []
        """Chats shown at the left edge (direct chats, orphaned work), newest activity first."""
        self.working: set[str] = set()
        self.paused: set[str] = set()
        """Task chats whose delegation is paused at a limit."""
        self.waiting: dict[str, tuple[str, ...]] = {}
        """Pending approval request id → the chats it holds up."""
        self.unread: set[str] = set()
        """Chats that finished a turn while not shown."""
        self.current: str | None = None

    # -- reading the engine once ---------------------------------------------------

    def load(self, engine: Engine) -> None:
        """Read every chat header and the live state; unread marks are kept."""
        metas = engine.view.chats()
        self.metas = {meta.id: meta for meta in metas}
        self.roots = [m.id for m in metas if self.parent_of(m.id) is None]
        self.working = {m.id for m in metas if engine.busy(m.id)}
        self.paused = {r.chat for r in engine.view.delegations() if r.status == "paused" and r.chat}
        self.waiting = {
            request.id: _held_up(request.chat, request.details)
            for request in engine.view.pending_approvals()
        }
        self.unread &= set(self.metas)

    # -- shape -----------------------------------------------------------------------

    def parent_of(self, chat: str) -> str | None:
        """The chat that gave this task chat its work, if it is listed."""
        parent = self.metas[chat].parent
        giver = parent.get("chat") if isinstance(parent, dict) else None
        return giver if isinstance(giver, str) and giver in self.metas and giver != chat else None

    def flat(self) -> list[tuple[str, int]]:
        """``(chat, depth)`` in display order: each giver followed by its task chats."""
        kids: dict[str, list[str]] = {}
        for chat in sorted(self.metas, key=lambda c: (self.metas[c].created, c)):
            giver = self.parent_of(chat)
            if giver is not None:
                kids.setdefault(giver, []).append(chat)
        rows: list[tuple[str, int]] = []
        seen: set[str] = set()
        stack = [(chat, 0) for chat in reversed(self.roots)]
        while stack:
            chat, depth = stack.pop()
            if chat in seen:
                continue
            seen.add(chat)
            rows.append((chat, depth))
            stack.extend((kid, depth + 1) for kid in reversed(kids.get(chat, [])))
        rows.extend((chat, 0) for chat in self.metas if chat not in seen)  # a cycle of givers
        return rows

    def root_of(self, chat: str) -> str:
        """The top of the chain of givers above ``chat``."""
        seen = {chat}
        while (giver := self.parent_of(chat)) is not None and giver not in seen:
            seen.add(giver)
            chat = giver
        return chat

    # -- status ----------------------------------------------------------------------

    def status_of(self, chat: str) -> Status:
        """What the chat is doing; waiting on a person beats paused beats working."""
        if any(chat in held for held in self.waiting.values()):
            return "waiting for approval"
        if chat in self.paused:
            return "paused"
        if chat in self.working:
            return "working"
        return "idle"

    def set_current(self, chat: str | None) -> set[str]:
        """Mark the chat shown (and read); the rows to redraw."""
        changed = {c for c in (self.current, chat) if c is not None and c in self.metas}
        self.current = chat
        if chat is not None:
            self.unread.discard(chat)
        return changed

    # -- following events ------------------------------------------------------------

    def apply(self, event: Event) -> Change:
        """Follow one event; says which rows (or the whole order) to redraw."""
        if isinstance(event, TurnStarted):
            return self._started(event)
        if isinstance(event, TurnFinished):
            self.working.discard(event.chat)
            if event.chat != self.current and event.chat in self.metas:
                self.unread.add(event.chat)
            return Change({event.chat})
        if isinstance(event, ApprovalRequested):
            held = _held_up(event.chat, event.details)
            self.waiting[event.request_id] = held
            return Change(set(held))
        if isinstance(event, ApprovalDecided):
            return Change(set(self.waiting.pop(event.request_id, ())))
        if isinstance(event, DelegationChanged):
            return self._delegation(event.record)
        return Change()

    def _started(self, event: TurnStarted) -> Change:
        self.working.add(event.chat)
        change = Change({event.chat})
        meta = self.metas.get(event.chat)
        if meta is None:  # a chat made elsewhere (another front end): list it
            now = time.time()
            from tuibot.store.chats import ChatMeta  # the store: after the first frame

            meta = ChatMeta(event.chat, "direct", event.bot, "", now, now)
            self.metas[event.chat] = meta
            self.roots.insert(0, event.chat)
            change.reshape = True
        title = meta.title or auto_title([{"role": "user", "content": event.input}])
        self.metas[event.chat] = replace(meta, title=title, bot=event.bot)
        root = self.root_of(event.chat)
        if self.roots and self.roots[0] != root and root in self.roots:
            self.roots.remove(root)
            self.roots.insert(0, root)
            change.reshape = True
        return change

    def _delegation(self, record: dict[str, Any]) -> Change:
        chat = record.get("chat")
        if not isinstance(chat, str) or not chat:
            return Change()
        change = Change({chat})
        if chat not in self.metas:
            self._add_task_chat(chat, record)
            change.reshape = True
        if record.get("status") == "paused":
            self.paused.add(chat)
        else:
            self.paused.discard(chat)
        return change

    def _add_task_chat(self, chat: str, record: dict[str, Any]) -> None:
        """A task chat just opened: its header is what the delegation manager wrote."""
        parent = record.get("parent") if isinstance(record.get("parent"), dict) else {}
        giver = parent.get("chat") if isinstance(parent, dict) else None
        now = time.time()
        from tuibot.store.chats import ChatMeta

        self.metas[chat] = ChatMeta(
            chat,
            "task",
            str(record.get("bot") or ""),
            clean_title(str(record.get("task") or "")[:60]),
            now,
            now,
            parent={"chat": giver, "delegation": record.get("id")},
            pinned=True,
        )
        if self.parent_of(chat) is None:
            self.roots.insert(0, chat)


def _held_up(chat: str, details: dict[str, Any]) -> tuple[str, ...]:
    """The chats an approval request holds up: the root chat and, if named, its task chat."""
    task_chat = details.get("task_chat")
    return (chat, task_chat) if isinstance(task_chat, str) and task_chat != chat else (chat,)
