"""Limit checks for task-chat turns: steps, budget, loops and the whole tree's bounds.

Each turn in a task chat gets a ``before_step`` hook (steps and budget, checked before
every model call, for the work and every layer above it, and a repeated tool call seen
as a loop), an ``on_usage`` hook (cost bubbles up layer by layer) and a
``before_tools`` hook (an answer that came back during a pause waits for the decision).
A chat with no open work of its own still counts against its tree's bounds.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tuibot.delegation.clock import WorkClocks
from tuibot.delegation.journal import DelegationConflict
from tuibot.delegation.pauses import Pauses
from tuibot.delegation.state import RecentCalls, WorkState
from tuibot.delegation.tree_limits import TreeBudgets, TreeLimits, ask_person
from tuibot.events import Usage as TurnUsage
from tuibot.store.chat_message import ChatMessage
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.agent.loop import StepHook, ToolsHook, Turn, UsageHook
    from tuibot.delegation.records import Delegation


class LimitChecks:
    """Builds each turn's limit hooks and enforces what they check."""

    def __init__(self, state: WorkState, clocks: WorkClocks, pauses: Pauses) -> None:
        self.state = state
        self.clocks = clocks
        self.pauses = pauses
        self.trees = TreeBudgets(state.host, self._ask_about_tree)
        """Bounds on each whole tree (``ask``'s ``--max-*``, or the settings' per chat)."""

    def hooks_for(self, chat: str) -> tuple[StepHook | None, UsageHook | None, ToolsHook | None]:
        """The limit hooks of a turn in ``chat``: before each model call, after each
        call's usage, before running the calls' tools."""
        record = self.state.working_in(chat)
        if record is None or not record.is_open:  # a person's chat, or work that ended
            return (*self._tree_hooks(chat), None)
        delegation_id = record.id

        async def before_step(turn: Turn) -> list[ChatMessage]:
            return await self._before_step(delegation_id, turn)

        def on_usage(usage: TurnUsage) -> None:
            self._add_cost(delegation_id, usage.cost_micros)

        async def before_tools(turn: Turn) -> None:
            await self._wait_resumed(delegation_id)

        return before_step, on_usage, before_tools

    def _tree_hooks(self, chat: str) -> tuple[StepHook, UsageHook]:
        """A chat with no open work of its own: its steps and cost count for the tree."""

        async def before_step(turn: Turn) -> list[ChatMessage]:
            path = self.state.path_up(chat)
            fresh = turn.rounds == 0 and not (turn.history and turn.history[-1].get("notice"))
            if fresh and len(path) == 1 and not any(d.is_open for d in self.state.tree(chat)):
                self.trees.new_run(chat)  # a person's input into an idle tree: a new run
            while not self.trees.try_step(path):
                await self.trees.wait(path)
            return []

        def on_usage(usage: TurnUsage) -> None:
            self.trees.add_cost(self.state.path_up(chat), usage.cost_micros)

        return before_step, on_usage

    def _ask_about_tree(self, chat: str, limits: TreeLimits) -> None:
        self.state.spawn(ask_person(self.state.host, chat, limits), f"tree bound {chat}")

    async def _wait_resumed(self, delegation_id: str) -> None:
        """Hold an answer that came back during a pause: its tools run only once allowed."""
        await self.state.entry(delegation_id).resume.wait()
        record = self.state.journal.get(delegation_id)
        if record is None or not record.is_open:
            raise asyncio.CancelledError

    async def _before_step(self, delegation_id: str, turn: Turn) -> list[ChatMessage]:
        """Wait out a pause, enforce steps, budget and loops, count the step.

        A tree a bound stopped for good takes no step: its work is being cancelled, and a
        pause now would ask the person about work that is going away.
        """
        state = self.state
        while True:
            live = state.entry(delegation_id)
            await live.resume.wait()
            state.journal.refresh()  # cancelled from the shell: it stops here
            record = state.journal.get(delegation_id)
            if record is None or not record.is_open:
                raise asyncio.CancelledError
            path = state.path_up(turn.chat)
            if self.trees.stopped(path):  # its cancel is on the way: no pause, no question
                raise asyncio.CancelledError
            over = self._over_limit(record) or self._looping(delegation_id, turn)
            if over is None:
                if self.trees.try_step(path):
                    break
                await self.trees.wait(path)  # the whole tree is at a bound
                continue
            at, limit = over
            self.pauses.pause(at, limit)
            if live.resume.is_set():  # the work above was paused already: wait with it
                self.pauses.pause_below(record, at, limit)
        self._count_step(delegation_id)
        return self._read_inbox(delegation_id, turn)

    def _count_step(self, delegation_id: str) -> None:
        """The step is taken: its time so far and one step go into the record."""
        record = self.state.journal.get(delegation_id)
        assert record is not None
        try:
            self.state.save(record, usage=self.clocks.clocked(record, steps=1))
        except (DelegationConflict, StorageError) as error:
            self.state.report(f"a step of {delegation_id} was not recorded: {error}")

    def _read_inbox(self, delegation_id: str, turn: Turn) -> list[ChatMessage]:
        """Messages that came for the task during the turn, stored before the model sees them."""
        live = self.state.live[delegation_id]
        messages: list[ChatMessage] = [
            {"role": "user", "content": text, "turn": turn.turn_id, "notice": True}
            for text in live.inbox
        ]
        live.inbox.clear()
        if messages:
            self.state.host.chats.append(turn.chat, messages)
        return messages

    def _over_limit(self, record: Delegation) -> tuple[Delegation, str] | None:
        """The first record (this one or one above) past its steps or budget, and which."""
        if record.limits.steps is not None and record.used().steps >= record.limits.steps:
            return record, "steps"  # only its own: work below never adds steps above
        current: Delegation | None = record
        while current is not None:
            used = current.used()
            budget = current.limits.budget_micros
            if budget is not None and used.cost_micros >= budget:
                return current, "budget"
            current = self.state.working_in(current.parent.chat)
        return None

    def _looping(self, delegation_id: str, turn: Turn) -> tuple[Delegation, str] | None:
        """The same tool call with the same arguments, over and over: pause for a look.

        Each answer counts once, at the step after it. A turn's first step has no answer
        of its own yet (the last one in the history belongs to an earlier turn, counted
        there or cut off): new input starts the count afresh.
        """
        if turn.rounds == 0:
            self.state.recent_calls.pop(delegation_id, None)
            return None
        recent = self.state.recent_calls.setdefault(delegation_id, RecentCalls())
        if recent.counted == (turn.turn_id, turn.rounds):
            return None  # the same step checked again after a wait: nothing new
        recent.counted = (turn.turn_id, turn.rounds)
        last = next((m for m in reversed(turn.history) if m.get("role") == "assistant"), None)
        calls = (last or {}).get("tool_calls") or []
        seen = recent.signatures
        if not calls:
            seen.clear()
            return None
        seen.append(_signature(calls))
        repeats = self.state.host.settings.delegation.loop_repeats
        if len(seen) >= repeats and len(set(seen[-repeats:])) == 1:
            seen.clear()
            record = self.state.journal.get(delegation_id)
            return (record, "loop") if record is not None else None
        del seen[:-repeats]
        return None

    def _add_cost(self, delegation_id: str, cost: int) -> None:
        """A model call's cost counts for this work and every layer above it."""
        if cost <= 0:
            return
        current = self.state.journal.get(delegation_id)
        if current is not None and current.chat:
            self.trees.add_cost(self.state.path_up(current.chat), cost)
        while current is not None and current.is_open:
            usage = replace(current.usage, cost_micros=current.usage.cost_micros + cost)
            try:
                self.state.save(current, usage=usage)
            except (DelegationConflict, StorageError) as error:  # a call's answer is kept
                self.state.report(f"the cost of a model call was not recorded: {error}")
            current = self.state.working_in(current.parent.chat)


def _signature(calls: list[dict[str, Any]]) -> str:
    """An answer's calls by name and arguments, order kept."""
    return json.dumps(
        [
            (c.get("function", {}).get("name"), c.get("function", {}).get("arguments"))
            for c in calls
        ],
        sort_keys=True,
    )
