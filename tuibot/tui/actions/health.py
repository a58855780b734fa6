"""The app's view of the model server: a banner while it is unreachable, gone once it is up.

The server is probed at start, every ``tui.health_interval`` seconds, and at once when
the person sends while the last probe failed; a turn that completes proves the server
up as well. A mixin of :class:`~tuibot.tui.app.TuibotApp` (see
:mod:`tuibot.tui.actions.chat_commands` for why handlers are plain methods).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work

from tuibot.events import Event, TurnFinished
from tuibot.tui.actions.startup import Health, check_health

if TYPE_CHECKING:
    from textual.app import App

    from tuibot.engine import Engine
    from tuibot.settings import Settings
    from tuibot.tui.widgets.conversation import Conversation
    from tuibot.tui.widgets.status_bar import StatusBar

    _AppBase = App[int]
else:
    _AppBase = object


class HealthCommands(_AppBase):
    """Server health for the app; expects the attributes declared below."""

    if TYPE_CHECKING:
        engine: Engine | None
        settings: Settings

        @property
        def conversation(self) -> Conversation: ...
        @property
        def status(self) -> StatusBar: ...

    _health_banner = False
    """Whether the banner shown is the server's (a start-up config banner is not)."""

    @work(group="health", description="check the model server", exit_on_error=False)
    async def watch_health(self) -> None:
        """Probe the model server now and every ``tui.health_interval`` seconds."""
        while self.engine is not None:
            self.show_health(await check_health(self.engine))
            await asyncio.sleep(self.settings.tui.health_interval)

    @work(group="health-now", exclusive=True, exit_on_error=False)
    async def check_health_now(self) -> None:
        """One probe right away (the person sent while the server was down)."""
        if self.engine is not None:
            self.show_health(await check_health(self.engine))

    def show_health(self, health: Health) -> None:
        """Status bar and banner from a probe: a problem shows once, a good probe clears it."""
        self.status.health = "ok" if health.ok and not health.problem else "down"
        self.status.health_detail = health.problem or health.where
        if health.ok and not health.problem:
            self.server_is_up()
        elif not self._health_banner:
            self._health_banner = True
            text = f"Model server problem: {health.problem}\n\n{health.advice}"
            self.conversation.show_problem(text)

    def server_is_up(self) -> None:
        """Take the server banner away; a later outage shows it again."""
        if self._health_banner:
            self._health_banner = False
            self.conversation.clear_problem()

    def health_after(self, event: Event) -> None:
        """A completed turn means the model server answered."""
        if isinstance(event, TurnFinished) and event.status == "completed":
            if self.status.health == "down":
                self.status.health = "ok"
            self.server_is_up()

    def health_before_send(self) -> None:
        """Sending while the server was down: probe now rather than at the next interval."""
        if self.status.health == "down" and self.engine is not None:
            self.check_health_now()
