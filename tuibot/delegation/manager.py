"""Running delegated work: task chats, limits, pauses, human decisions, results.

The engine owns one manager. A bot's ``delegate`` call lands in :meth:`delegate`, which
returns at once; the work runs as ordinary turns of a task chat (``kind: "task"``), so
everything a chat has — durability, the inbox, tools, approvals — holds for it too. The
manager only adds what delegation needs on top:

- **Limits.** Each task-chat turn gets a ``before_step`` hook (steps and budget, checked
  before every model call, for the work and every layer above it) and an ``on_usage``
  hook (cost bubbles up layer by layer). Time is a timer per running delegation that
  fires at the deadline even while no turn runs; paused time is not counted.
- **Pauses.** At a limit the work and everything below it pause; one
  ``delegations.continue`` request goes to the human. Allow restarts the limits, deny
  (or no answer) cancels the tree, ask cancels it and hands the giver a question.
- **Ends.** After each task-chat turn, work with nothing open (no live delegations of
  its own, no pending request, no queued input) ends, and the giver's chat gets a notice
  that starts a turn when it is idle.

Every change is written to the journal before it is acted on, so a restart finds the
records as they were (see :meth:`recover`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tuibot.approvals import Decision
from tuibot.delegation.journal import DelegationConflict, DelegationJournal
from tuibot.delegation.records import Delegation, Limits, Parent, Pause, Usage
from tuibot.delegation.tree_limits import RootLimits, TreeBudgets, TreeLimits, ask_person
from tuibot.events import ApprovalKind, DelegationChanged, Notice, TurnFinished
from tuibot.events import Usage as TurnUsage
from tuibot.store.chat_message import ChatMessage
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.agent.loop import StepHook, ToolsHook, Turn, UsageHook
    from tuibot.engine import Engine

log = logging.getLogger("tuibot.delegation")

NOTE = (
    "The work runs on its own. Its result comes back to this chat as a message. "
    "Go on with other work, or end your answer now."
)
CONTINUE_KIND: ApprovalKind = "delegations.continue"
AUTHORIZE_KIND: ApprovalKind = "delegations.authorize"


class DelegationRefused(Exception):
    """A ``delegate`` or ``cancel_delegation`` call that cannot be done; says why."""


@dataclass
class _Live:
    """What only this process knows about a running record: clocks and waiters."""

    resume: asyncio.Event = field(default_factory=asyncio.Event)
    """Set while the work may take steps; cleared while it is paused."""
    since: float | None = None
    """``time.monotonic()`` when the work last started running; None while paused."""
    timer: asyncio.Task[None] | None = None
    waiter: asyncio.Task[None] | None = None
    """The task waiting for a human's decision (authorization or a pause)."""
    last_turn: TurnFinished | None = None
    stopping: bool = False
    """Being cancelled: the end of its turn must not end it a second way."""
    inbox: list[str] = field(default_factory=list)
    """Messages for the task chat that the running turn reads at its next step."""


class DelegationManager:
    """Starts, limits, pauses, ends and cancels delegated work for one engine."""

    def __init__(self, engine: Engine, journal: DelegationJournal) -> None:
        self.engine = engine
        self.journal = journal
        self._live: dict[str, _Live] = {}
        self._by_chat: dict[str, str] = {}
        self._not_task: set[str] = set()
        """Chats known to be no delegation's task chat (people's chats), so lookups stop."""
        """Task chat → the delegation now working in it (a later round replaces it)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pulse: asyncio.Future[None] | None = None
        """Resolved (and replaced) at every change, for :meth:`wait_until_settled`."""
        self._recent_calls: dict[str, list[str]] = {}
        self.trees = TreeBudgets(engine, self._ask_about_tree)
        """Bounds on each whole tree (``ask``'s ``--max-*``, or the settings' per chat)."""
        self.closing = False
        """Set when the engine shuts down: turns stop, but the work stays as recorded."""

    # -- reading -------------------------------------------------------------------

    def get(self, delegation_id: str) -> Delegation | None:
        """The latest record of ``delegation_id``."""
        return self.journal.get(delegation_id)

    def given_by(self, chat: str) -> list[Delegation]:
        """The work ``chat`` gave, oldest first."""
        return self.journal.children(chat)

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

    def has_open_work(self, chat: str) -> bool:
        """Whether ``chat`` still waits on something: its delegations, requests, input."""
        if any(d.is_open for d in self.journal.children(chat)):
            return True
        if any(r.chat == chat for r in self.engine.approvals.pending()):
            return True
        return self.engine.busy(chat)

    async def wait_until_settled(self, chat: str) -> None:
        """Return once ``chat`` has no open work (its results have all come back)."""
        while self.has_open_work(chat):
            if self._pulse is None or self._pulse.done():
                self._pulse = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._pulse)

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
        if not task.strip():
            raise DelegationRefused("task is empty: say what to do, with everything it needs")
        parent = Parent(chat, turn, tool_call)
        if continues:
            return self._continue(parent, giver, task, limits, continues)
        target = self.engine.bots.require(bot) if bot else self.engine.bots.require(giver)
        needs_human = target.name != giver and not self.engine.bots.owns(giver, target.name)
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
        record = self.journal.create(record)
        self._publish(record)
        if needs_human:
            self._watch_authorization(record)
        else:
            self._start(record)
        return {"delegation": record.id, "status": record.status, "note": NOTE}

    def _continue(
        self, parent: Parent, giver: str, task: str, limits: Limits, earlier: str
    ) -> dict[str, Any]:
        """More work for an earlier delegation of the same chat (its task chat keeps history)."""
        chat = parent.chat
        record = self.journal.get(earlier)
        if record is None or record.parent.chat != chat:
            raise DelegationRefused(f"no delegation {earlier} was given by this chat")
        if record.is_open:
            if record.status == "authorizing":
                raise DelegationRefused(f"{earlier} is still waiting for authorization")
            message = f"[tuibot] {giver} adds to this task: {task.strip()}"
            self._deliver_to_task(record, message)
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
        fresh = self.journal.create(replace(fresh, status="queued", chat=record.chat))
        self._publish(fresh)
        self._start(fresh, first=f"[tuibot] {giver} gives you more work on this task: {task}")
        return {"delegation": fresh.id, "status": fresh.status, "note": NOTE}

    def schedule_run(
        self, *, chat: str, bot: str, task: str, limits: Limits, first: str, task_chat: str | None
    ) -> Delegation:
        """Start a scheduled job's run: work ``bot`` gives itself on a person's behalf.

        Nobody authorizes it (a bot giving work to itself never needs that); the result
        goes to ``chat``. ``task_chat`` reuses an earlier run's chat so the bot keeps the
        job's history; ``first`` is the task chat's input. The caps on live work hold.
        """
        target = self.engine.bots.require(bot)
        self._check_caps(chat)
        record = Delegation.new(
            parent=Parent(chat),
            giver_bot=target.name,
            bot=target.name,
            task=task.strip(),
            reason="",
            limits=limits,
        )
        record = self.journal.create(replace(record, status="queued", chat=task_chat))
        self._publish(record)
        self._start(record, first=first)
        return self.journal.get(record.id) or record

    def new_round(self, chat: str) -> Delegation | None:
        """A person wrote into an ended task chat: open a new round with the old limits."""
        last = self.working_in(chat)
        if last is None or last.is_open:
            return None
        fresh = Delegation.new(
            parent=last.parent,
            giver_bot=last.giver_bot,
            bot=last.bot,
            task=last.task,
            reason=last.reason,
            limits=last.limits,
        )
        fresh = self.journal.create(replace(fresh, status="running", chat=chat))
        self._by_chat[chat] = fresh.id
        live = self._live.setdefault(fresh.id, _Live())
        live.resume.set()
        live.since = time.monotonic()
        live.timer = self._spawn(self._deadline(fresh.id), f"deadline {fresh.id}")
        self._publish(fresh)
        return fresh

    def _check_caps(self, chat: str) -> None:
        settings = self.engine.settings.delegation
        live = [d for d in self.journal.all() if d.is_open]
        if len([d for d in live if d.parent.chat == chat]) >= settings.max_live_per_chat:
            raise DelegationRefused(
                f"this chat already has {settings.max_live_per_chat} live delegations "
                "(delegation.max_live_per_chat); wait for results or cancel some"
            )
        below = self.tree(self.root_chat(chat))
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

    def _watch_authorization(self, record: Delegation) -> None:
        """Ask for authorization in a task that cancelling the work can stop."""
        live = self._live.setdefault(record.id, _Live())
        live.waiter = self._spawn(self._authorize(record), f"authorize {record.id}")

    async def _authorize(self, record: Delegation) -> None:
        """First work for a bot the giver does not own: a person decides."""
        decision = await self.engine.approvals.ask(
            self.root_chat(record.parent.chat),
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
            timeout=self.engine.settings.delegation.approval_timeout,
        )
        current = self.journal.get(record.id)
        if current is None or current.status != "authorizing":
            self._changed()
            return  # cancelled meanwhile
        if decision.allowed:
            self._start(self._save(current, status="queued"))
            return
        why = decision.question or decision.reason or "denied"
        failed = self._save(current, status="failed", result=f"not authorized: {why}")
        self._tell_giver(failed, f"was not authorized.\n\nReason:\n{why}")

    def _start(self, record: Delegation, first: str | None = None) -> None:
        """Open the task chat if needed and hand it the task as its first input."""
        chat = record.chat
        if chat is None:
            try:
                meta = self.engine.chats.create(
                    kind="task",
                    bot=record.bot,
                    title=record.task[:60],
                    parent={"chat": record.parent.chat, "delegation": record.id},
                    pinned=True,
                )
            except (StorageError, OSError) as error:
                failed = self._save(record, status="failed", result=f"could not start: {error}")
                self._tell_giver(failed, f"has failed.\n\nError:\ncould not start: {error}")
                return
            chat = meta.id
        record = self._save(record, status="running", chat=chat)
        self._by_chat[chat] = record.id
        live = self._live.setdefault(record.id, _Live())
        live.resume.set()
        live.since = time.monotonic()
        live.timer = self._spawn(self._deadline(record.id), f"deadline {record.id}")
        text = first or f"[tuibot] {record.giver_bot} gives you this task: {record.task}"
        self._send(chat, text)

    def _deliver_to_task(self, record: Delegation, message: str) -> None:
        """A message for running work: a turn waiting at its next step reads it there;
        otherwise it goes through the chat's inbox and starts (or follows) a turn."""
        assert record.chat is not None
        if self.engine.busy(record.chat):
            self._live.setdefault(record.id, _Live()).inbox.append(message)
        else:
            self._send(record.chat, message)

    def _send(self, chat: str, text: str) -> None:
        """Queue a notice as the chat's next input, at once (the turn runs on its own)."""
        self.engine.post(chat, text, notice=True)

    # -- hooks for task-chat turns --------------------------------------------------

    def limit_root(self, chat: str, limits: RootLimits) -> None:
        """Bound ``chat`` and all work below it: model calls, cost (``ask --max-*``)."""
        self.trees.set(chat, limits)

    def hooks_for(self, chat: str) -> tuple[StepHook | None, UsageHook | None, ToolsHook | None]:
        """The limit hooks of a turn in ``chat``: before each model call, after each
        call's usage, before running the calls' tools."""
        record = self.working_in(chat)
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
            path = self._path_up(chat)
            fresh = turn.rounds == 0 and not (turn.history and turn.history[-1].get("notice"))
            if fresh and len(path) == 1 and not any(d.is_open for d in self.tree(chat)):
                self.trees.new_run(chat)  # a person's input into an idle tree: a new run
            while not self.trees.try_step(path):
                await self.trees.wait(path)
            return []

        def on_usage(usage: TurnUsage) -> None:
            self.trees.add_cost(self._path_up(chat), usage.cost_micros)

        return before_step, on_usage

    def _ask_about_tree(self, chat: str, limits: TreeLimits) -> None:
        self._spawn(ask_person(self.engine, chat, limits), f"tree bound {chat}")

    async def _wait_resumed(self, delegation_id: str) -> None:
        """Hold an answer that came back during a pause: its tools run only once allowed."""
        live = self._live.setdefault(delegation_id, _Live())
        await live.resume.wait()
        record = self.journal.get(delegation_id)
        if record is None or not record.is_open:
            raise asyncio.CancelledError

    async def _before_step(self, delegation_id: str, turn: Turn) -> list[ChatMessage]:
        """Wait out a pause, enforce steps, budget and loops, count the step."""
        while True:
            live = self._live.setdefault(delegation_id, _Live())
            await live.resume.wait()
            self.journal.refresh()  # cancelled from the shell: it stops here
            record = self.journal.get(delegation_id)
            if record is None or not record.is_open:
                raise asyncio.CancelledError
            over = self._over_limit(record) or self._looping(delegation_id, turn)
            if over is None:
                path = self._path_up(turn.chat)
                if self.trees.try_step(path):
                    break
                await self.trees.wait(path)  # the whole tree is at a bound
                continue
            at, limit = over
            self._pause(at, limit)
            if live.resume.is_set():  # the work above was paused already: wait with it
                self._pause_below(record, at, limit)
        record = self.journal.get(delegation_id)
        assert record is not None
        try:
            self._save(record, usage=self._clocked(record, steps=1))
        except (DelegationConflict, StorageError) as error:
            self._report(f"a step of {delegation_id} was not recorded: {error}")
        messages: list[ChatMessage] = [
            {"role": "user", "content": text, "turn": turn.turn_id, "notice": True}
            for text in self._live[delegation_id].inbox
        ]
        self._live[delegation_id].inbox.clear()
        if messages:
            self.engine.chats.append(turn.chat, messages)  # stored before the model sees them
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
            current = self.working_in(current.parent.chat)
        return None

    def _looping(self, delegation_id: str, turn: Turn) -> tuple[Delegation, str] | None:
        """The same tool call with the same arguments, over and over: pause for a look."""
        last = next((m for m in reversed(turn.history) if m.get("role") == "assistant"), None)
        calls = (last or {}).get("tool_calls") or []
        if not calls:
            self._recent_calls.pop(delegation_id, None)
            return None
        signature = json.dumps(
            [
                (c.get("function", {}).get("name"), c.get("function", {}).get("arguments"))
                for c in calls
            ],
            sort_keys=True,
        )
        seen = self._recent_calls.setdefault(delegation_id, [])
        seen.append(signature)
        repeats = self.engine.settings.delegation.loop_repeats
        if len(seen) >= repeats and len(set(seen[-repeats:])) == 1:
            seen.clear()
            record = self.journal.get(delegation_id)
            return (record, "loop") if record is not None else None
        del seen[:-repeats]
        return None

    def _add_cost(self, delegation_id: str, cost: int) -> None:
        """A model call's cost counts for this work and every layer above it."""
        if cost <= 0:
            return
        current = self.journal.get(delegation_id)
        if current is not None and current.chat:
            self.trees.add_cost(self._path_up(current.chat), cost)
        while current is not None and current.is_open:
            usage = replace(current.usage, cost_micros=current.usage.cost_micros + cost)
            try:
                self._save(current, usage=usage)
            except (DelegationConflict, StorageError) as error:  # a call's answer is kept
                self._report(f"the cost of a model call was not recorded: {error}")
            current = self.working_in(current.parent.chat)

    async def _deadline(self, delegation_id: str) -> None:
        """Pause the work when its time is up, even if no turn is running."""
        while True:
            record = self.journal.get(delegation_id)
            live = self._live.get(delegation_id)
            if record is None or live is None or record.status != "running":
                return
            used_ms = self._clocked(record, commit=False).time_ms - record.window.time_ms
            left_ms = record.limits.time_ms - used_ms
            if left_ms <= 0:
                self._pause(record, "time")
                return
            await asyncio.sleep(left_ms / 1000)

    def _clocked(self, record: Delegation, steps: int = 0, *, commit: bool = True) -> Usage:
        """``record.usage`` with the time run since the clock last started and ``steps``.

        With ``commit`` the clock restarts from now: the caller saves the result, so the
        time moves from the clock into the record and is never counted twice or lost.
        """
        live = self._live.get(record.id)
        elapsed = 0
        if live is not None and live.since is not None:
            now = time.monotonic()
            elapsed = int((now - live.since) * 1000)
            if commit:
                live.since = now
        return replace(
            record.usage, time_ms=record.usage.time_ms + elapsed, steps=record.usage.steps + steps
        )

    # -- pausing and deciding ---------------------------------------------------------

    def _pause(self, record: Delegation, limit: str) -> None:
        """Pause ``record`` and all work below it; ask the person above whether to go on."""
        record = self.journal.get(record.id) or record
        if record.status == "paused":
            return
        now = time.time()
        self._freeze(record)
        paused = self._save(
            record,
            status="paused",
            usage=self._clocked(record),
            pause=Pause(limit, None, None, now),  # type: ignore[arg-type]
        )
        self._stop_clock(record.id)
        for below in self._open_below(paused):
            if below.status in ("running", "queued"):
                self._pause_below(below, paused, limit)
        live = self._live.setdefault(paused.id, _Live())
        live.waiter = self._spawn(self._decide_pause(paused), f"decide {paused.id}")

    def _pause_below(self, record: Delegation, at: Delegation, limit: str) -> None:
        """``record`` waits for the decision about ``at``, the work above it at a limit."""
        self._freeze(record)
        self._save(
            record,
            status="paused",
            usage=self._clocked(record),
            pause=Pause(limit, None, at.id, time.time()),  # type: ignore[arg-type]
        )
        self._stop_clock(record.id)

    def _freeze(self, record: Delegation) -> None:
        live = self._live.setdefault(record.id, _Live())
        live.resume.clear()

    def _stop_clock(self, delegation_id: str) -> None:
        live = self._live.get(delegation_id)
        if live is None:
            return
        live.since = None
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None

    async def _decide_pause(self, record: Delegation) -> None:
        """One request for the person; allow resumes, deny or ask cancel the tree."""
        assert record.pause is not None
        limit = record.pause.limit
        used = record.used().to_json()
        summary = (
            f"{record.bot}'s work hit its {limit} limit: {record.task[:100]} "
            f"(used {used}, limits {record.limits.to_json()}). Continue?"
        )
        decision = await self.engine.approvals.ask(
            self.root_chat(record.parent.chat),
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
            timeout=self.engine.settings.delegation.approval_timeout,
            on_request=lambda request_id: self._note_request(record.id, request_id),
        )
        current = self.journal.get(record.id)
        if current is None or current.status != "paused":
            return
        if decision.allowed:
            self._resume(current, decision)
            return
        if decision.question:
            await self.cancel(current.id, by="human", question=decision.question)
        else:
            await self.cancel(current.id, by="human", why=f"stopped at its {limit} limit")

    def _note_request(self, delegation_id: str, request_id: str) -> None:
        record = self.journal.get(delegation_id)
        if record is not None and record.pause is not None:
            self._save(record, pause=replace(record.pause, request=request_id))

    def _resume(self, record: Delegation, decision: Decision) -> None:
        """Allowed: the limits restart from now; the reason reaches the task chat.

        Work above that is still paused keeps this work waiting with it. After a restart
        nothing runs in the task chats any more, so each resumed one is told to pick up
        where it stopped; work whose turn already ended during the pause ends now.
        """
        restarted = record.pause is not None and record.pause.limit == "restart"
        above = self._paused_above(record)
        if above is not None:  # allowed here, but the work above still waits on a person
            assert record.pause is not None
            held = replace(record.pause, delegation=above.id, request=None)
            self._save(record, pause=held, window=record.usage)  # its limits restart anyway
            for work in self._open_below(record):
                if work.pause is not None and work.pause.delegation == record.id:
                    self._save(work, pause=replace(work.pause, delegation=above.id))
            return
        resumed = self._save(record, status="running", pause=None, window=record.usage)
        self._run_clock(resumed)
        woken = [resumed]
        for below in self._open_below(resumed):
            if below.status == "paused" and below.pause and below.pause.delegation == record.id:
                if below.chat is None:  # queued when the pause came: it starts now
                    self._start(self._save(below, status="queued", pause=None))
                    continue
                woken.append(self._save(below, status="running", pause=None))
                self._run_clock(woken[-1])
        if decision.reason and resumed.chat:
            self._deliver_to_task(resumed, f"[tuibot] You may continue. {decision.reason}")
        for work in woken:
            if work.chat is None or self.engine.busy(work.chat):
                continue
            if restarted:
                message = "[tuibot] tuibot was restarted; continue the task where you left off."
                self._send(work.chat, message)
            elif self._live[work.id].last_turn is not None:
                self._spawn(self._maybe_end(work.id), f"end? {work.id}")

    def _paused_above(self, record: Delegation) -> Delegation | None:
        """The topmost paused work above ``record``, if any."""
        found = None
        current = self.working_in(record.parent.chat)
        seen: set[str] = set()
        while current is not None and current.id not in seen:
            seen.add(current.id)
            if current.status == "paused":
                found = current
            current = self.working_in(current.parent.chat)
        return found

    def _run_clock(self, record: Delegation) -> None:
        live = self._live.setdefault(record.id, _Live())
        live.since = time.monotonic()
        live.resume.set()
        live.timer = self._spawn(self._deadline(record.id), f"deadline {record.id}")

    def _open_below(self, record: Delegation) -> list[Delegation]:
        return [d for d in self.tree(record.chat) if d.is_open] if record.chat else []

    # -- ending ----------------------------------------------------------------------

    def turn_finished(self, result: TurnFinished) -> None:
        """After a turn of a task chat: end the work if nothing is left open."""
        if self.closing:
            return
        record = self.working_in(result.chat)
        if record is not None and record.is_open:
            live = self._live.setdefault(record.id, _Live())
            live.last_turn = result
            if not live.stopping:  # arrived after the turn's last step: a turn of its own
                for message in live.inbox:
                    self._send(result.chat, message)
            live.inbox.clear()
            if record.status == "running":
                self._spawn(self._maybe_end(record.id), f"end? {record.id}")
        self._changed()

    async def _maybe_end(self, delegation_id: str) -> None:
        await asyncio.sleep(0)  # let the engine settle the turn's inbox first
        record = self.journal.get(delegation_id)
        live = self._live.get(delegation_id)
        if record is None or record.status != "running" or record.chat is None or live is None:
            return
        if live.stopping or self.closing:
            return
        if self.has_open_work(record.chat) or live.last_turn is None:
            return
        last = live.last_turn
        if last.status == "completed":
            status, text, says = "completed", last.text, "is done.\n\nResult:\n"
        elif last.status == "cancelled":
            status, text, says = "cancelled", "The work was stopped.", "was stopped."
        else:
            error = last.error or last.status
            status, text, says = "failed", error, "has failed.\n\nError:\n"
        usage = self._clocked(record)
        self._stop_clock(record.id)
        ended = self._save(record, status=status, result=text, usage=usage)
        self._forget(record.id)
        self._tell_giver(ended, says + (text if status != "cancelled" else ""))

    async def cancel(
        self, delegation_id: str, *, by: str, why: str = "", question: str | None = None
    ) -> Delegation:
        """Stop the work and everything below it; the giver hears unless its bot did it.

        ``by`` is ``bot`` (the giver's own tool: no notice) or ``human``. The work's own
        turn is stopped first (so it gives no new work meanwhile), then everything below,
        layer by layer; the record says ``cancelled`` only once all of it has stopped.
        A second cancel of the same work does nothing.
        """
        record = self.journal.get(delegation_id)
        if record is None:
            raise DelegationRefused(f"no delegation {delegation_id}")
        live = self._live.setdefault(record.id, _Live())
        if not record.is_open or live.stopping:
            return record
        live.stopping = True
        live.resume.clear()
        if record.chat:
            await self.engine.stop_chat(record.chat)
        for below in reversed(self._open_below(record)):
            await self._stop(below, "stopped because the work above it was cancelled")
        saved = await self._stop(record, why or f"cancelled by the {by}")
        final = self.journal.get(record.id) or record
        if by == "human" and saved:  # a bot, an interrupt or a delete: the giver knows
            if question:
                self._tell_giver(final, f"was stopped. The person asks:\n\n{question}")
            else:
                self._tell_giver(final, f"was stopped ({why or 'cancelled by a person'}).")
        return final

    async def cancel_given_by(self, chat: str, *, by: str) -> list[Delegation]:
        """Cancel every open delegation ``chat`` gave (interrupt with delegations, delete)."""
        return [await self.cancel(d.id, by=by) for d in self.journal.children(chat) if d.is_open]

    async def _stop(self, record: Delegation, why: str) -> bool:
        """Stop one piece of work; True when this call recorded it as cancelled."""
        live = self._live.setdefault(record.id, _Live())
        live.stopping = True
        live.resume.clear()
        if live.waiter is not None and live.waiter is not asyncio.current_task():
            live.waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await live.waiter
        usage = self._clocked(self.journal.get(record.id) or record)
        self._stop_clock(record.id)
        if record.chat:
            await self.engine.stop_chat(record.chat)
        current = self.journal.get(record.id) or record
        saved = current.is_open
        if saved:
            usage = replace(current.usage, time_ms=max(usage.time_ms, current.usage.time_ms))
            self._save(current, status="cancelled", result=why, usage=usage)
        live.resume.set()  # release anything still waiting; it sees the end and stops
        self._forget(record.id)
        return saved

    def _forget(self, delegation_id: str) -> None:
        """Drop what only running work needs, once the work has ended."""
        self._recent_calls.pop(delegation_id, None)
        live = self._live.get(delegation_id)
        if live is not None:
            live.last_turn = None
            live.inbox.clear()

    def _tell_giver(self, record: Delegation, says: str) -> None:
        """The result notice, through the giver chat's inbox (a late one only goes in history)."""
        text = f"[tuibot] The work {record.id} that you gave to {record.bot} {says}".rstrip()
        giver_chat = record.parent.chat
        above = self.working_in(giver_chat)
        if above is not None and not above.is_open:
            self.engine.note_in_history(giver_chat, text)  # late: no new round by itself
            return
        self._send(giver_chat, text)

    # -- restart --------------------------------------------------------------------

    def recover(self, root_chat: str | None = None) -> list[Delegation]:
        """Pick up work left open by an earlier run: running comes back paused, queued starts.

        ``root_chat`` limits this to work below one chat (what ``ask --chat`` resumes);
        None recovers everything (the TUI, headless mode).
        """
        records = self.tree(root_chat) if root_chat else self.journal.all()
        recovered: list[Delegation] = []
        held: dict[str, str] = {}
        """Task chat of work paused here → the id of the topmost paused work above it."""
        for record in sorted(records, key=lambda r: r.created):
            if not record.is_open or record.id in self._live:
                continue
            if record.chat:
                self._by_chat[record.chat] = record.id
            top = held.get(record.parent.chat)
            if record.status in ("running", "paused"):
                if top is not None or (record.pause is not None and record.pause.delegation):
                    above = top or (record.pause.delegation if record.pause else None)
                    paused = self._save(
                        record,
                        status="paused",
                        pause=Pause("restart", None, above, time.time()),
                    )
                    self._freeze(paused)
                else:
                    paused = self._save(
                        record, status="paused", pause=Pause("restart", None, None, time.time())
                    )
                    self._freeze(paused)
                    self._live[paused.id].waiter = self._spawn(
                        self._decide_pause(paused), f"decide {paused.id}"
                    )
                    top = paused.id
                if paused.chat:
                    held[paused.chat] = top or paused.id
                recovered.append(paused)
            elif record.status == "queued" and top is None:
                self._start(record)
                recovered.append(record)
            elif record.status == "authorizing":
                self._watch_authorization(record)
                recovered.append(record)
        return recovered

    # -- plumbing -------------------------------------------------------------------

    def root_chat(self, chat: str) -> str:
        """The person's chat at the top of the tree ``chat`` belongs to."""
        return self._path_up(chat)[-1]

    def _path_up(self, chat: str) -> list[str]:
        """``chat`` and the chats above it, up to the person's chat at the top."""
        path = [chat]
        record = self.working_in(chat)
        while record is not None and record.parent.chat not in path:
            path.append(record.parent.chat)
            record = self.working_in(record.parent.chat)
        return path

    def _save(self, record: Delegation, **changes: Any) -> Delegation:
        """Write a change on top of the latest revision and tell the front ends."""
        current = self.journal.get(record.id) or record
        saved = self.journal.update(replace(current, **changes), expected_rev=current.rev)
        self._publish(saved)
        return saved

    def _report(self, text: str) -> None:
        log.error("delegation: %s", text)
        self.engine.events.publish(Notice("", "error", f"delegation: {text}"))

    def _publish(self, record: Delegation) -> None:
        self.engine.events.publish(DelegationChanged(record.parent.chat, record.to_json()))
        self._changed()

    def _changed(self) -> None:
        """Wake whoever waits for a chat to settle; they look again."""
        pulse, self._pulse = self._pulse, None
        if pulse is not None and not pulse.done():
            pulse.set_result(None)

    def _spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(self._guard(coro, name), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _: coro.close())  # cancelled before it ran: no warning
        return task

    async def _guard(self, coro: Any, name: str) -> Any:
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("delegation task %s failed", name)
            self.engine.events.publish(Notice("", "error", f"delegation: {name}: {error}"))

    async def close(self) -> None:
        """Stop timers and waiters (records stay as they are: a restart recovers them)."""
        self.closing = True
        for delegation_id, live in self._live.items():
            record = self.journal.get(delegation_id)
            if live.since is None or record is None or not record.is_open:
                continue
            try:  # running time so far goes into the record before the clock stops
                self._save(record, usage=self._clocked(record))
            except (DelegationConflict, StorageError) as error:
                log.warning("time of %s not saved at shutdown: %s", delegation_id, error)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def describe(record: Delegation) -> str:
    """One line for lists: id, status, bot, usage against limits, task."""
    used, limits = record.used(), record.limits
    parts = [f"time {used.time_ms // 1000}/{limits.time_ms // 1000}s"]
    if limits.steps is not None:
        parts.append(f"steps {used.steps}/{limits.steps}")
    if limits.budget_micros is not None:
        parts.append(f"budget {used.cost_micros}/{limits.budget_micros}µ$")
    pause = f" [paused: {record.pause.limit}]" if record.pause else ""
    return f"{record.id}  {record.status:<11} {record.bot:<12} {', '.join(parts)}{pause}  " + (
        record.task.splitlines()[0][:60] if record.task else ""
    )
