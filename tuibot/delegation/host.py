"""What the delegation manager may use of the engine that owns it, and nothing more.

The manager used to receive the whole :class:`~tuibot.engine.Engine`; this protocol
names the ten things it actually calls, so a reader sees the seam, mypy checks that
the engine fits it (``tests/test_host_protocols.py``), and tests can drive the manager
with a small fake host. Members are read-only properties: the manager reads the
engine's parts but never replaces them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tuibot.approvals import ApprovalQueue
    from tuibot.bots import BotDirectory
    from tuibot.events import CommandOutput, EventStream, TurnFinished
    from tuibot.settings import Settings
    from tuibot.store.chats import ChatStore


class DelegationHost(Protocol):
    """The engine as the delegation manager sees it."""

    @property
    def settings(self) -> Settings:
        """Read for ``[delegation]``: caps, loop repeats, approval timeout, tree bounds."""
        ...

    @property
    def approvals(self) -> ApprovalQueue:
        """Where authorizations and pauses ask a person; pending requests keep work open."""
        ...

    @property
    def bots(self) -> BotDirectory:
        """Who may receive work, and who owns whom."""
        ...

    @property
    def chats(self) -> ChatStore:
        """Task chats are created here; messages read mid-turn are stored here."""
        ...

    @property
    def events(self) -> EventStream:
        """Record changes and problems go out as events."""
        ...

    def busy(self, chat: str) -> bool:
        """Whether ``chat`` has a turn running or input waiting."""
        ...

    def post(
        self, chat: str, text: str, *, notice: bool = False
    ) -> asyncio.Future[TurnFinished | CommandOutput]:
        """Queue ``text`` as the chat's next input; its turn runs on its own."""
        ...

    async def stop_chat(self, chat: str) -> None:
        """Cancel the chat's turns and wait until they have stopped."""
        ...

    def note_in_history(self, chat: str, text: str) -> None:
        """Store a notice without starting a turn (a late result)."""
        ...

    def cancel(self, chat: str, *, delegations: bool = False) -> bool:
        """Interrupt the chat (with ``delegations``: and the work it gave)."""
        ...
