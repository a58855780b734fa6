"""Giving work: record it, authorize it when needed, open its task chat and start it.

A bot's ``delegate`` call returns at once; the work is recorded before anything acts on
it. Work for the giver itself or a bot it owns starts now; work for any other bot waits
for a person's authorization. The caps on live work are checked before a record exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tuibot.delegation.clock import WorkClocks
from tuibot.delegation.errors import DelegationRefused
from tuibot.delegation.state import WorkState
from tuibot.events import ApprovalKind
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation, Limits, Parent

NOTE = (
    "The work runs on its own. Its result comes back to this chat as a message. "
    "Go on with other work, or end your answer now."
)
AUTHORIZE_KIND: ApprovalKind = "delegations.authorize"


class Giving:
    """Starts delegated work: new, added to earlier work, scheduled, or a new round."""

    def __init__(
        self, state: WorkState, clocks: WorkClocks, tree_stopped: Callable[[list[str]], bool]
    ) -> None:
        self.state = state
        self.clocks = clocks
        self.tree_stopped = tree_stopped
        """Whether a bound over the chats of a path stopped their tree for good."""

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
        from tuibot.delegation.records import Delegation, Parent

        if not task.strip():
            raise DelegationRefused("task is empty: say what to do, with everything it needs")
        self._check_giver_goes_on(chat)
        parent = Parent(chat, turn, tool_call)
        if continues:
            return self._continue(parent, giver, task, limits, continues)
        bots = self.state.host.bots
        target = bots.require(bot) if bot else bots.require(giver)
        needs_human = target.name != giver and not bots.owns(giver, target.name)
        if needs_human and not reason.strip():
            raise DelegationRefused(
                f"a reason is required to give work to {target.name}, a bot you do not own"
            )
        self._check_caps(chat)
        record = Delegation.new(
            parent=parent,
            giver_bot=giver,
            bot=target.name,
            task=task.strip(),
            reason=reason.strip(),
            limits=limits,
        )
        if not needs_human:
            record = replace(record, status="queued")
        record = self.state.journal.create(record)
        self.state.publish(record)
        if needs_human:
            self.watch_authorization(record)
        else:
            self.start(record)
        return {"delegation": record.id, "status": record.status, "note": NOTE}

    def _continue(
        self, parent: Parent, giver: str, task: str, limits: Limits, earlier: str
    ) -> dict[str, Any]:
        """More work for an earlier delegation of the same chat (its task chat keeps history)."""
        from tuibot.delegation.records import Delegation

        chat = parent.chat
        record = self.state.journal.get(earlier)
        if record is None or record.parent.chat != chat:
            raise DelegationRefused(f"no delegation {earlier} was given by this chat")
        if record.is_open:
            if record.status == "authorizing":
                raise DelegationRefused(f"{earlier} is still waiting for authorization")
            message = f"[tuibot] {giver} adds to this task: {task.strip()}"
            self.state.deliver_to_task(record, message)
            return {"delegation": record.id, "status": record.status, "note": NOTE}
        self._check_caps(chat)
        fresh = Delegation.new(
            parent=parent,
            giver_bot=giver,
            bot=record.bot,
            task=task.strip(),
            reason=record.reason,
            limits=limits,
        )
        fresh = self.state.journal.create(replace(fresh, status="queued", chat=record.chat))
        self.state.publish(fresh)
        self.start(fresh, first=f"[tuibot] {giver} gives you more work on this task: {task}")
        return {"delegation": fresh.id, "status": fresh.status, "note": NOTE}

    def schedule_run(
        self, *, chat: str, bot: str, task: str, limits: Limits, first: str, task_chat: str | None
    ) -> Delegation:
        """Start a scheduled job's run: work ``bot`` gives itself on a person's behalf.

        Nobody authorizes it (a bot giving work to itself never needs that); the result
        goes to ``chat``. ``task_chat`` reuses an earlier run's chat so the bot keeps the
        job's history; ``first`` is the task chat's input. The caps on live work hold.
        """
        from tuibot.delegation.records import Delegation, Parent

        target = self.state.host.bots.require(bot)
        self._check_caps(chat)
        record = Delegation.new(
            parent=Parent(chat),
            giver_bot=target.name,
            bot=target.name,
            task=task.strip(),
            reason="",
            limits=limits,
        )
        record = self.state.journal.create(replace(record, status="queued", chat=task_chat))
        self.state.publish(record)
        self.start(record, first=first)
        return self.state.journal.get(record.id) or record

    def new_round(self, chat: str) -> Delegation | None:
        """A person wrote into an ended task chat: open a new round with the old limits."""
        last = self.state.working_in(chat)
        if last is None or last.is_open:  # (a plain chat: its records are never imported)
            return None
        from tuibot.delegation.records import Delegation

        fresh = Delegation.new(
            parent=last.parent,
            giver_bot=last.giver_bot,
            bot=last.bot,
            task=last.task,
            reason=last.reason,
            limits=last.limits,
        )
        fresh = self.state.journal.create(replace(fresh, status="running", chat=chat))
        self.state.works_in(chat, fresh.id)
        self.clocks.run(fresh)
        self.state.publish(fresh)
        return fresh

    def _check_giver_goes_on(self, chat: str) -> None:
        """Refuse new work from a chat whose work, or any work above it, is ending.

        A cancel lists the open work below before it stops it one chat at a time; a
        ``delegate`` call that lands meanwhile in a chat not stopped yet would add work
        the cancel never sees, left open (or running) under cancelled work. The same
        holds for a tree a bound stopped for good: its cancel is on its way.
        """
        state = self.state
        path = state.path_up(chat)
        for above in (state.working_in(c) for c in path):
            live = state.live.get(above.id) if above is not None else None
            if above is not None and (not above.is_open or (live and live.stopping)):
                raise DelegationRefused(f"{above.id} is ending: it can give no new work")
        if self.tree_stopped(path):
            raise DelegationRefused("this tree was stopped at its bound: it takes no new work")

    def _check_caps(self, chat: str) -> None:
        """Refuse new work past ``[delegation]``'s caps on live work."""
        settings = self.state.host.settings.delegation
        live = [d for d in self.state.journal.all() if d.is_open]
        if len([d for d in live if d.parent.chat == chat]) >= settings.max_live_per_chat:
            raise DelegationRefused(
                f"this chat already has {settings.max_live_per_chat} live delegations "
                "(delegation.max_live_per_chat); wait for results or cancel some"
            )
        below = self.state.tree(self.state.root_chat(chat))
        if len([d for d in below if d.is_open]) >= settings.max_open_per_tree:
            raise DelegationRefused(
                f"{settings.max_open_per_tree} delegations are open below this person's chat "
                "(delegation.max_open_per_tree); wait for results or cancel some"
            )
        if len(live) >= settings.max_live_total:
            raise DelegationRefused(
                f"{settings.max_live_total} delegations are live (delegation.max_live_total); "
                "wait for results or cancel some"
            )

    def watch_authorization(self, record: Delegation) -> None:
        """Ask for authorization in a task that cancelling the work can stop."""
        live = self.state.entry(record.id)
        live.waiter = self.state.spawn(self._authorize(record), f"authorize {record.id}")

    async def _authorize(self, record: Delegation) -> None:
        """First work for a bot the giver does not own: a person decides."""
        state = self.state
        decision = await state.host.approvals.ask(
            state.root_chat(record.parent.chat),
            AUTHORIZE_KIND,
            f"{record.giver_bot} wants to give work to {record.bot}: {record.task[:120]}"
            f" (reason: {record.reason})",
            {
                "delegation": record.id,
                "giver": record.giver_bot,
                "bot": record.bot,
                "task": record.task,
                "reason": record.reason,
                "limits": record.limits.to_json(),
            },
            grant_key=f"delegate:{record.giver_bot}->{record.bot}",
            timeout=state.host.settings.delegation.approval_timeout,
        )
        current = state.journal.get(record.id)
        if current is None or current.status != "authorizing":
            state.changed()
            return  # cancelled meanwhile
        if decision.allowed:
            self.start(state.save(current, status="queued"))
            return
        why = decision.question or decision.reason or "denied"
        failed = state.save(current, status="failed", result=f"not authorized: {why}")
        state.tell_giver(failed, f"was not authorized.\n\nReason:\n{why}")

    def start(self, record: Delegation, first: str | None = None) -> None:
        """Open the task chat if needed and hand it the task as its first input."""
        state = self.state
        chat = record.chat
        if chat is None:
            try:
                meta = state.host.chats.create(
                    kind="task",
                    bot=record.bot,
                    title=record.task[:60],
                    parent={"chat": record.parent.chat, "delegation": record.id},
                    pinned=True,
                )
            except (StorageError, OSError) as error:
                failed = state.save(record, status="failed", result=f"could not start: {error}")
                state.tell_giver(failed, f"has failed.\n\nError:\ncould not start: {error}")
                return
            chat = meta.id
        record = state.save(record, status="running", chat=chat)
        state.works_in(chat, record.id)
        self.clocks.run(record)
        text = first or f"[tuibot] {record.giver_bot} gives you this task: {record.task}"
        state.send(chat, text)
