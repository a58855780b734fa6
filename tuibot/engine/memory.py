"""Each bot's long-term memory: one store per bot, and folding old messages into it.

Turns read a bot's memory into the prompt, the memory tool writes it, and after a long
chat the oldest messages are consolidated into it in the background. One keeper owns
the stores (so saves from parallel calls serialise on one store per bot) and decides
when a consolidation runs, so the engine only says "a turn completed".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from tuibot.engine.providers import Providers
from tuibot.events import EventStream, Notice
from tuibot.memory import MemoryStore, MemoryStoreError, memory_path
from tuibot.settings import ConfigError, Settings
from tuibot.store.chats import ChatStore
from tuibot.store.jsonl import StorageError

log = logging.getLogger("tuibot.engine")

Spawn = Callable[[Coroutine[Any, Any, None], str], "asyncio.Task[None]"]
"""(coroutine, name) -> a background task the engine cancels on close."""


class MemoryKeeper:
    """Owns the bots' memory stores and runs consolidations after completed turns."""

    def __init__(
        self,
        folder: Path,
        settings: Callable[[], Settings],
        chats: ChatStore,
        events: EventStream,
        providers: Providers,
        spawn: Spawn,
    ) -> None:
        self._folder = folder
        self._settings = settings
        self._chats = chats
        self._events = events
        self._providers = providers
        self._spawn = spawn
        self._memories: dict[str, MemoryStore] = {}
        self._consolidating: set[str] = set()
        """Chats with a consolidation running (one at a time per chat)."""

    def memory_for(self, bot: str) -> MemoryStore:
        """The bot's memory store (one per bot, so saves from parallel calls serialise)."""
        store = self._memories.get(bot)
        if store is None:
            store = self._memories[bot] = MemoryStore(memory_path(self._folder, bot))
        return store

    def memory_text(self, chat: str, bot: str) -> str:
        """The memory for the prompt; an unreadable file is a warning, not a failed turn."""
        try:
            return self.memory_for(bot).read()
        except MemoryStoreError as error:
            self._events.publish(Notice(chat, "warning", str(error)))
            return ""

    def maybe_consolidate(self, chat: str, bot: str, messages: int) -> None:
        """Start folding old messages into memory in the background, when it may be due.

        ``messages``: how many the chat holds now. No more than the threshold means not
        due whatever was folded before, so the chat is not read again (nor the module
        imported) after every short turn.
        """
        after = self._settings().agent.consolidate_after
        if after <= 0 or messages <= after or chat in self._consolidating:
            return
        task = self._spawn(self._consolidate(chat, bot), f"{chat}: consolidate")
        self._consolidating.add(chat)
        task.add_done_callback(lambda _: self._consolidating.discard(chat))

    async def _consolidate(self, chat: str, bot: str) -> None:
        """Rewrite the memory from the old messages, then record them as folded in.

        Either both happen or neither does: a failure after the memory was written puts
        the previous memory back.
        """
        from tuibot.agent.consolidate import ConsolidationError

        try:
            count = await self._fold(chat, bot)
        except asyncio.CancelledError:
            raise
        except (ConsolidationError, MemoryStoreError, StorageError, ConfigError) as error:
            self._events.publish(
                Notice(chat, "warning", f"memory not consolidated (nothing changed): {error}")
            )
            return
        except Exception as error:  # a bug here must not take the engine down
            log.exception("consolidation of chat %s failed", chat)
            self._events.publish(Notice(chat, "warning", f"memory not consolidated: {error}"))
            return
        if count is not None:
            self._events.publish(
                Notice(chat, "info", f"folded {count} older messages into {bot}'s memory")
            )

    async def _fold(self, chat: str, bot: str) -> int | None:
        """Do one consolidation: how many messages went in, or None when none were due."""
        from tuibot.agent.consolidate import consolidate, fold_end, pick, transcript_room

        agent = self._settings().agent
        loaded = self._chats.load(chat, readonly=True)
        upto = pick(
            loaded.messages, loaded.consolidated, agent.consolidate_after, agent.consolidate_keep
        )
        if upto is None:
            return None
        store = self.memory_for(bot)
        before = store.read()
        route = await self._providers.resolve(agent.model)
        window = await self._providers.windows.discover(route.provider, route.model)
        ratio = self._providers.tokens.ratio(route.model)
        room = transcript_room(window.tokens, agent.reply_reserve, ratio, before)
        upto = fold_end(loaded.messages, loaded.consolidated, upto, room)
        text = await consolidate(
            self._providers.client_for(route.provider),
            route.model,
            {**route.provider.params, **agent.params},
            bot=bot,
            memory=before,
            messages=loaded.messages[loaded.consolidated : upto],
            room=room,
        )
        store.replace(text, expected=before)
        try:
            self._chats.mark_consolidated(chat, upto)
        except StorageError:
            store.replace(before)
            raise
        return upto - loaded.consolidated
