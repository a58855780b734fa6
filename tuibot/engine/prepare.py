"""What one turn sends: the chat loaded, the bot chosen, the model bound, the prompt built.

:mod:`tuibot.engine.turns` decides when a turn runs; this module builds the
:class:`~tuibot.agent.loop.Turn` it runs (and the target of ``/compact``), from the
parts of the engine named in :class:`TurnHost` and nothing more.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tuibot.agent.context import build_system_prompt, skills_budget
from tuibot.agent.loop import Turn
from tuibot.agent.prepare import CompactTarget, TurnContext, compact_now, context_for
from tuibot.agent.repeats import RepeatGuard
from tuibot.approvals.permissions import Permission, permission_details, request_summary
from tuibot.attachments.chips import chip_labels
from tuibot.delegation.tools import BUILTIN_TOOLS
from tuibot.events import Notice, TurnStarted
from tuibot.model_choice import chat_model
from tuibot.settings import ConfigError
from tuibot.store.chat_message import ChatMessage
from tuibot.store.jsonl import StorageError
from tuibot.system.paths import DataPaths, config_home

if TYPE_CHECKING:
    from tuibot.agent.tokens import TokenCounter
    from tuibot.approvals import ApprovalQueue
    from tuibot.bots import Bot, BotDirectory
    from tuibot.delegation.manager import DelegationManager
    from tuibot.engine.memory import MemoryKeeper
    from tuibot.engine.providers import Providers
    from tuibot.events import EventStream
    from tuibot.llm.select import Route
    from tuibot.settings import Settings
    from tuibot.skills.catalog import SkillCatalog
    from tuibot.store.chat_lock import ChatLocks
    from tuibot.store.chats import Chat, ChatMeta, ChatStore
    from tuibot.store.traces import TraceLog
    from tuibot.toolkit.registry import ToolRegistry
    from tuibot.toolkit.scope import ToolScope


class TurnHost(Protocol):
    """The engine as its turns see it (read-only: a turn never replaces a part)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def chats(self) -> ChatStore: ...
    @property
    def chat_locks(self) -> ChatLocks: ...
    @property
    def events(self) -> EventStream: ...
    @property
    def bots(self) -> BotDirectory: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def skills(self) -> SkillCatalog: ...
    @property
    def delegations(self) -> DelegationManager: ...
    @property
    def approvals(self) -> ApprovalQueue: ...
    @property
    def traces(self) -> TraceLog: ...
    @property
    def providers(self) -> Providers: ...
    @property
    def memory(self) -> MemoryKeeper: ...
    @property
    def tokens(self) -> TokenCounter: ...
    @property
    def paths(self) -> DataPaths: ...


def _known_window(host: TurnHost, route: Route) -> int | None:
    """The model's context window in tokens when known (not the fallback), else None."""
    window = host.providers.windows.lookup(route.provider, route.model)
    return window.tokens if window.known else None


def redacted(value: Any) -> Any:
    """``value`` with every known secret masked: the safety net for chats and traces."""
    from tuibot.system import secrets

    text = json.dumps(value, ensure_ascii=False, default=str)
    clean = secrets.redact(text)
    return value if clean == text else json.loads(clean)


class TurnBuilder:
    """Builds each turn (and each ``/compact``) from the engine's parts."""

    def __init__(self, host: TurnHost) -> None:
        self._host = host

    async def prepare(self, chat: str, turn_id: str, text: str, notice: bool = False) -> Turn:
        """Load the chat, make the user's message durable, pick the bot, bind the model."""
        host = self._host
        loaded = host.chats.load(chat)
        for problem in loaded.problems:
            host.events.publish(
                Notice(chat, "warning", f"set aside line {problem.line}: {problem.reason}")
            )
        bot = await self.bot_for(loaded.meta, loaded.messages, text, notice)
        route = await host.providers.resolve(*chat_model(loaded.meta, bot))  # a config error: here
        client = host.providers.client_for(route.provider)
        user: ChatMessage = {"role": "user", "content": text, "turn": turn_id}
        if notice:
            user["notice"] = True
        elif refs := await self._attachments(chat, bot, route, text):  # may refuse: unsaved
            user["attachments"] = [dict(ref) for ref in refs]
        host.chats.append(chat, [user])  # durable before the model is called
        context = self._context(chat, loaded)
        history = [*loaded.messages[context.offset :], user]
        chips = chip_labels(user.get("attachments", ()))
        host.events.publish(
            TurnStarted(
                chat, turn_id, bot.name, route.model, input=text, notice=notice, attachments=chips
            )
        )
        skills = tuple(host.skills.current())
        scope = replace(
            self.scope_for(bot), skills=skills, chat=chat, turn=turn_id, bot=bot.name, services=host
        )
        agent = host.settings.agent
        before_step, on_usage, before_tools = host.delegations.hooks_for(chat)
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
                memory=host.memory.memory_text(chat, bot.name),
                skills=skills,
                skills_budget=skills_budget(agent.skills_summary_chars, _known_window(host, route)),
            ),
            history=history,
            tools=host.tools.snapshot(allowed),
            allowed_tools=allowed,
            max_rounds=agent.max_rounds,
            history_limit=agent.history_limit,
            scope=scope,
            persist=lambda messages: host.chats.append(chat, redacted(messages)),
            emit=host.events.publish,
            approve=lambda call_id, name, args, prompt: self.approve(
                chat, name, args, prompt, bot.name
            ),
            trace={},
            before_step=before_step,
            on_usage=on_usage,
            before_tools=before_tools,
            repeats=None if before_tools else RepeatGuard(host.settings.delegation.loop_repeats),
            prompt_tools=host.providers.prompt_tools,
            kept=host.paths.kept,
            sees_images=lambda: host.providers.sees_images(route),
            context=context,
        )

    def _context(self, chat: str, loaded: Chat) -> TurnContext:
        """The chat's context bookkeeping; compactions it makes are stored in the chat."""
        host = self._host
        return context_for(
            loaded,
            host.providers.windows,
            host.tokens,
            host.settings.agent,
            lambda upto, summary, facts: host.chats.add_compaction(chat, upto, summary, **facts),
        )

    async def _attachments(self, chat: str, bot: Bot, route: Route, text: str) -> list[Any]:
        """The files a person's message mentions (``@path``), read now; see attachments/."""
        if "@" not in text:  # no mention: the attachment modules stay unimported
            return []
        from tuibot.attachments.sending import attachments_for

        host = self._host
        return await attachments_for(
            text, host.settings, self.scope_for(bot), route,
            lambda permission: self.approve(
                chat, "attach", {"path": permission.subject}, permission, bot.name
            ),
            host.providers.key_for,
            lambda line: host.events.publish(Notice(chat, "warning", line)),
            sees=lambda: host.providers.sees_images(route),
        )  # fmt: skip

    def scope_for(self, bot: Bot) -> ToolScope:
        """The tool scope of a bot: its own workspace when it has one."""
        scope = self._host.settings.tool_scope()
        if bot.workspace:
            scope = replace(scope, workspace=Path(bot.workspace).expanduser())
        return scope

    async def bot_for(
        self, meta: ChatMeta, history: list[ChatMessage], text: str, notice: bool = False
    ) -> Bot:
        """The chat's bot when pinned (or a task chat, or only one bot), else the router's.

        A notice (a delegation's result) goes to the bot that answered last — the one
        that gave the work — never through the router. Bots that bots created take work
        from bots only; people's messages are routed among the configured ones.
        """
        host = self._host
        known = host.bots.get(meta.bot)
        candidates = [b for b in host.bots.all() if b.source != "created"]
        if notice and not meta.pinned and meta.kind == "direct":
            from tuibot.agent.router import last_bot

            giver = host.bots.get(last_bot(history) or "") or known
            if giver is not None:
                return giver
        if meta.pinned or meta.kind != "direct" or len(candidates) == 1:
            if known is None:
                raise ConfigError(f"chat {meta.id} belongs to bot {meta.bot!r}, which is gone")
            return known

        from tuibot.agent.router import choose_bot  # only with bots to choose between

        default = host.bots.default
        route = await host.providers.resolve(default.model, default.provider)
        choice = await choose_bot(
            host.providers.client_for(route.provider),
            route.model,
            {**route.provider.params, **default.params},
            candidates,
            default,
            history,
            text,
            host.providers.router_room(route),
        )
        if choice.why != "classifier":
            host.events.publish(Notice(meta.id, "info", f"routed to {default.name}: {choice.why}"))
        return choice.bot

    async def approve(
        self, chat: str, name: str, arguments: dict[str, Any], permission: Permission, bot: str = ""
    ) -> tuple[bool, str]:
        """Put a tool confirmation in the approval queue and wait for it.

        The request carries the whole permission (subject, fields, what a grant covers),
        so every front end shows all of it; nothing is cut.
        """
        root = self._host.delegations.root_chat(chat)  # the person answers in their own chat
        details: dict[str, Any] = {
            "tool": name,
            "arguments": arguments,
            "prompt": permission.question,
            "bot": bot,
            "permission": permission_details(permission),
        }
        if root != chat:
            details["task_chat"] = chat
        decision = await self._host.approvals.ask(
            root, "tool", request_summary(name, arguments, permission), details,
            grant_key=permission.grant_key,
        )  # fmt: skip
        return decision.allowed, decision.reason or ("allowed" if decision.allowed else "denied")

    async def compact(self, chat: str, instructions: str) -> tuple[bool, str]:
        """``/compact``'s work; the caller holds the chat's turn lock."""
        host = self._host
        loaded = host.chats.load(chat)
        bot = host.bots.get(loaded.meta.bot) or host.bots.default
        route = await host.providers.resolve(*chat_model(loaded.meta, bot))
        context = self._context(chat, loaded)
        target = CompactTarget(
            chat,
            route,
            host.providers.client_for(route.provider),
            {**route.provider.params, **bot.params},
            list(loaded.messages[context.offset :]),
            context,
            host.events.publish,
        )
        try:
            return await compact_now(target, instructions)
        except (ConfigError, StorageError) as error:
            return False, f"Cannot compact: {error}"
