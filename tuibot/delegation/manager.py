"""Running delegated work: task chats, limits, pauses, human decisions, results.

The engine owns one manager. A bot's ``delegate`` call lands in :meth:`delegate`, which
returns at once; the work runs as ordinary turns of a task chat (``kind: "task"``), so
everything a chat has — durability, the inbox, tools, approvals — holds for it too. The
manager only coordinates; each responsibility is a module of its own:

- :mod:`~tuibot.delegation.giving`: record work, authorize it, open its task chat.
- :mod:`~tuibot.delegation.limits`: each task-chat turn's hooks (steps, budget, loops,
  cost bubbling up, the whole tree's bounds).
- :mod:`~tuibot.delegation.clock`: running time and the deadline, through an injectable
  clock (paused time is not counted).
- :mod:`~tuibot.delegation.pauses`: at a limit the work and everything below it pause and
  a person decides; a restart brings running work back paused.
- :mod:`~tuibot.delegation.ending`: work with nothing open ends after its turn and the
  giver hears; cancelling stops a whole subtree.

All of them share one :class:`~tuibot.delegation.state.WorkState`; every change is
written to the journal before it is acted on, so a restart finds the records as they
were (see :meth:`DelegationManager.recover`). The manager sees the engine only as a
:class:`~tuibot.delegation.host.DelegationHost`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from tuibot.delegation.clock import Clock, SystemClock, WorkClocks
from tuibot.delegation.ending import Endings
from tuibot.delegation.errors import DelegationRefused
from tuibot.delegation.giving import AUTHORIZE_KIND, NOTE, Giving
from tuibot.delegation.journal import DelegationConflict, DelegationJournal
from tuibot.delegation.limits import LimitChecks
from tuibot.delegation.pauses import CONTINUE_KIND, Pauses
from tuibot.delegation.state import WorkState
from tuibot.delegation.tree_limits import RootLimits
from tuibot.events import TurnFinished
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.agent.loop import StepHook, ToolsHook, UsageHook
    from tuibot.delegation.host import DelegationHost
    from tuibot.delegation.records import Delegation, Limits

__all__ = [
    "AUTHORIZE_KIND",
    "CONTINUE_KIND",
    "NOTE",
    "DelegationManager",
    "DelegationRefused",
    "RootLimits",
]

log = logging.getLogger("tuibot.delegation")


class DelegationManager:
    """Starts, limits, pauses, ends and cancels delegated work for one engine."""

    def __init__(
        self, host: DelegationHost, journal: DelegationJournal, clock: Clock | None = None
    ) -> None:
        self.journal = journal
        self._state = WorkState(host, journal)
        self._clocks = WorkClocks(
            self._state, clock or SystemClock(), lambda record: self._pauses.pause(record, "time")
        )
        self._endings = Endings(self._state, self._clocks)
        self._giving = Giving(self._state, self._clocks, lambda path: self.trees.stopped(path))
        self._pauses = Pauses(self._state, self._clocks, self._giving, self._endings)
        self._limits = LimitChecks(self._state, self._clocks, self._pauses)
        self.trees = self._limits.trees
        """Bounds on each whole tree (``ask``'s ``--max-*``, or the settings' per chat)."""

    @property
    def closing(self) -> bool:
        """True once the engine shuts down: turns stop, but the work stays as recorded."""
        return self._state.closing

    def begin_closing(self) -> None:
        """The engine is shutting down: turns that end now end no work."""
        self._state.begin_closing()

    # -- reading -------------------------------------------------------------------

    def get(self, delegation_id: str) -> Delegation | None:
        """The latest record of ``delegation_id``."""
        return self.journal.get(delegation_id)

    def given_by(self, chat: str) -> list[Delegation]:
        """The work ``chat`` gave, oldest first."""
        return self.journal.children(chat)

    def tree(self, chat: str) -> list[Delegation]:
        """All work below ``chat``, layer by layer (parents before children)."""
        return self._state.tree(chat)

    def working_in(self, chat: str) -> Delegation | None:
        """The delegation whose task chat is ``chat`` (the latest round), if any."""
        return self._state.working_in(chat)

    def root_chat(self, chat: str) -> str:
        """The person's chat at the top of the tree ``chat`` belongs to."""
        return self._state.root_chat(chat)

    def has_open_work(self, chat: str) -> bool:
        """Whether ``chat`` still waits on something: its delegations, requests, input."""
        return self._state.has_open_work(chat)

    async def wait_until_settled(self, chat: str) -> None:
        """Return once ``chat`` has no open work (its results have all come back)."""
        await self._state.wait_until_settled(chat)

    # -- giving work ----------------------------------------------------------------

    def delegate(
        self,
        *,
        chat: str,
        turn: str,
        giver: str,
        task: str,
        limits: Limits,
        bot: str | None,
        reason: str,
        continues: str | None,
        tool_call: str | None = None,
    ) -> dict[str, Any]:
        """Record the work and start it (or ask to); returns the tool's answer at once.

        ``tool_call`` is the id of the ``delegate`` call, kept in the record's parent."""
        return self._giving.delegate(
            chat=chat,
            turn=turn,
            giver=giver,
            task=task,
            limits=limits,
            bot=bot,
            reason=reason,
            continues=continues,
            tool_call=tool_call,
        )

    def schedule_run(
        self, *, chat: str, bot: str, task: str, limits: Limits, first: str, task_chat: str | None
    ) -> Delegation:
        """Start a scheduled job's run: work ``bot`` gives itself on a person's behalf."""
        return self._giving.schedule_run(
            chat=chat, bot=bot, task=task, limits=limits, first=first, task_chat=task_chat
        )

    def new_round(self, chat: str) -> Delegation | None:
        """A person wrote into an ended task chat: open a new round with the old limits."""
        return self._giving.new_round(chat)

    # -- limits ---------------------------------------------------------------------

    def limit_root(self, chat: str, limits: RootLimits) -> None:
        """Bound ``chat`` and all work below it: model calls, cost (``ask --max-*``)."""
        self.trees.set(chat, limits)

    def hooks_for(self, chat: str) -> tuple[StepHook | None, UsageHook | None, ToolsHook | None]:
        """The limit hooks of a turn in ``chat``: before each model call, after each
        call's usage, before running the calls' tools."""
        return self._limits.hooks_for(chat)

    # -- ending ---------------------------------------------------------------------

    def turn_finished(self, result: TurnFinished) -> None:
        """After a turn of a task chat: end the work if nothing is left open."""
        self._endings.turn_finished(result)

    async def cancel(
        self, delegation_id: str, *, by: str, why: str = "", question: str | None = None
    ) -> Delegation:
        """Stop the work and everything below it; the giver hears unless its bot did it."""
        return await self._endings.cancel(delegation_id, by=by, why=why, question=question)

    async def cancel_given_by(self, chat: str, *, by: str) -> list[Delegation]:
        """Cancel every open delegation ``chat`` gave (interrupt with delegations, delete)."""
        return await self._endings.cancel_given_by(chat, by=by)

    # -- restart and shutdown ---------------------------------------------------------

    def recover(self, root_chat: str | None = None) -> list[Delegation]:
        """Pick up work left open by an earlier run: running comes back paused, queued starts.

        ``root_chat`` limits this to work below one chat (what ``ask --chat`` resumes);
        None recovers everything (the TUI, headless mode).
        """
        return self._pauses.recover(root_chat)

    def _save(self, record: Delegation, **changes: Any) -> Delegation:
        """Write a change on top of the latest revision and tell the front ends."""
        return self._state.save(record, **changes)

    async def close(self) -> None:
        """Stop timers and waiters (records stay as they are: a restart recovers them)."""
        state = self._state
        state.begin_closing()
        for delegation_id, live in state.live.items():
            record = self.journal.get(delegation_id)
            if live.since is None or record is None or not record.is_open:
                continue
            try:  # running time so far goes into the record before the clock stops
                state.save(record, usage=self._clocks.clocked(record))
            except (DelegationConflict, StorageError) as error:
                log.warning("time of %s not saved at shutdown: %s", delegation_id, error)
        await state.cancel_tasks()
