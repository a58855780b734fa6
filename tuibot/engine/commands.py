"""The engine's small commands for front ends: each hands one request to the right part.

A screen that renames a chat, cancels a delegation or pauses a job used to reach into
the engine's parts (``engine.jobs.pause(...)``, ``engine.delegations.cancel(...)``); a
change to a part then broke a screen. These methods are the commands instead, one or
two lines each; :class:`~tuibot.engine.Engine` inherits them so front ends call
``engine.pause_job(...)``. What front ends read goes through ``engine.view``
(:mod:`tuibot.engine.view`). Errors are the parts' own, as before.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tuibot.events import Notice, NoticeLevel

if TYPE_CHECKING:
    from tuibot.approvals import ApprovalQueue, KeptGrant
    from tuibot.bots import BotDirectory
    from tuibot.delegation.manager import DelegationManager
    from tuibot.delegation.records import Delegation
    from tuibot.delegation.tree_limits import RootLimits
    from tuibot.events import EventStream
    from tuibot.jobs.book import JobBook
    from tuibot.jobs.records import Job
    from tuibot.llm.windows import Window, WindowBook
    from tuibot.settings import ProviderSettings
    from tuibot.store.chat_lock import ChatLocks
    from tuibot.store.chats import ChatMeta, ChatStore


class FrontEndCommands:
    """Commands a front end sends; mixed into the engine, which owns the parts named here."""

    if TYPE_CHECKING:
        bots: BotDirectory
        chats: ChatStore
        chat_locks: ChatLocks
        approvals: ApprovalQueue
        delegations: DelegationManager
        events: EventStream
        windows: WindowBook

        @property
        def jobs(self) -> JobBook: ...

    # -- chats -----------------------------------------------------------------------

    def rename_chat(self, chat: str, title: str) -> None:
        """Give a chat a new title (``ChatNotFound``, ``StorageError``)."""
        self.chats.set_title(chat, title)

    def pin_chat(self, chat: str, bot: str | None) -> ChatMeta:
        """Pin a direct chat to ``bot`` (no routing), or unpin it with None.

        Raises ``BotError`` for a bot that does not exist, ``ValueError`` for a task chat
        (task chats always belong to the bot doing the work).
        """
        meta = next((m for m in self.chats.list() if m.id == chat), None)
        if meta is None:
            from tuibot.store.chats import ChatNotFound

            raise ChatNotFound(f"no chat {chat!r}")
        if meta.kind == "task":
            raise ValueError("a task chat belongs to the bot doing the work; it cannot be pinned")
        if bot is None:
            self.chats.set_bot(chat, meta.bot, pinned=False)
        else:
            self.chats.set_bot(chat, self.bots.require(bot).name, pinned=True)
        return replace(meta, bot=bot or meta.bot, pinned=bot is not None)

    def fork_chat(self, chat: str, at: int | None = None) -> ChatMeta:
        """Copy the chat's first ``at`` messages (all with None) into a new chat.

        ``ValueError`` for an ``at`` out of range.
        """
        from tuibot.store.fork import fork_chat

        return fork_chat(self.chats, chat, at)

    def set_lock_wait(self, seconds: float | None) -> None:
        """How long a turn waits for a chat another process holds (None: until free)."""
        self.chat_locks.wait = seconds

    def notice(self, chat: str, level: NoticeLevel, text: str) -> None:
        """Say something to whoever listens (the TUI, ``ask``'s printer, the trace)."""
        self.events.publish(Notice(chat, level, text))

    # -- delegations -----------------------------------------------------------------

    async def cancel_delegation(self, delegation_id: str, *, by: str = "human") -> Delegation:
        """Cancel work and everything below it; the giver is told (``DelegationRefused``)."""
        return await self.delegations.cancel(delegation_id, by=by)

    def recover_delegations(self, root_chat: str | None = None) -> list[Delegation]:
        """Work cut off by the last exit comes back paused (only below ``root_chat``)."""
        return self.delegations.recover(root_chat)

    async def wait_until_settled(self, chat: str) -> None:
        """Return once ``chat`` has no open work (its results have all come back)."""
        await self.delegations.wait_until_settled(chat)

    def limit_tree(self, chat: str, limits: RootLimits) -> None:
        """Bound all the work below ``chat`` together (``ask``'s ``--max-*``)."""
        self.delegations.limit_root(chat, limits)

    # -- jobs ------------------------------------------------------------------------

    def pause_job(self, job_id: str) -> Job:
        """Stop a job's runs until resumed (``JobStoreError``, ``ValueError``)."""
        return self.jobs.pause(job_id)

    def resume_job(self, job_id: str) -> Job:
        """Let a paused job run again on its schedule."""
        return self.jobs.resume(job_id)

    def remove_job(self, job_id: str) -> Job:
        """Delete a job (a run in progress still reports)."""
        return self.jobs.remove(job_id)

    def run_job(self, job_id: str) -> tuple[Job, bool]:
        """Run a job now; True when it runs in this process (else the one running jobs)."""
        return self.jobs.run(job_id)

    # -- grants and providers --------------------------------------------------------

    def revoke_grant(self, grant: KeptGrant) -> None:
        """Take a grant back, stored or of this run (``GrantStoreError``)."""
        self.approvals.revoke(grant)

    async def discover_window(self, provider: ProviderSettings, model: str) -> Window:
        """The model's context window, asking its server once when nothing is known."""
        return await self.windows.discover(provider, model)
