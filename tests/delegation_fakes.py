"""A small fake engine and a hand-moved clock, to drive the delegation manager alone.

The fake host has the real parts the manager reads (settings, bots, approvals, a chat
store, the event stream) and records what the manager asks of the engine (posts, stops,
cancels), so a test sees the manager's decisions without running turns or a model.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tuibot.approvals import ApprovalQueue
from tuibot.bots import BotDirectory
from tuibot.delegation.journal import DelegationJournal
from tuibot.delegation.manager import DelegationManager
from tuibot.events import CommandOutput, EventStream, TurnFinished
from tuibot.settings import Settings, load_settings
from tuibot.store.chats import ChatStore


class HandClock:
    """A clock that moves only when the test says so; sleepers wake when their time comes."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def monotonic(self) -> float:
        """The hand-set time."""
        return self.now

    def wall(self) -> float:
        """The hand-set time after a fixed epoch."""
        return 1_700_000_000 + self.now

    async def sleep(self, seconds: float) -> None:
        """Wait until :meth:`advance` has moved the clock ``seconds`` on."""
        future = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, future))
        await future

    @property
    def sleeping(self) -> int:
        """How many waits are pending on this clock."""
        return len(self._sleepers)

    def advance(self, seconds: float) -> None:
        """Move on and wake every sleeper whose time has come."""
        self.now += seconds
        due = [(at, f) for at, f in self._sleepers if at <= self.now]
        self._sleepers = [(at, f) for at, f in self._sleepers if at > self.now]
        for _, future in due:
            if not future.done():
                future.set_result(None)


@dataclass
class FakeHost:
    """Just what :class:`~tuibot.delegation.host.DelegationHost` names, over real parts."""

    settings: Settings
    approvals: ApprovalQueue
    bots: BotDirectory
    chats: ChatStore
    events: EventStream
    posts: list[tuple[str, str]] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    noted: list[tuple[str, str]] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)

    def busy(self, chat: str) -> bool:
        """No turn ever runs here."""
        return False

    def post(
        self, chat: str, text: str, *, notice: bool = False
    ) -> asyncio.Future[TurnFinished | CommandOutput]:
        """Record the input; nothing runs it."""
        self.posts.append((chat, text))
        return asyncio.get_running_loop().create_future()

    async def stop_chat(self, chat: str) -> None:
        """Record the stop."""
        self.stopped.append(chat)

    def note_in_history(self, chat: str, text: str) -> None:
        """Record the late notice."""
        self.noted.append((chat, text))

    def cancel(self, chat: str, *, delegations: bool = False) -> bool:
        """Record the interrupt."""
        self.interrupted.append(chat)
        return True


def fake_manager(root: Path, clock: HandClock) -> tuple[DelegationManager, FakeHost]:
    """A manager over a fake host and ``clock``, keeping its files under ``root``."""
    settings = load_settings(None, env={})
    events = EventStream()
    host = FakeHost(
        settings=settings,
        approvals=ApprovalQueue(events.publish, 30),
        bots=BotDirectory(settings, root / "bots.jsonl"),
        chats=ChatStore(root / "chats"),
        events=events,
    )
    return DelegationManager(host, DelegationJournal(root / "delegations.jsonl"), clock), host


def fake_turn(chat: str) -> Any:
    """What the limit hooks read of a turn: its chat, id and history."""
    return SimpleNamespace(chat=chat, turn_id="t_fake", history=[], rounds=0)
