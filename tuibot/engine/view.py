"""What front ends may read of the engine: frozen records, never the engine's parts.

DESIGN.md says front ends use the engine's public methods, its read queries and its
event stream. This module is the read queries: ``engine.view.chats()``,
``engine.view.delegations()``, ``engine.view.pending_approvals()`` … Every answer is a
frozen record (or a tuple of them), so a screen can keep what it was given without
holding the engine's live state, and a change inside the engine (a journal becoming a
database, the approval queue moving) changes this module, not every screen.
``tests/engine_reach.py`` counts what is left of the old reach-ins.

The view sees the engine through :class:`ViewSource`, as the collaborators see it
through their host protocols; ``engine/host_fit.py`` makes mypy check that the engine fits.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from datetime import datetime

    from tuibot.approvals import ApprovalQueue, ApprovalRequest, KeptGrant
    from tuibot.bots import Bot, BotDirectory
    from tuibot.delegation.manager import DelegationManager
    from tuibot.delegation.records import Delegation
    from tuibot.events import ApprovalKind
    from tuibot.jobs.book import JobBook
    from tuibot.jobs.records import Job
    from tuibot.jobs.work import ScheduledWork
    from tuibot.mcp.manager import ServerView
    from tuibot.settings import Settings
    from tuibot.store.chat_message import ChatMessage
    from tuibot.store.chats import ChatMeta, ChatStore
    from tuibot.store.jsonl import LineProblem
    from tuibot.store.search import ChatSearch, SearchHit
    from tuibot.system.instance import Holder
    from tuibot.system.paths import DataPaths
    from tuibot.tasks import Task
    from tuibot.tasks.board import TaskBoard
    from tuibot.toolkit.decorator import ToolSpec
    from tuibot.toolkit.registry import ToolRegistry


@dataclass(frozen=True)
class PendingApproval:
    """A question waiting for a person, without its future: answer it with ``engine.decide``."""

    id: str
    chat: str
    kind: ApprovalKind
    summary: str
    details: dict[str, Any]
    """A copy of the request's details: changing it changes nothing in the engine."""
    grant_key: str | None
    created: float
    """When it was asked (seconds since the epoch, the engine's clock)."""
    timeout: float
    """Seconds it waits from ``created`` before it counts as denied."""

    @classmethod
    def of(cls, request: ApprovalRequest) -> PendingApproval:
        """The record of a live request."""
        return cls(
            request.id,
            request.chat,
            request.kind,
            request.summary,
            copy.deepcopy(request.details),
            request.grant_key,
            request.created,
            request.timeout,
        )


@dataclass(frozen=True)
class Transcript:
    """A chat as loaded for reading: its header, its messages and what loading fixed."""

    meta: ChatMeta
    messages: tuple[ChatMessage, ...]
    problems: tuple[LineProblem, ...]
    """Lines set aside while loading, for the reader to report."""
    repaired: int
    """Synthetic "interrupted" tool results added by this load."""
    complete: bool = True
    """False for the last messages only (:meth:`ChatView.transcript_tail`)."""


class ViewSource(Protocol):
    """The engine as its read API sees it: the parts it reads, never replaces."""

    @property
    def settings(self) -> Settings: ...
    @property
    def paths(self) -> DataPaths: ...
    @property
    def chats(self) -> ChatStore: ...
    @property
    def approvals(self) -> ApprovalQueue: ...
    @property
    def delegations(self) -> DelegationManager: ...
    @property
    def tasks(self) -> TaskBoard: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def bots(self) -> BotDirectory: ...
    @property
    def jobs(self) -> JobBook: ...
    @property
    def scheduled(self) -> ScheduledWork | None: ...


class EngineView:
    """Read-only queries over one engine; each answer is a frozen record or a tuple of them.

    Errors are the parts' own (``ChatNotFound``, ``StorageError``, ``JobStoreError``,
    ``GrantStoreError``), so front ends keep reporting them as before.
    """

    def __init__(self, source: ViewSource) -> None:
        self._source = source
        self._search: ChatSearch | None = None

    @property
    def settings(self) -> Settings:
        """The settings the engine runs with now (a ``--base-url`` override included)."""
        return self._source.settings

    # -- chats -----------------------------------------------------------------------

    def chats(self) -> tuple[ChatMeta, ...]:
        """Every chat's header, most recently updated first."""
        return tuple(self._source.chats.list())

    def chat(self, chat_id: str) -> ChatMeta:
        """One chat's header; ``ChatNotFound`` when there is no such chat."""
        return self._source.chats.meta(chat_id)

    def resolve(self, prefix: str) -> str:
        """The chat id a (unique) prefix names; ``ChatNotFound`` otherwise."""
        return self._source.chats.resolve(prefix)

    def latest(self, kind: str = "direct") -> ChatMeta | None:
        """The most recently updated chat of ``kind``, if any."""
        return self._source.chats.latest(kind)

    def transcript(self, chat_id: str) -> Transcript:
        """A chat's messages as stored (read-only: a torn line is reported, not moved)."""
        loaded = self._source.chats.load(chat_id, readonly=True)
        return Transcript(
            loaded.meta, tuple(loaded.messages), tuple(loaded.problems), loaded.repaired
        )

    def transcript_tail(self, chat_id: str) -> Transcript | None:
        """A long chat's last messages, read without the rest of the file (what opening
        it shows first); None when the chat is short, or its end is not plain to read:
        then :meth:`transcript` it. Problems are left to the full transcript."""
        loaded = self._source.chats.load_tail(chat_id)
        if loaded is None:
            return None
        return Transcript(loaded.meta, tuple(loaded.messages), (), loaded.repaired, False)

    def markdown(self, chat_id: str) -> str:
        """The chat written out as Markdown, for an export."""
        from tuibot.store.markdown_export import chat_markdown

        return chat_markdown(self._source.chats.load(chat_id, readonly=True))

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Chats whose text holds every word of ``query``, best first (index kept warm)."""
        from tuibot.store.search import ChatSearch

        if self._search is None:
            self._search = ChatSearch(self._source.chats)
        return self._search.search(query, limit)

    # -- delegations -----------------------------------------------------------------

    def delegations(self) -> tuple[Delegation, ...]:
        """Every delegation record, as the journal holds it now."""
        return tuple(self._source.delegations.journal.all())

    def delegation(self, delegation_id: str) -> Delegation | None:
        """The latest record of one delegation."""
        return self._source.delegations.get(delegation_id)

    def given_by(self, chat: str, *, open_only: bool = False) -> tuple[Delegation, ...]:
        """The work ``chat`` gave, oldest first (``open_only``: what has not ended)."""
        given = self._source.delegations.given_by(chat)
        return tuple(r for r in given if r.is_open or not open_only)

    def root_chat(self, chat: str) -> str:
        """The person's chat at the top of the delegation tree ``chat`` belongs to."""
        return self._source.delegations.root_chat(chat)

    # -- approvals and grants --------------------------------------------------------

    def pending_approvals(self) -> tuple[PendingApproval, ...]:
        """Requests waiting for an answer, oldest first."""
        return tuple(PendingApproval.of(r) for r in self._source.approvals.pending())

    def pending_count(self) -> int:
        """How many requests wait (no copies made: read after every event)."""
        return len(self._source.approvals.pending())

    def is_pending(self, request_id: str) -> bool:
        """Whether ``request_id`` still waits for an answer."""
        return any(r.id == request_id for r in self._source.approvals.pending())

    def grants(self) -> tuple[tuple[KeptGrant, ...], str]:
        """Every grant, oldest stored first then this run's, and the grants file's problem."""
        return self._source.approvals.kept_grants()

    # -- tasks, jobs, tools, bots ----------------------------------------------------

    def tasks(self) -> tuple[Task, ...]:
        """The task board: open tasks and those that ended recently."""
        return tuple(self._source.tasks.board())

    def jobs(self) -> tuple[Job, ...]:
        """Every scheduled job, as ``jobs.json`` holds it now."""
        return tuple(self._source.jobs.all())

    def next_run(self, job: Job) -> datetime | None:
        """When ``job`` runs next (None: paused, or never again)."""
        return self._source.jobs.next_run(job)

    def jobs_run_here(self) -> bool:
        """Whether this process runs the scheduled jobs and the heartbeat."""
        return self._source.scheduled is not None

    def jobs_holder(self) -> Holder | None:
        """The process holding the instance lock (so running the jobs), if any."""
        from tuibot.system.instance import InstanceLock

        return InstanceLock(self._source.paths.lock).holder()

    def tools(self) -> tuple[ToolSpec, ...]:
        """Every loaded tool the model may be offered, by name."""
        return tuple(self._source.tools.specs())

    def tool_names(self) -> tuple[str, ...]:
        """The loaded tools' names, sorted."""
        return tuple(self._source.tools.names())

    def mcp_prompts(self) -> tuple[tuple[str, str], ...]:
        """The MCP servers' prompts as ``(usage, about)``; none before tools are loaded."""
        mcp = getattr(self._source, "mcp", None)
        return tuple(mcp.prompt_usages()) if mcp is not None else ()

    def mcp_servers(self) -> tuple[ServerView, ...]:
        """Every configured MCP server's state, tool and prompt counts, why it failed and
        its stderr tail, in config order; none before tools are loaded."""
        mcp = getattr(self._source, "mcp", None)
        return tuple(mcp.views()) if mcp is not None else ()

    def bots(self) -> tuple[Bot, ...]:
        """Every bot: the configured ones and those bots created."""
        return tuple(self._source.bots.all())
