"""What the engine's own tools (delegation, memory, cron) may use of the engine.

The tool framework (:mod:`tuibot.toolkit`) knows nothing of the engine: a turn's
:class:`~tuibot.toolkit.scope.ToolScope` carries the engine as an opaque ``services``
object. The engine's tools read it only through :func:`services_of`, which names the
five things they may use; mypy checks that the engine fits
(``tests/test_host_protocols.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from tuibot.bots import BotDirectory
    from tuibot.delegation.manager import DelegationManager
    from tuibot.jobs.book import JobBook
    from tuibot.memory import MemoryStore
    from tuibot.store.chats import ChatStore
    from tuibot.toolkit.scope import ToolScope


class ToolServices(Protocol):
    """The engine as its own tools see it."""

    @property
    def bots(self) -> BotDirectory:
        """``list_bots``, ``bot_details``, ``create_bot``."""
        ...

    @property
    def delegations(self) -> DelegationManager:
        """``delegate`` and ``cancel_delegation``."""
        ...

    @property
    def jobs(self) -> JobBook:
        """The ``cron`` tool's job book."""
        ...

    @property
    def chats(self) -> ChatStore:
        """The ``cron`` tool reads the kind of chat it is called in."""
        ...

    def memory_for(self, bot: str) -> MemoryStore:
        """The memory tools' store of ``bot``."""
        ...


def services_of(scope: ToolScope | None) -> ToolServices | None:
    """The engine services of a turn's scope; None outside a turn (or in plugin tests)."""
    if scope is None or scope.services is None:
        return None
    return cast("ToolServices", scope.services)
