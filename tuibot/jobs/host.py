"""What scheduled work (job runs, the heartbeat, their wiring) may use of the engine.

Job runs and the heartbeat used to receive the whole :class:`~tuibot.engine.Engine`;
this protocol names the nine things they call, so mypy checks that the engine fits
(``tests/test_host_protocols.py``) and a reader sees the seam. Members are read-only
properties: scheduled work reads the engine's parts but never replaces them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tuibot.bots import BotDirectory
    from tuibot.delegation.records import Delegation, Limits
    from tuibot.events import CommandOutput, EventStream, TurnFinished
    from tuibot.jobs.book import JobBook
    from tuibot.settings import Settings
    from tuibot.store.chats import ChatMeta, ChatStore


class RunDelegations(Protocol):
    """The part of the delegation manager a job run uses: start the run, read its record."""

    def get(self, delegation_id: str) -> Delegation | None:
        """The latest record of ``delegation_id``."""
        ...

    def schedule_run(
        self, *, chat: str, bot: str, task: str, limits: Limits, first: str, task_chat: str | None
    ) -> Delegation:
        """Start a job's run as work its bot gives itself; the result goes to ``chat``."""
        ...


class JobsHost(Protocol):
    """The engine as scheduled work sees it."""

    @property
    def settings(self) -> Settings:
        """Read for ``[jobs]`` and ``[heartbeat]``."""
        ...

    @property
    def events(self) -> EventStream:
        """Runs follow delegation changes here; notices go out here."""
        ...

    @property
    def chats(self) -> ChatStore:
        """Whether a job's or the heartbeat's chat still exists."""
        ...

    @property
    def bots(self) -> BotDirectory:
        """The heartbeat's bot."""
        ...

    @property
    def delegations(self) -> RunDelegations:
        """Each run is delegated work."""
        ...

    @property
    def jobs(self) -> JobBook:
        """The job book: its store, and the scheduler and clock once attached."""
        ...

    def new_chat(self, *, bot: str | None = None, title: str = "") -> ChatMeta:
        """A results chat for a job, or the heartbeat's chat."""
        ...

    def busy(self, chat: str) -> bool:
        """Whether the heartbeat's chat is busy (a beat waits for the next one)."""
        ...

    def post(
        self, chat: str, text: str, *, notice: bool = False
    ) -> asyncio.Future[TurnFinished | CommandOutput]:
        """Queue the heartbeat's prompt as the chat's next input."""
        ...
