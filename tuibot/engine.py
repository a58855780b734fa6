"""The composition root: one engine per process, under every front end.

Commands come in as plain async methods (:meth:`Engine.send`, :meth:`Engine.decide`,
:meth:`Engine.cancel`, :meth:`Engine.new_chat`); everything that happens goes out as
events on :attr:`Engine.events`. Turns run through the runner the front end gives (the
TUI's starts Textual workers grouped per chat; ``ask`` and tests use asyncio tasks).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tuibot.agent.context import build_system_prompt
from tuibot.agent.loop import Turn, run_turn
from tuibot.agent.prepare import CompactTarget, compact_now, context_for
from tuibot.agent.repeats import RepeatGuard
from tuibot.agent.tokens import TokenCounter
from tuibot.approvals import ApprovalQueue, Decision
from tuibot.bots import Bot, BotDirectory
from tuibot.delegation.journal import DelegationJournal
from tuibot.delegation.manager import DelegationManager
from tuibot.delegation.tools import BUILTIN_TOOLS
from tuibot.events import (
    ChatWaiting,
    CommandOutput,
    Event,
    EventStream,
    Notice,
    NoticeLevel,
    ReasoningDelta,
    TaskChanged,
    TextDelta,
    TurnFinished,
    TurnStarted,
)
from tuibot.grants import GrantStore
from tuibot.jobs.book import JobBook
from tuibot.jobs.store import JobStore
from tuibot.llm.parts import ModelClient
from tuibot.llm.select import Route, make_client, needs_key, select_route
from tuibot.llm.windows import WindowBook
from tuibot.memory import MemoryStore, MemoryStoreError, memory_path
from tuibot.model_choice import Listing, chat_model, choose, model_command
from tuibot.model_choice import listing as model_listing
from tuibot.paths import DataPaths, config_home
from tuibot.permissions import Permission, permission_details, request_summary
from tuibot.settings import ConfigError, ProviderSettings, Settings
from tuibot.skills.catalog import SkillCatalog
from tuibot.skills.loader import SkillProblem, default_roots
from tuibot.slash import SlashContext, is_command, run_command
from tuibot.store.chat_lock import ChatInUse, ChatLocks, in_use_message
from tuibot.store.chat_message import ChatMessage
from tuibot.store.chats import ChatMeta, ChatNotFound, ChatStore
from tuibot.store.jsonl import LineProblem, StorageError
from tuibot.store.traces import TraceLog
from tuibot.tasks import Task, TaskBoard
from tuibot.toolkit.registry import ToolRegistry
from tuibot.toolkit.scope import ToolScope

if TYPE_CHECKING:
    from tuibot.instance import Holder, InstanceLock
    from tuibot.jobs.schedule import Clock
    from tuibot.jobs.work import ScheduledWork

log = logging.getLogger("tuibot.engine")


class Cancellable(Protocol):
    """What a runner hands back: an asyncio Task, or a worker handle with ``cancel()``,
    ``wait()`` and ``add_done_callback()`` (see ``tuibot.tui.runner``)."""

    def cancel(self) -> Any:
        """Stop the work."""
        ...


async def _ended(handle: Cancellable) -> None:
    """Wait for a cancelled handle to finish: an asyncio Task, or one with ``wait()``."""
    if isinstance(handle, asyncio.Task):
        await handle
    elif callable(wait := getattr(handle, "wait", None)):
        await wait()


Runner = Callable[[Coroutine[Any, Any, None], str, str], Cancellable]
"""(coroutine, group, description) -> a handle that can cancel it."""


def task_runner(
    coro: Coroutine[Any, Any, None], group: str, description: str
) -> asyncio.Task[None]:
    """The runner for ``ask`` and tests: a plain asyncio task."""
    return asyncio.get_running_loop().create_task(coro, name=f"{group}: {description}")


Outcome = TurnFinished | CommandOutput


@dataclass
class ChatState:
    """What the engine tracks for a chat while it runs."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    inbox: list[str] = field(default_factory=list)
    """Inputs waiting for the running turn to end, in order."""
    running: asyncio.Task[Any] | None = None
    """The task running the chat's current turn."""
    handles: set[Any] = field(default_factory=set)
    """Every started turn of the chat, running or waiting, so closing stops them all."""


class Engine:
    """Owns settings, storage, tools, approvals and model clients; runs turns."""

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
        self.events.listen(self._track_task)
        try:
            self._journal_problems: list[Any] = self.delegations.journal.load()
        except StorageError as error:  # reported with the tools' notices; writes will fail
            self._journal_problems = [LineProblem(0, "", str(error))]
        self.traces = TraceLog(self.paths.traces)
        self._runner = runner
        self._key_lookup = key_lookup or self._keyring_lookup
        self._key_problem = ""
        self._keys: dict[str, str | None] = {}
        self._clients: dict[str, ModelClient] = {}
        self._prompt_tools: set[str] = set()
        """Providers that refused native tools; their turns get the tools in the prompt."""
        self.windows = WindowBook(
            self.paths.root / "windows.json",
            settings.agent.default_context_window,
            key=lambda provider: self._key_lookup(provider),
        )
        """Each model's context window, cached on disk (see docs/context.md)."""
        self.tokens = TokenCounter()
        self._states: dict[str, ChatState] = {}
        self.skills = SkillCatalog(default_roots(), self._skill_problems)
        self._memories: dict[str, MemoryStore] = {}
        self._background: set[asyncio.Task[None]] = set()
        """Consolidations running after their turns; cancelled on close."""
        self._consolidating: set[str] = set()
        self.jobs = JobBook(
            JobStore(self.paths.jobs), self.bots, settings.jobs, chat_exists=self.chats.exists
        )
        """Scheduled jobs: every process edits them; only :meth:`start_jobs` runs them."""
        self.scheduled: ScheduledWork | None = None
        self._instance: InstanceLock | None = None

    # -- lifecycle -------------------------------------------------------------------

    def load_tools(self, *, lazy_mcp: bool = False) -> None:
        """Load bundled tools, then the user's (a user tool overrides a bundled one).

        MCP servers start in the background now, or with ``lazy_mcp`` (one-shot ``ask``)
        on their first call, so a run that calls none never pays for starting them.
        """
        from tuibot.delegation.tools import delegation_tools
        from tuibot.jobs.tool import cron_tool
        from tuibot.toolkit.catalog import ToolCatalog, default_folders
        from tuibot.toolkit.state import state_path

        self.tool_catalog = ToolCatalog(
            self.tools,
            default_folders(),
            state_path(),
            self._tool_notice,
            builtins=[*delegation_tools(), cron_tool()],
            import_timeout=self.settings.tools.import_timeout,
        )
        self.tool_catalog.load_all()
        self._start_mcp(lazy_mcp)
        for problem in self._journal_problems:
            self._tool_notice(
                "warning", f"delegation journal: set aside line {problem.line}: {problem.reason}"
            )
        self._journal_problems = []

    def _start_mcp(self, lazy: bool) -> None:
        """Offer the MCP servers' cached tools now; connect them in the background."""
        if not self.settings.mcp.servers:
            return  # nothing to import or start
        from tuibot.mcp.manager import McpManager, keyring_secret

        self.mcp = McpManager(
            self.settings.mcp.servers,
            self.paths.mcp,
            cwd=self.settings.cwd,
            publish=self.tool_catalog.set_extra,
            notify=self._tool_notice,
            secret=keyring_secret,
        )
        self.mcp.offer_cached()
        with contextlib.suppress(RuntimeError):  # no loop (a sync caller): cached tools only
            asyncio.get_running_loop()
            if not lazy:
                self.mcp.start()

    def start_reloader(self) -> None:
        """Hot-reload tools, the tool state file and skills (after ``load_tools``, in a loop)."""
        from tuibot.toolkit.reload import ToolReloader

        skill_folders = [(folder, self.skills.current) for _, folder in self.skills.roots]
        self.tool_reloader = ToolReloader(self.tool_catalog, also=skill_folders)
        self.tool_reloader.start()

    def claim_instance(self, mode: str) -> Holder | None:
        """Take the single-instance lock (``mode``: ``tui`` or ``headless``).

        None when this process now holds it and may recover earlier work and run
        scheduled work; otherwise the live process that holds it.
        """
        from tuibot.instance import InstanceLock

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

    def _tool_notice(self, level: NoticeLevel, text: str) -> None:
        """How the tool catalogue and reloader report (the tool log shows these)."""
        self.events.publish(Notice("", level, text))

    def _skill_problems(self, problems: list[SkillProblem]) -> None:
        """Skipped skills, reported each time the skill folders change."""
        for problem in problems:
            where = f"{problem.path}:{problem.line}" if problem.line else str(problem.path)
            self.events.publish(Notice("", "warning", f"skill skipped: {where}: {problem.reason}"))

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
        if (mcp := getattr(self, "mcp", None)) is not None:
            await mcp.close()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.delegations.close()
        handles = [handle for state in self._states.values() for handle in state.handles]
        for handle in handles:
            handle.cancel()
        # Let cancelled turns store their partial answers before the clients close.
        await asyncio.gather(*(_ended(handle) for handle in handles), return_exceptions=True)
        for client in self._clients.values():
            await client.close()
        self._clients.clear()
        self.events.close()
        if self._instance is not None:
            self._instance.release()

    # -- commands in -----------------------------------------------------------------

    def new_chat(self, *, bot: str | None = None, title: str = "") -> ChatMeta:
        """Create an empty direct chat; naming a bot pins the chat to it (no routing).

        Raises ``BotError`` for a bot that does not exist.
        """
        if bot is None:
            return self.chats.create(kind="direct", bot=self.bots.default.name, title=title)
        chosen = self.bots.require(bot)
        return self.chats.create(kind="direct", bot=chosen.name, title=title, pinned=True)

    def pin_chat(self, chat: str, bot: str | None) -> ChatMeta:
        """Pin a direct chat to ``bot`` (no routing), or unpin it with None.

        Raises ``BotError`` for a bot that does not exist, ``ValueError`` for a task chat
        (task chats always belong to the bot doing the work).
        """
        meta = next((m for m in self.chats.list() if m.id == chat), None)
        if meta is None:
            raise ChatNotFound(f"no chat {chat!r}")
        if meta.kind == "task":
            raise ValueError("a task chat belongs to the bot doing the work; it cannot be pinned")
        if bot is None:
            self.chats.set_bot(chat, meta.bot, pinned=False)
        else:
            self.chats.set_bot(chat, self.bots.require(bot).name, pinned=True)
        return replace(meta, bot=bot or meta.bot, pinned=bot is not None)

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
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        state = self._states.setdefault(chat, ChatState())
        state.inbox.append(text)
        coro = self._turn(chat, state, text, future, notice)
        handle = self._runner(coro, chat, f"turn: {text[:40]}")
        state.handles.add(handle)
        on_done = getattr(handle, "add_done_callback", None)
        if on_done is not None:  # a task cancelled before it ran never enters _turn
            on_done(lambda _: self._abandon(chat, state, text, future))
        future.add_done_callback(lambda _: state.handles.discard(handle))
        return future

    def queued(self, chat: str) -> list[str]:
        """Inputs of a chat still waiting for their turn."""
        state = self._states.get(chat)
        return list(state.inbox) if state else []

    def decide(self, request_id: str, decision: Decision) -> bool:
        """Answer a pending approval request."""
        return self.approvals.decide(request_id, decision)

    def cancel(self, chat: str, *, delegations: bool = False) -> bool:
        """Interrupt the chat's running turn; queued input still runs afterwards.

        With ``delegations`` the work the chat gave is cancelled too, layer by layer;
        a plain interrupt leaves it running.
        """
        if delegations:
            self._spawn(self.delegations.cancel_given_by(chat, by="interrupt"))
        state = self._states.get(chat)
        if state is None or state.running is None:
            return delegations
        state.running.cancel()
        return True

    async def delete_chat(self, chat: str) -> None:
        """Delete a chat: its delegations are cancelled and its turns stopped first."""
        await self.delegations.cancel_given_by(chat, by="delete")
        await self.stop_chat(chat)
        self.chats.delete(chat)

    def busy(self, chat: str) -> bool:
        """Whether the chat has a turn running or input waiting for one."""
        state = self._states.get(chat)
        return state is not None and (
            state.running is not None or bool(state.inbox) or state.lock.locked()
        )

    async def stop_chat(self, chat: str) -> None:
        """Cancel the chat's running and queued turns and wait until they have stopped."""
        state = self._states.get(chat)
        if state is None:
            return
        handles = list(state.handles)
        for handle in handles:
            handle.cancel()
        current = asyncio.current_task()  # a turn stopping its own chat must not wait on itself
        others = [h for h in handles if current not in (h, getattr(h, "task", None))]
        await asyncio.gather(*(_ended(handle) for handle in others), return_exceptions=True)

    def note_in_history(self, chat: str, text: str) -> None:
        """Put a notice into a chat's history without starting a turn (a late result).

        It goes in between turns, never into one (of this process or another), where it
        would split a tool call from its results: now when the chat is free, else later.
        """
        message: ChatMessage = {"role": "user", "content": text, "notice": True}
        state = self._states.get(chat)
        if state is None or not state.lock.locked():
            with self.chat_locks.hold_if_free(chat) as free:
                if free:
                    self.chats.append(chat, [message])
                    return
        self._spawn(self._note_between_turns(chat, message))

    async def _note_between_turns(self, chat: str, message: ChatMessage) -> None:
        """Append ``message`` once the running turn (here or elsewhere) has ended."""
        state = self._states.setdefault(chat, ChatState())
        try:
            async with state.lock, self.chat_locks.hold(chat):
                self.chats.append(chat, [message])
        except (ChatInUse, ChatNotFound, StorageError) as error:
            self.events.publish(Notice(chat, "warning", f"a late notice was not stored: {error}"))

    def _chat_waiting(self, chat: str, holder: Holder) -> None:
        """Tell the front end that a turn waits for a chat another process holds."""
        self.events.publish(ChatWaiting(chat, "warning", in_use_message(chat, holder), holder.pid))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- turns -----------------------------------------------------------------------

    async def _turn(
        self,
        chat: str,
        state: ChatState,
        text: str,
        future: asyncio.Future[Outcome],
        notice: bool = False,
    ) -> None:
        """Run one input's turn under the chat's lock and resolve its future."""
        try:
            await state.lock.acquire()
        except asyncio.CancelledError:
            self._abandon(chat, state, text, future)
            raise
        state.inbox.remove(text)
        state.running = asyncio.current_task()  # an interrupt also ends a wait for the chat
        try:
            async with self.chat_locks.hold(chat):  # and across processes
                await self._locked_turn(chat, state, text, future, notice)
        except ChatInUse as error:
            failed = self._failure(chat, "", str(error), "busy")
            self._finish(failed, None, text, time.time(), future)
        except asyncio.CancelledError:  # while waiting for another process: never started
            self._abandon(chat, state, text, future)
            raise
        finally:
            state.running = None
            state.lock.release()
            if not future.done():  # never leave a caller waiting, whatever happened
                future.set_exception(RuntimeError("the turn ended without a result"))

    def _abandon(
        self, chat: str, state: ChatState, text: str, future: asyncio.Future[Outcome]
    ) -> None:
        """Settle an input whose turn was cancelled before it began (queued, or unstarted)."""
        if future.done():
            return
        if text in state.inbox:
            state.inbox.remove(text)
        future.set_result(
            TurnFinished(chat, "", "cancelled", "", error="Cancelled before the turn started.")
        )

    async def _locked_turn(
        self,
        chat: str,
        state: ChatState,
        text: str,
        future: asyncio.Future[Outcome],
        notice: bool = False,
    ) -> None:
        """The turn itself; the caller holds the chat's lock."""
        state.running = asyncio.current_task()
        turn_id = f"t_{uuid.uuid4().hex[:10]}"
        started = time.time()
        turn: Turn | None = None
        try:
            turn = await self._prepare(chat, turn_id, text, notice)
            result = await run_turn(turn)
        except asyncio.CancelledError:
            text_so_far = turn.answer + turn.partial if turn else ""
            result = TurnFinished(
                chat,
                turn_id,
                "cancelled",
                text_so_far,
                error="Interrupted.",
                rounds=turn.rounds if turn else 0,
            )
            self._finish(result, turn, text, started, future)
            raise
        except ConfigError as error:
            result = self._failure(chat, turn_id, str(error), "config")
        except StorageError as error:
            result = self._failure(chat, turn_id, str(error), None)
        except Exception as error:  # a bug must not kill the engine: log, tell, go on
            log.exception("turn %s of chat %s failed", turn_id, chat)
            result = self._failure(chat, turn_id, f"Internal error: {error}", None)
        finally:
            state.running = None
        self._finish(result, turn, text, started, future)

    def _failure(self, chat: str, turn_id: str, message: str, kind: str | None) -> TurnFinished:
        """A turn that could not run, as a notice and a result."""
        self.events.publish(Notice(chat, "error", message))
        return TurnFinished(chat, turn_id, "failed", "", error=message, error_kind=kind)

    async def _prepare(self, chat: str, turn_id: str, text: str, notice: bool = False) -> Turn:
        """Load the chat, make the user's message durable, pick the bot, bind the model."""
        loaded = self.chats.load(chat)
        for problem in loaded.problems:
            self.events.publish(
                Notice(chat, "warning", f"set aside line {problem.line}: {problem.reason}")
            )
        bot = await self._bot_for(loaded.meta, loaded.messages, text, notice)
        route = self.route_for(*chat_model(loaded.meta, bot))  # a config error ends here, unsaved
        client = self.client_for(route.provider)
        user: ChatMessage = {"role": "user", "content": text, "turn": turn_id}
        if notice:
            user["notice"] = True
        self.chats.append(chat, [user])  # durable before the model is called
        context = context_for(
            loaded,
            self.windows,
            self.tokens,
            self.settings.agent,
            lambda upto, summary, facts: self.chats.add_compaction(chat, upto, summary, **facts),
        )
        history = [*loaded.messages[context.offset :], user]
        self.events.publish(
            TurnStarted(chat, turn_id, bot.name, route.model, input=text, notice=notice)
        )
        skills = tuple(self.skills.current())
        scope = replace(
            self.scope_for(bot), skills=skills, chat=chat, turn=turn_id, bot=bot.name, services=self
        )
        agent = self.settings.agent
        before_step, on_usage, before_tools = self.delegations.hooks_for(chat)
        allowed = [*bot.tools, *BUILTIN_TOOLS] if bot.tools else None  # every bot delegates
        return Turn(
            chat=chat,
            turn_id=turn_id,
            bot=bot.name,
            route=route,
            client=client,
            params={**route.provider.params, **bot.params},
            system_prompt=build_system_prompt(
                bot=bot.name,
                workspace=scope.workspace,
                prompt_dirs=[config_home()],
                instructions=bot.instructions,
                memory=self._memory_text(chat, bot.name),
                skills=skills,
                skills_budget=agent.skills_summary_chars,
            ),
            history=history,
            tools=self.tools.snapshot(allowed),
            allowed_tools=allowed,
            max_rounds=agent.max_rounds,
            history_limit=agent.history_limit,
            scope=scope,
            persist=lambda messages: self.chats.append(chat, _redacted(messages)),
            emit=self.events.publish,
            approve=lambda call_id, name, args, prompt: self._approve(
                chat, name, args, prompt, bot.name
            ),
            trace={},
            before_step=before_step,
            on_usage=on_usage,
            before_tools=before_tools,
            repeats=None if before_tools else RepeatGuard(self.settings.delegation.loop_repeats),
            prompt_tools=self._prompt_tools,
            context=context,
        )

    def scope_for(self, bot: Bot) -> ToolScope:
        """The tool scope of a bot: its own workspace when it has one."""
        scope = self.settings.tool_scope()
        if bot.workspace:
            scope = replace(scope, workspace=Path(bot.workspace).expanduser())
        return scope

    async def _bot_for(
        self, meta: ChatMeta, history: list[ChatMessage], text: str, notice: bool = False
    ) -> Bot:
        """The chat's bot when pinned (or a task chat, or only one bot), else the router's.

        A notice (a delegation's result) goes to the bot that answered last — the one
        that gave the work — never through the router. Bots that bots created take work
        from bots only; people's messages are routed among the configured ones.
        """
        from tuibot.agent.router import choose_bot, last_bot

        known = self.bots.get(meta.bot)
        candidates = [b for b in self.bots.all() if b.source != "created"]
        if notice and not meta.pinned and meta.kind == "direct":
            giver = self.bots.get(last_bot(history) or "") or known
            if giver is not None:
                return giver
        if meta.pinned or meta.kind != "direct" or len(candidates) == 1:
            if known is None:
                raise ConfigError(f"chat {meta.id} belongs to bot {meta.bot!r}, which is gone")
            return known

        default = self.bots.default
        route = self.route_for(default.model, default.provider)
        choice = await choose_bot(
            self.client_for(route.provider),
            route.model,
            {**route.provider.params, **default.params},
            candidates,
            default,
            history,
            text,
        )
        if choice.why != "classifier":
            self.events.publish(Notice(meta.id, "info", f"routed to {default.name}: {choice.why}"))
        return choice.bot

    # -- memory --------------------------------------------------------------------

    def memory_for(self, bot: str) -> MemoryStore:
        """The bot's memory store (one per bot, so saves from parallel calls serialise)."""
        store = self._memories.get(bot)
        if store is None:
            store = self._memories[bot] = MemoryStore(memory_path(self.paths.memory, bot))
        return store

    def _memory_text(self, chat: str, bot: str) -> str:
        """The memory for the prompt; an unreadable file is a warning, not a failed turn."""
        try:
            return self.memory_for(bot).read()
        except MemoryStoreError as error:
            self.events.publish(Notice(chat, "warning", str(error)))
            return ""

    def _maybe_consolidate(self, chat: str, bot: str) -> None:
        """Start folding old messages into memory in the background, when it is due."""
        if self.settings.agent.consolidate_after <= 0 or chat in self._consolidating:
            return
        task = asyncio.get_running_loop().create_task(
            self._consolidate(chat, bot), name=f"{chat}: consolidate"
        )
        self._consolidating.add(chat)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(lambda _: self._consolidating.discard(chat))

    async def _consolidate(self, chat: str, bot: str) -> None:
        """Rewrite the memory from the old messages, then record them as folded in.

        Either both happen or neither does: a failure after the memory was written puts
        the previous memory back.
        """
        from tuibot.agent.consolidate import ConsolidationError, consolidate, pick

        agent = self.settings.agent
        try:
            loaded = self.chats.load(chat, readonly=True)
            upto = pick(
                loaded.messages,
                loaded.consolidated,
                agent.consolidate_after,
                agent.consolidate_keep,
            )
            if upto is None:
                return
            store = self.memory_for(bot)
            before = store.read()
            route = self.route_for(agent.model)
            text = await consolidate(
                self.client_for(route.provider),
                route.model,
                {**route.provider.params, **agent.params},
                bot=bot,
                memory=before,
                messages=loaded.messages[loaded.consolidated : upto],
            )
            store.replace(text, expected=before)
            try:
                self.chats.mark_consolidated(chat, upto)
            except StorageError:
                store.replace(before)
                raise
        except asyncio.CancelledError:
            raise
        except (ConsolidationError, MemoryStoreError, StorageError, ConfigError) as error:
            self.events.publish(
                Notice(chat, "warning", f"memory not consolidated (nothing changed): {error}")
            )
            return
        except Exception as error:  # a bug here must not take the engine down
            log.exception("consolidation of chat %s failed", chat)
            self.events.publish(Notice(chat, "warning", f"memory not consolidated: {error}"))
            return
        count = upto - loaded.consolidated
        self.events.publish(
            Notice(chat, "info", f"folded {count} older messages into {bot}'s memory")
        )

    def _finish(
        self,
        result: TurnFinished,
        turn: Turn | None,
        text: str,
        started: float,
        future: asyncio.Future[Outcome],
    ) -> None:
        """Publish the result, write the trace, resolve the caller's future."""
        self.events.publish(result)
        record = {
            "type": "turn",
            "chat": result.chat,
            "turn": result.turn,
            "started": started,
            "finished": time.time(),
            "status": result.status,
            "input": text,
            "reply": result.text,
            "usage": result.usage.as_dict(),
            "error": result.error,
            **(turn.trace if turn else {}),
        }
        self.traces.write(_redacted(record))
        if result.status == "completed" and turn is not None:
            self._maybe_consolidate(result.chat, turn.bot)
        self.delegations.turn_finished(result)
        if not future.done():
            future.set_result(result)

    async def _approve(
        self, chat: str, name: str, arguments: dict[str, Any], permission: Permission, bot: str = ""
    ) -> tuple[bool, str]:
        """Put a tool confirmation in the approval queue and wait for it.

        The request carries the whole permission (subject, fields, what a grant covers),
        so every front end shows all of it; nothing is cut.
        """
        root = self.delegations.root_chat(chat)  # the person answers in their own chat
        details: dict[str, Any] = {
            "tool": name,
            "arguments": arguments,
            "prompt": permission.question,
            "bot": bot,
            "permission": permission_details(permission),
        }
        if root != chat:
            details["task_chat"] = chat
        decision = await self.approvals.ask(
            root, "tool", request_summary(name, arguments, permission), details,
            grant_key=permission.grant_key,
        )  # fmt: skip
        return decision.allowed, decision.reason or ("allowed" if decision.allowed else "denied")

    def _slash_context(self) -> SlashContext:
        """What slash commands may use."""
        return SlashContext(
            tools=self.tools,
            scope=self.settings.tool_scope(),
            new_chat=lambda: self.new_chat().id,
            compact=self.compact_chat,
            model=lambda chat, name, args: model_command(self, chat, name, args),
        )

    async def compact_chat(self, chat: str, instructions: str = "") -> tuple[bool, str]:
        """``/compact``: summarise the chat's older turns now, under its turn lock."""
        state = self._states.setdefault(chat, ChatState())
        async with state.lock:
            loaded = self.chats.load(chat)
            bot = self.bot_of_chat(loaded.meta)
            route = self.route_for(*chat_model(loaded.meta, bot))
            context = context_for(
                loaded,
                self.windows,
                self.tokens,
                self.settings.agent,
                lambda upto, summary, facts: self.chats.add_compaction(
                    chat, upto, summary, **facts
                ),
            )
            target = CompactTarget(
                chat,
                route,
                self.client_for(route.provider),
                {**route.provider.params, **bot.params},
                list(loaded.messages[context.offset :]),
                context,
                self.events.publish,
            )
            try:
                return await compact_now(target, instructions)
            except (ConfigError, StorageError) as error:
                return False, f"Cannot compact: {error}"

    # -- providers -------------------------------------------------------------------

    def bot_of_chat(self, meta: ChatMeta) -> Bot:
        """The bot a chat belongs to (the default bot when that one is gone)."""
        return self.bots.get(meta.bot) or self.bots.default

    def model_of(self, meta: ChatMeta) -> tuple[str, str]:
        """(model, provider) the chat's next turn uses; provider "" = chosen by the model."""
        return chat_model(meta, self.bot_of_chat(meta))

    async def chat_models(self, chat: str, provider: str | None = None) -> Listing:
        """What the chat's provider (or ``provider``) serves (ChoiceError when it cannot say)."""
        return await model_listing(self, chat, provider)

    async def choose_model(
        self, chat: str, model: str | None = None, provider: str | None = None
    ) -> str:
        """Switch the chat's model and/or provider, checked (see :mod:`tuibot.model_choice`)."""
        return await choose(self, chat, model, provider)

    def route_for(self, model: str, provider: str | None = None) -> Route:
        """The provider for ``model`` (raises ConfigError with the keyring's complaint).

        ``provider`` is a bot's: a name picks it outright, "" chooses by the model, and
        None keeps ``agent.provider``.
        """
        settings = self.settings
        if provider is not None and provider != settings.agent.provider:
            settings = replace(settings, agent=replace(settings.agent, provider=provider))
        try:
            return select_route(settings, model, self._key_lookup)
        except ConfigError as error:
            if self._key_problem:
                raise ConfigError(f"{error}. {self._key_problem}") from error
            raise

    def client_for(self, provider: ProviderSettings) -> ModelClient:
        """One client per provider, made on first use."""
        client = self._clients.get(provider.name)
        if client is None:
            key = self._key_lookup(provider)
            if needs_key(provider) and not key:
                raise ConfigError(
                    f"provider {provider.name!r} needs an API key: store it with "
                    f"`tuibot keys set {provider.credential or provider.name}` or set "
                    f"its environment variable. {self._key_problem}".strip()
                )
            client = make_client(provider, key)
            self._clients[provider.name] = client
        return client

    def _keyring_lookup(self, provider: ProviderSettings) -> str | None:
        """The provider's key from its env var or the keyring; keyring only when named."""
        if not needs_key(provider):
            return None
        if provider.name in self._keys:  # the keyring is asked once per provider, not per turn
            return self._keys[provider.name]
        from tuibot.secrets import KeyringUnavailable, remember_secret, resolve_api_key

        try:
            key = resolve_api_key(provider.credential, provider.api_key_env)
        except KeyringUnavailable as error:
            self._key_problem = str(error)
            return None
        if key:
            remember_secret(key)
        self._keys[provider.name] = key
        return key

    def with_provider_override(self, origin: str, **changes: Any) -> None:
        """Apply CLI flags such as ``--base-url`` to the provider the model routes to."""
        route = self.route_for(self.settings.agent.model)
        provider = replace(route.provider, **changes)
        origins = {f"providers.{provider.name}.{key}": origin for key in changes}
        self.settings = replace(
            self.settings,
            providers={**self.settings.providers, provider.name: provider},
            origins={**self.settings.origins, **origins},
        )


def _redacted(value: Any) -> Any:
    """``value`` with every known secret masked: the safety net for chats and traces."""
    from tuibot import secrets

    text = json.dumps(value, ensure_ascii=False, default=str)
    clean = secrets.redact(text)
    return value if clean == text else json.loads(clean)
