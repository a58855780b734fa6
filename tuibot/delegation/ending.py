"""How delegated work ends: after its last turn, or cancelled with everything below it.

Work ends when a turn of its task chat ends and the chat has nothing open (its own
delegations, a pending request, queued input); the giver's chat then gets the result as
a notice. Cancelling stops the work's own turn first (so it gives no new work
meanwhile), then everything below, layer by layer.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING

from tuibot.delegation.clock import WorkClocks
from tuibot.delegation.errors import DelegationRefused
from tuibot.delegation.state import WorkState
from tuibot.events import TurnFinished

if TYPE_CHECKING:
    from tuibot.delegation.records import Delegation


class Endings:
    """Ends work after its turns, and cancels it on request."""

    def __init__(self, state: WorkState, clocks: WorkClocks) -> None:
        self.state = state
        self.clocks = clocks

    def turn_finished(self, result: TurnFinished) -> None:
        """After a turn of a task chat: end the work if nothing is left open."""
        state = self.state
        if state.closing:
            return
        record = state.working_in(result.chat)
        if record is not None and record.is_open:
            live = state.entry(record.id)
            live.last_turn = result
            if not live.stopping:  # arrived after the turn's last step: a turn of its own
                for message in live.inbox:
                    state.send(result.chat, message)
            live.inbox.clear()
            if record.status == "running":
                state.spawn(self.maybe_end(record.id), f"end? {record.id}")
        state.changed()

    async def maybe_end(self, delegation_id: str) -> None:
        """End the work with its last turn's outcome, unless something is still open."""
        await asyncio.sleep(0)  # let the engine settle the turn's inbox first
        state = self.state
        record = state.journal.get(delegation_id)
        live = state.live.get(delegation_id)
        if record is None or record.status != "running" or record.chat is None or live is None:
            return
        if live.stopping or state.closing:
            return
        if state.has_open_work(record.chat) or live.last_turn is None:
            return
        last = live.last_turn
        if last.status == "completed":
            status, text, says = "completed", last.text, "is done.\n\nResult:\n"
        elif last.status == "cancelled":
            status, text, says = "cancelled", "The work was stopped.", "was stopped."
        else:
            error = last.error or last.status
            status, text, says = "failed", error, "has failed.\n\nError:\n"
        usage = self.clocks.clocked(record)
        self.clocks.stop(record.id)
        ended = state.save(record, status=status, result=text, usage=usage)
        self.forget(record.id)
        state.tell_giver(ended, says + (text if status != "cancelled" else ""))

    async def cancel(
        self, delegation_id: str, *, by: str, why: str = "", question: str | None = None
    ) -> Delegation:
        """Stop the work and everything below it; the giver hears unless its bot did it.

        ``by`` is ``bot`` (the giver's own tool: no notice) or ``human``. The work's own
        turn is stopped first (so it gives no new work meanwhile), then everything below,
        layer by layer; the record says ``cancelled`` only once all of it has stopped.
        A second cancel of the same work does nothing.
        """
        state = self.state
        record = state.journal.get(delegation_id)
        if record is None:
            raise DelegationRefused(f"no delegation {delegation_id}")
        live = state.entry(record.id)
        if not record.is_open or live.stopping:
            return record
        live.stopping = True
        live.resume.clear()
        if record.chat:
            await state.host.stop_chat(record.chat)
        for below in reversed(state.open_below(record)):
            await self._stop(below, "stopped because the work above it was cancelled")
        saved = await self._stop(record, why or f"cancelled by the {by}")
        final = state.journal.get(record.id) or record
        if by == "human" and saved:  # a bot, an interrupt or a delete: the giver knows
            if question:
                state.tell_giver(final, f"was stopped. The person asks:\n\n{question}")
            else:
                state.tell_giver(final, f"was stopped ({why or 'cancelled by a person'}).")
        return final

    async def cancel_given_by(self, chat: str, *, by: str) -> list[Delegation]:
        """Cancel every open delegation ``chat`` gave (interrupt with delegations, delete)."""
        children = self.state.journal.children(chat)
        return [await self.cancel(d.id, by=by) for d in children if d.is_open]

    async def _stop(self, record: Delegation, why: str) -> bool:
        """Stop one piece of work; True when this call recorded it as cancelled."""
        state = self.state
        live = state.entry(record.id)
        live.stopping = True
        live.resume.clear()
        if live.waiter is not None and live.waiter is not asyncio.current_task():
            live.waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await live.waiter
        usage = self.clocks.clocked(state.journal.get(record.id) or record)
        self.clocks.stop(record.id)
        if record.chat:
            await state.host.stop_chat(record.chat)
        current = state.journal.get(record.id) or record
        saved = current.is_open
        if saved:
            usage = replace(current.usage, time_ms=max(usage.time_ms, current.usage.time_ms))
            state.save(current, status="cancelled", result=why, usage=usage)
        live.resume.set()  # release anything still waiting; it sees the end and stops
        self.forget(record.id)
        return saved

    def forget(self, delegation_id: str) -> None:
        """Drop what only running work needs, once the work has ended."""
        self.state.recent_calls.pop(delegation_id, None)
        live = self.state.live.get(delegation_id)
        if live is not None:
            live.last_turn = None
            live.inbox.clear()
