"""Pauses: work at a limit stops taking steps, and a person decides whether it goes on.

At a limit the work and everything below it pause; one ``delegations.continue`` request
goes to the person of the tree. Allow restarts the limits, deny (or no answer) cancels
the tree, ask cancels it and hands the giver a question. After a restart, work that was
running comes back paused and asks the same way (:meth:`Pauses.recover`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tuibot.approvals import Decision
from tuibot.delegation.clock import WorkClocks
from tuibot.delegation.ending import Endings
from tuibot.delegation.giving import Giving
from tuibot.delegation.state import WorkState
from tuibot.events import ApprovalKind

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation

CONTINUE_KIND: ApprovalKind = "delegations.continue"


class Pauses:
    """Pauses work at its limits, asks the person, resumes or cancels; recovers restarts."""

    def __init__(
        self, state: WorkState, clocks: WorkClocks, giving: Giving, endings: Endings
    ) -> None:
        self.state = state
        self.clocks = clocks
        self.giving = giving
        self.endings = endings

    def pause(self, record: Delegation, limit: str) -> None:
        """Pause ``record`` and all work below it; ask the person above whether to go on."""
        from tuibot.delegation.records import Pause

        state = self.state
        record = state.journal.get(record.id) or record
        if record.status == "paused":
            return
        now = self.clocks.wall()
        self._freeze(record)
        paused = state.save(
            record,
            status="paused",
            usage=self.clocks.clocked(record),
            pause=Pause(limit, None, None, now),  # type: ignore[arg-type]
        )
        self.clocks.stop(record.id)
        for below in state.open_below(paused):
            if below.status in ("running", "queued"):
                self.pause_below(below, paused, limit)
        self._ask(paused)

    def pause_below(self, record: Delegation, at: Delegation, limit: str) -> None:
        """``record`` waits for the decision about ``at``, the work above it at a limit."""
        from tuibot.delegation.records import Pause

        self._freeze(record)
        self.state.save(
            record,
            status="paused",
            usage=self.clocks.clocked(record),
            pause=Pause(limit, None, at.id, self.clocks.wall()),  # type: ignore[arg-type]
        )
        self.clocks.stop(record.id)

    def _freeze(self, record: Delegation) -> None:
        self.state.entry(record.id).resume.clear()

    def _ask(self, paused: Delegation) -> None:
        """Ask the person about ``paused`` in a task that cancelling the work can stop."""
        live = self.state.entry(paused.id)
        live.waiter = self.state.spawn(self._decide(paused), f"decide {paused.id}")

    async def _decide(self, record: Delegation) -> None:
        """One request for the person; allow resumes, deny or ask cancel the tree."""
        state = self.state
        assert record.pause is not None
        limit = record.pause.limit
        used = record.used().to_json()
        summary = (
            f"{record.bot}'s work hit its {limit} limit: {record.task[:100]} "
            f"(used {used}, limits {record.limits.to_json()}). Continue?"
        )
        decision = await state.host.approvals.ask(
            state.root_chat(record.parent.chat),
            CONTINUE_KIND,
            summary,
            {
                "delegation": record.id,
                "bot": record.bot,
                "limit": limit,
                "limits": record.limits.to_json(),
                "usage": record.usage.to_json(),
                "used": used,
                "task": record.task,
            },
            grant_key=f"continue:{record.id}:{limit}",
            timeout=state.host.settings.delegation.approval_timeout,
            on_request=lambda request_id: self._note_request(record.id, request_id),
        )
        current = state.journal.get(record.id)
        if current is None or current.status != "paused":
            return
        if decision.allowed:
            self._resume(current, decision)
            return
        if decision.question:
            await self.endings.cancel(current.id, by="human", question=decision.question)
        else:
            await self.endings.cancel(current.id, by="human", why=f"stopped at its {limit} limit")

    def _note_request(self, delegation_id: str, request_id: str) -> None:
        record = self.state.journal.get(delegation_id)
        if record is not None and record.pause is not None:
            self.state.save(record, pause=replace(record.pause, request=request_id))

    def _resume(self, record: Delegation, decision: Decision) -> None:
        """Allowed: the limits restart from now; the reason reaches the task chat.

        Work above that is still paused keeps this work waiting with it. After a restart
        nothing runs in the task chats any more, so each resumed one is told to pick up
        where it stopped; work whose turn already ended during the pause ends now.
        """
        state = self.state
        restarted = record.pause is not None and record.pause.limit == "restart"
        above = self._paused_above(record)
        if above is not None:  # allowed here, but the work above still waits on a person
            self._hold(record, above)
            return
        resumed = state.save(record, status="running", pause=None, window=record.usage)
        self.clocks.run(resumed)
        woken = [resumed]
        for below in state.open_below(resumed):
            if below.status == "paused" and below.pause and below.pause.delegation == record.id:
                if below.chat is None:  # queued when the pause came: it starts now
                    self.giving.start(state.save(below, status="queued", pause=None))
                    continue
                woken.append(state.save(below, status="running", pause=None))
                self.clocks.run(woken[-1])
        if decision.reason and resumed.chat:
            state.deliver_to_task(resumed, f"[tuibot] You may continue. {decision.reason}")
        for work in woken:
            if work.chat is None or state.host.busy(work.chat):
                continue
            if restarted:
                message = "[tuibot] tuibot was restarted; continue the task where you left off."
                state.send(work.chat, message)
            elif state.live[work.id].last_turn is not None:
                state.spawn(self.endings.maybe_end(work.id), f"end? {work.id}")

    def _hold(self, record: Delegation, above: Delegation) -> None:
        """Allowed, but ``above`` is still paused: ``record`` and its waiters wait on it."""
        assert record.pause is not None
        held = replace(record.pause, delegation=above.id, request=None)
        self.state.save(record, pause=held, window=record.usage)  # its limits restart anyway
        for work in self.state.open_below(record):
            if work.pause is not None and work.pause.delegation == record.id:
                self.state.save(work, pause=replace(work.pause, delegation=above.id))

    def _paused_above(self, record: Delegation) -> Delegation | None:
        """The topmost paused work above ``record``, if any."""
        found = None
        current = self.state.working_in(record.parent.chat)
        seen: set[str] = set()
        while current is not None and current.id not in seen:
            seen.add(current.id)
            if current.status == "paused":
                found = current
            current = self.state.working_in(current.parent.chat)
        return found

    def recover(self, root_chat: str | None = None) -> list[Delegation]:
        """Pick up work left open by an earlier run: running comes back paused, queued starts.

        ``root_chat`` limits this to work below one chat (what ``ask --chat`` resumes);
        None recovers everything (the TUI, headless mode).
        """
        state = self.state
        records = state.tree(root_chat) if root_chat else state.journal.all()
        recovered: list[Delegation] = []
        held: dict[str, str] = {}
        """Task chat of work paused here → the id of the topmost paused work above it."""
        for record in sorted(records, key=lambda r: r.created):
            if not record.is_open or record.id in state.live:
                continue
            if record.chat:
                state.works_in(record.chat, record.id)
            top = held.get(record.parent.chat)
            if record.status in ("running", "paused"):
                paused, top = self._recover_running(record, top)
                if paused.chat:
                    held[paused.chat] = top or paused.id
                recovered.append(paused)
            elif record.status == "queued" and top is None:
                self.giving.start(record)
                recovered.append(record)
            elif record.status == "authorizing":
                self.giving.watch_authorization(record)
                recovered.append(record)
        return recovered

    def _recover_running(
        self, record: Delegation, top: str | None
    ) -> tuple[Delegation, str | None]:
        """Running before the restart: paused now; the topmost of a tree asks the person.

        Returns the paused record and the topmost paused work its task chat waits on."""
        from tuibot.delegation.records import Pause

        now = self.clocks.wall()
        if top is not None or (record.pause is not None and record.pause.delegation):
            above = top or (record.pause.delegation if record.pause else None)
            paused = self.state.save(
                record, status="paused", pause=Pause("restart", None, above, now)
            )
            self._freeze(paused)
            return paused, top
        paused = self.state.save(record, status="paused", pause=Pause("restart", None, None, now))
        self._freeze(paused)
        self._ask(paused)
        return paused, paused.id
