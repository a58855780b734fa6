"""The composition root: one engine per process, under every front end.

Commands come in as plain async methods (:meth:`Engine.send`, :meth:`Engine.decide`,
:meth:`Engine.cancel`, :meth:`Engine.new_chat`); everything that happens goes out as
events on :attr:`Engine.events`. Turns run through the runner the front end gives (the
TUI's starts Textual workers grouped per chat; ``ask`` and tests use asyncio tasks).

Front ends read through :attr:`Engine.view` (frozen records, :mod:`tuibot.engine.view`).
The engine builds the parts and wires them; the work is theirs: turns in
:mod:`tuibot.engine.turns` (when) and :mod:`tuibot.engine.prepare` (what), providers and
clients in :mod:`tuibot.engine.providers` (a chat's model and route:
:mod:`tuibot.engine.routing`), memory in :mod:`tuibot.engine.memory`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from tuibot.approvals import ApprovalQueue, Decision
from tuibot.approvals.grants import GrantStore
from tuibot.bots import BotDirectory
from tuibot.delegation.journal import DelegationJournal
from tuibot.delegation.manager import DelegationManager
from tuibot.engine.commands import FrontEndCommands
from tuibot.engine.memory import MemoryKeeper
from tuibot.engine.providers import Providers
from tuibot.engine.routing import ModelRouting
from tuibot.engine.tool_sources import ToolSources
from tuibot.engine.turns import Cancellable, ChatState, Outcome, Runner, TurnRunner
from tuibot.engine.view import EngineView
from tuibot.events import (
    ChatWaiting,
    Event,
    EventStream,
    ReasoningDelta,
    TaskChanged,
    TextDelta,
    TurnFinished,
)
from tuibot.memory import MemoryStore
from tuibot.model_choice import model_command
from tuibot.settings import ProviderSettings, Settings
from tuibot.skills.catalog import SkillCatalog
from tuibot.skills.loader import default_roots
from tuibot.slash import SlashContext, is_command, run_command
from tuibot.store.chat_lock import ChatLocks, in_use_message
from tuibot.store.chats import ChatMeta, ChatStore
from tuibot.store.jsonl import LineProblem, StorageError
from tuibot.store.traces import TraceLog
from tuibot.system.paths import DataPaths
from tuibot.tasks import Task
from tuibot.tasks.board import TaskBoard
from tuibot.toolkit.registry import ToolRegistry

if TYPE_CHECKING:
    from tuibot.jobs.book import JobBook
    from tuibot.jobs.schedule import Clock
    from tuibot.jobs.work import ScheduledWork
    from tuibot.system.instance import Holder, InstanceLock

__all__ = ["Cancellable", "ChatState", "Engine", "Outcome", "Runner", "task_runner"]

log = logging.getLogger("tuibot.engine")


def task_runner(
    coro: Coroutine[Any, Any, None], group: str, description: str
) -> asyncio.Task[None]:
    """The runner for ``ask`` and tests: a plain asyncio task."""
    return asyncio.get_running_loop().create_task(coro, name=f"{group}: {description}")


class Engine(FrontEndCommands, ToolSources, ModelRouting):
    """Owns settings, storage, tools, approvals and model clients; runs turns.

    Front ends send commands through its methods (the small ones in
    :class:`~tuibot.engine.commands.FrontEndCommands`, a chat's model and route in
    :class:`~tuibot.engine.routing.ModelRouting`) and read through :attr:`view`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        paths: DataPaths | None = None,
        runner: Runner = task_runner,
        key_lookup: Callable[[ProviderSettings], str | None] | None = None,
    ) -> None:
        self.settings = settings
        self.paths = paths or DataPaths.default()
        self.events = EventStream()
        self.chats = ChatStore(self.paths.chats)
        self.chat_locks = ChatLocks(self.chats.path, self._chat_waiting)
        """One turn per chat across processes; front ends set its ``wait``."""
        self.bots = BotDirectory(settings, self.paths.bots)
        for problem in self.bots.problems:
            log.warning("created bots: %s", problem)
        self.tools = ToolRegistry()
        self.approvals = ApprovalQueue(
            self.events.publish,
            settings.tools.confirm_timeout,
            grants=GrantStore(self.paths.grants),
        )
        self.delegations = DelegationManager(self, DelegationJournal(self.paths.delegations))
        self.tasks = TaskBoard(
            self.paths.tasks,
            retention_s=settings.tasks.retention_hours * 3600,
            on_change=lambda task: self.events.publish(TaskChanged(task.chat, task.to_json())),
        )
        self._tasks_loaded = False
        self.events.listen(self._track_task, deltas=False)  # nothing for it per token
        try:
            self._journal_problems: list[LineProblem] = self.delegations.journal.load()
        except StorageError as error:  # reported with the tools' notices; writes will fail
            self._journal_problems = [LineProblem(0, "", str(error))]
        self.traces = TraceLog(self.paths.traces)
        self.providers = Providers(
            lambda: self.settings, self.paths.root / "windows.json", key_lookup
        )
        """Routes, keys, one client per provider, context windows."""
        self.windows = self.providers.windows
        """Each model's context window, cached on disk (see docs/context.md)."""
        self.tokens = self.providers.tokens
        self.skills = SkillCatalog(
            default_roots(), self._skill_problems, self.paths.cache / "skills.json"
        )
        self._background: set[asyncio.Task[Any]] = set()
        """Consolidations and late notes running after their turns; cancelled on close."""
        self.memory = MemoryKeeper(
            self.paths.memory,
            lambda: self.settings,
            self.chats,
            self.events,
            self.providers,
            self._spawn,
        )
        self.turns = TurnRunner(self, runner, self._spawn)
        """Each chat's inbox and lock; runs its turns one after another."""
        self._jobs: JobBook | None = None
        self.scheduled: ScheduledWork | None = None
        self._instance: InstanceLock | None = None
        self.view = EngineView(self)
        """What front ends read: frozen records (:mod:`tuibot.engine.view`)."""

    @property
    def jobs(self) -> JobBook:
        """Scheduled jobs: every process edits them; only :meth:`start_jobs` runs them.

        Made on first use, so a run that never schedules (a plain ``ask``) never imports them.
        """
        if self._jobs is None:
            from tuibot.jobs.book import JobBook
            from tuibot.jobs.store import JobStore

            self._jobs = JobBook(
                JobStore(self.paths.jobs),
                self.bots,
                self.settings.jobs,
                chat_exists=self.chats.exists,
            )
        return self._jobs

    # -- lifecycle -------------------------------------------------------------------

    def claim_instance(self, mode: str) -> Holder | None:
        """Take the single-instance lock (``mode``: ``tui`` or ``headless``).

        None when this process now holds it and may recover earlier work and run
        scheduled work; otherwise the live process that holds it.
        """
        from tuibot.system.instance import InstanceLock

        lock = InstanceLock(self.paths.lock)
        holder = lock.acquire(mode)
        if holder is None:
            self._instance = lock
            if lock.replaced is not None:
                log.warning("replaced a stale lock of pid %s (not running)", lock.replaced.pid)
        return holder

    def start_jobs(self, clock: Clock | None = None) -> ScheduledWork:
        """Run scheduled jobs and the heartbeat in this loop until :meth:`close`.

        Call it after ``load_tools`` and only while holding the instance lock
        (:meth:`claim_instance`), so no job runs in two processes.
        """
        from tuibot.jobs import work
        from tuibot.jobs.schedule import SystemClock

        if self._instance is None:
            raise RuntimeError("start_jobs needs the instance lock: call claim_instance first")
        if self.scheduled is None:
            self.scheduled = work.start(self, clock or SystemClock())
        return self.scheduled

    def _track_task(self, event: Event) -> None:
        """Keep the task board up to date; its file is read on the first event, not at start."""
        if isinstance(event, TextDelta | ReasoningDelta | TaskChanged):
            return  # the hot path while streaming: nothing for the board
        if self.delegations.closing and isinstance(event, TurnFinished):
            return  # shutting down: what was running stays "doing" for the next start
        if not self._tasks_loaded:
            self._tasks_loaded = True
            try:
                self.tasks.load()
            except StorageError as error:
                log.warning("task board not loaded: %s", error)
        self.tasks.on_event(event)

    def recover_tasks(self) -> list[Task]:
        """Tasks left ``doing`` by an earlier run, now ``todo`` (for the front end to offer
        again); call only when no other tuibot uses the same data folder."""
        if not self._tasks_loaded:
            self._tasks_loaded = True
            self.tasks.load()
        return self.tasks.recover()

    async def close(self) -> None:
        """Cancel running turns and close model connections.

        Delegated work is left as recorded (running stays running) for the next start
        to recover, rather than ended by its turns being stopped.
        """
        self.delegations.begin_closing()
        if self.scheduled is not None:
            await self.scheduled.stop()
            self.jobs.detach()
        with contextlib.suppress(StorageError):
            self.tasks.flush()
        reloader = getattr(self, "tool_reloader", None)
        if reloader is not None:
            await reloader.stop()
        if (watcher := getattr(self, "mcp_watcher", None)) is not None:
            await watcher.stop()
        if (mcp := getattr(self, "mcp", None)) is not None:
            await mcp.close()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.delegations.close()
        # Let cancelled turns store their partial answers before the clients close.
        await self.turns.stop_all()
        await self.providers.close()
        self.events.close()
        if self._instance is not None:
            self._instance.release()

    # -- commands in -----------------------------------------------------------------

    def new_chat(
        self, *, bot: str | None = None, title: str = "", model: str = "", provider: str = ""
    ) -> ChatMeta:
        """Create an empty direct chat; naming a bot pins the chat to it (no routing).

        ``model``/``provider``: a checked choice (:meth:`draft_chat`), kept in the header.
        Raises ``BotError`` for a bot that does not exist.
        """
        draft = self.draft_chat(bot=bot)
        return self.chats.create(
            kind="direct",
            bot=draft.bot,
            title=title,
            pinned=draft.pinned,
            model=model,
            provider=provider,
        )

    def draft_chat(self, *, bot: str | None = None) -> ChatMeta:
        """What :meth:`new_chat` would make, not saved: for checking a model choice first.

        Raises ``BotError`` for a bot that does not exist.
        """
        chosen = self.bots.default if bot is None else self.bots.require(bot)
        return ChatMeta("", "direct", chosen.name, "", 0.0, 0.0, pinned=bot is not None)

    async def send(self, chat: str, text: str) -> asyncio.Future[Outcome]:
        """Give a chat input; the future resolves when its turn (or command) is done.

        Slash commands run at once, outside the turn lock. Other input waits in the
        chat's inbox until earlier turns of that chat have ended.
        """
        if is_command(text):
            future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
            output = await run_command(self._slash_context(), chat, text)
            self.events.publish(output)
            future.set_result(output)
            return future
        self.delegations.new_round(chat)  # a person writing into ended task work
        return self.post(chat, text)

    def post(self, chat: str, text: str, *, notice: bool = False) -> asyncio.Future[Outcome]:
        """Put input into the chat's inbox now (no await, so no gap in ``busy``).

        ``notice`` marks tuibot's own messages (a task, a delegation's result): stored
        as such, never read as a command.
        """
        return self.turns.post(chat, text, notice=notice)

    def queued(self, chat: str) -> list[str]:
        """Inputs of a chat still waiting for their turn."""
        return self.turns.queued(chat)

    def decide(self, request_id: str, decision: Decision) -> bool:
        """Answer a pending approval request."""
        return self.approvals.decide(request_id, decision)

    def cancel(self, chat: str, *, delegations: bool = False) -> bool:
        """Interrupt the chat's running turn; queued input still runs afterwards.

        With ``delegations`` the work the chat gave is cancelled too, layer by layer;
        a plain interrupt leaves it running.
        """
        if delegations:
            self._spawn(self.delegations.cancel_given_by(chat, by="interrupt"), f"{chat}: cancel")
        return self.turns.interrupt(chat) or delegations

    async def delete_chat(self, chat: str) -> None:
        """Delete a chat: its delegations are cancelled and its turns stopped first."""
        await self.delegations.cancel_given_by(chat, by="delete")
        await self.stop_chat(chat)
        self.chats.delete(chat)

    def busy(self, chat: str) -> bool:
        """Whether the chat has a turn running or input waiting for one."""
        return self.turns.busy(chat)

    async def stop_chat(self, chat: str) -> None:
        """Cancel the chat's running and queued turns and wait until they have stopped."""
        await self.turns.stop_chat(chat)

    def note_in_history(self, chat: str, text: str) -> None:
        """Put a notice into a chat's history without starting a turn (a late result).

        It goes in between turns, never into one (of this process or another), where it
        would split a tool call from its results: now when the chat is free, else later.
        """
        self.turns.note_in_history(chat, text)

    async def compact_chat(self, chat: str, instructions: str = "") -> tuple[bool, str]:
        """``/compact``: summarise the chat's older turns now, under its turn lock."""
        async with self.turns.state(chat).lock:
            return await self.turns.builder.compact(chat, instructions)

    def _slash_context(self) -> SlashContext:
        """What slash commands may use."""
        return SlashContext(
            tools=self.tools,
            scope=self.settings.tool_scope(),
            new_chat=lambda: self.new_chat().id,
            compact=self.compact_chat,
            prompts=getattr(self, "mcp", None),
            model=lambda chat, name, args: model_command(self, chat, name, args),
        )

    def _chat_waiting(self, chat: str, holder: Holder) -> None:
        """Tell the front end that a turn waits for a chat another process holds."""
        self.events.publish(ChatWaiting(chat, "warning", in_use_message(chat, holder), holder.pid))

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> asyncio.Task[Any]:
        """Run ``coro`` in the background until it ends or :meth:`close` cancels it."""
        task = asyncio.get_running_loop().create_task(coro, name=name or None)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # -- parts, for collaborators ----------------------------------------------------

    def memory_for(self, bot: str) -> MemoryStore:
        """The bot's memory store (one per bot, so saves from parallel calls serialise)."""
        return self.memory.memory_for(bot)
