"""What every part of the delegation manager shares: records, live state, messages out.

The manager is split by responsibility (giving work, limits, pauses, ends); each part
reads and changes delegated work through one :class:`WorkState`: the journal (every
change is written there before it is acted on), what only this process knows about
running work (:class:`LiveWork`), the way up a tree, and how changes are told (events,
notices into chats, background tasks whose failures are reported, not lost).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tuibot.delegation.journal import DelegationJournal
from tuibot.events import DelegationChanged, Notice, TurnFinished

if TYPE_CHECKING:
    from tuibot.delegation.host import DelegationHost
    from tuibot.delegation.records import Delegation

log = logging.getLogger("tuibot.delegation")


@dataclass
class LiveWork:
    """What only this process knows about a running record: clocks and waiters."""

    resume: asyncio.Event = field(default_factory=asyncio.Event)
    """Set while the work may take steps; cleared while it is paused."""
    since: float | None = None
    """The clock's ``monotonic()`` when the work last started running; None while paused."""
    timer: asyncio.Task[None] | None = None
    waiter: asyncio.Task[None] | None = None
    """The task waiting for a human's decision (authorization or a pause)."""
    last_turn: TurnFinished | None = None
    stopping: bool = False
    """Being cancelled: the end of its turn must not end it a second way."""
    inbox: list[str] = field(default_factory=list)
    """Messages for the task chat that the running turn reads at its next step."""


@dataclass
class RecentCalls:
    """The tool calls of a work's last answers, each answer counted once."""

    signatures: list[str] = field(default_factory=list)
    counted: tuple[str, int] | None = None
    """The (turn, round) whose answer was counted last. A step is checked again after a
    wait, and that check must not count the same answer a second time."""


class WorkState:
    """Records and live state of one engine's delegated work, and how changes go out."""

    def __init__(self, host: DelegationHost, journal: DelegationJournal) -> None:
        self.host = host
        self.journal = journal
        self.live: dict[str, LiveWork] = {}
        self._by_chat: dict[str, str] = {}
        """Task chat → the delegation now working in it (a later round replaces it)."""
        self._not_task: set[str] = set()
        """Chats known to be no delegation's task chat (people's chats), so lookups stop."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pulse: asyncio.Future[None] | None = None
        """Resolved (and replaced) at every change, for :meth:`wait_until_settled`."""
        self.recent_calls: dict[str, RecentCalls] = {}
        """Delegation → its last tool-call answers in the running turn (to see a loop)."""
        self.closing = False
        """Set when the engine shuts down: turns stop, but the work stays as recorded."""

    def begin_closing(self) -> None:
        """The engine shuts down: from now on turns that end end no work."""
        self.closing = True

    def entry(self, delegation_id: str) -> LiveWork:
        """The live state of ``delegation_id``, made on first use."""
        return self.live.setdefault(delegation_id, LiveWork())

    # -- reading -------------------------------------------------------------------

    def tree(self, chat: str) -> list[Delegation]:
        """All work below ``chat``, layer by layer (parents before children)."""
        found: list[Delegation] = []
        queue = [chat]
        while queue:
            for record in self.journal.children(queue.pop(0)):
                found.append(record)
                if record.chat:
                    queue.append(record.chat)
        return found

    def open_below(self, record: Delegation) -> list[Delegation]:
        """The open work below ``record``'s task chat, layer by layer."""
        return [d for d in self.tree(record.chat) if d.is_open] if record.chat else []

    def working_in(self, chat: str) -> Delegation | None:
        """The delegation whose task chat is ``chat`` (the latest round), if any."""
        delegation_id = self._by_chat.get(chat)
        if delegation_id is None:
            if chat in self._not_task:
                return None
            rounds = [d for d in self.journal.all() if d.chat == chat]
            if not rounds:
                self._not_task.add(chat)  # a person's chat: never asked about again
                return None
            delegation_id = rounds[-1].id
            self._by_chat[chat] = delegation_id
        return self.journal.get(delegation_id)

    def works_in(self, chat: str, delegation_id: str) -> None:
        """``delegation_id`` is the work now done in task chat ``chat``."""
        self._by_chat[chat] = delegation_id

    def has_open_work(self, chat: str) -> bool:
        """Whether ``chat`` still waits on something: its delegations, requests, input."""
        if any(d.is_open for d in self.journal.children(chat)):
            return True
        if any(r.chat == chat for r in self.host.approvals.pending()):
            return True
        return self.host.busy(chat)

    async def wait_until_settled(self, chat: str) -> None:
        """Return once ``chat`` has no open work (its results have all come back)."""
        while self.has_open_work(chat):
            if self._pulse is None or self._pulse.done():
                self._pulse = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._pulse)

    def root_chat(self, chat: str) -> str:
        """The person's chat at the top of the tree ``chat`` belongs to."""
        return self.path_up(chat)[-1]

    def path_up(self, chat: str) -> list[str]:
        """``chat`` and the chats above it, up to the person's chat at the top."""
        path = [chat]
        record = self.working_in(chat)
        while record is not None and record.parent.chat not in path:
            path.append(record.parent.chat)
            record = self.working_in(record.parent.chat)
        return path

    # -- changing and telling --------------------------------------------------------

    def save(self, record: Delegation, **changes: Any) -> Delegation:
        """Write a change on top of the latest revision and tell the front ends."""
        current = self.journal.get(record.id) or record
        saved = self.journal.update(replace(current, **changes), expected_rev=current.rev)
        self.publish(saved)
        return saved

    def publish(self, record: Delegation) -> None:
        """Tell the front ends that ``record`` changed."""
        self.host.events.publish(DelegationChanged(record.parent.chat, record.to_json()))
        self.changed()

    def changed(self) -> None:
        """Wake whoever waits for a chat to settle; they look again."""
        pulse, self._pulse = self._pulse, None
        if pulse is not None and not pulse.done():
            pulse.set_result(None)

    def report(self, text: str) -> None:
        """A problem the person should see (the journal refused a write, say)."""
        log.error("delegation: %s", text)
        self.host.events.publish(Notice("", "error", f"delegation: {text}"))

    def send(self, chat: str, text: str) -> None:
        """Queue a notice as the chat's next input, at once (the turn runs on its own)."""
        self.host.post(chat, text, notice=True)

    def deliver_to_task(self, record: Delegation, message: str) -> None:
        """A message for running work: a turn waiting at its next step reads it there;
        otherwise it goes through the chat's inbox and starts (or follows) a turn."""
        assert record.chat is not None
        if self.host.busy(record.chat):
            self.entry(record.id).inbox.append(message)
        else:
            self.send(record.chat, message)

    def tell_giver(self, record: Delegation, says: str) -> None:
        """The result notice, through the giver chat's inbox (a late one only goes in history)."""
        text = f"[tuibot] The work {record.id} that you gave to {record.bot} {says}".rstrip()
        giver_chat = record.parent.chat
        above = self.working_in(giver_chat)
        if above is not None and not above.is_open:
            self.host.note_in_history(giver_chat, text)  # late: no new round by itself
            return
        self.send(giver_chat, text)

    # -- background tasks -----------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run ``coro`` in the background; a failure is reported, close cancels it."""
        task = asyncio.get_running_loop().create_task(self._guard(coro, name), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _: coro.close())  # cancelled before it ran: no warning
        return task

    async def _guard(self, coro: Coroutine[Any, Any, Any], name: str) -> Any:
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("delegation task %s failed", name)
            self.host.events.publish(Notice("", "error", f"delegation: {name}: {error}"))

    async def cancel_tasks(self) -> None:
        """Cancel every background task and wait for them to end."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
