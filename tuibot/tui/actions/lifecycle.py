"""The app's start and stop: what follows the first frame, the engine's arrival, and quitting.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. The app paints before the engine exists:
only once the first frame is on the terminal does ``on_ready`` mount the panes that
waited (:mod:`tuibot.tui.later_panes`) and start the engine in a worker (built by
:mod:`tuibot.tui.actions.startup`, off the first paint). ``EngineReady`` then loads the
panes and opens the first chat with any input typed meanwhile. Quitting asks first while
turns or delegations run, and closes the engine however the app ends.
"""

from __future__ import annotations

from asyncio import gather
from typing import TYPE_CHECKING, Any

from textual import work

from tuibot.tui.actions.scheduled import start_scheduled_work
from tuibot.tui.actions.startup import build_engine, warm_drawing, warm_sdk
from tuibot.tui.bridge import EngineBridge
from tuibot.tui.later_panes import ConversationSlot, conversation_in, later_panes
from tuibot.tui.messages import EngineReady
from tuibot.tui.render.gc_quiet import GC_QUIET, first_frame_shown
from tuibot.tui.runner import worker_runner
from tuibot.tui.widgets.footer import AppFooter

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.app import App
    from textual.widget import Widget

    from tuibot.engine import Engine
    from tuibot.settings import Settings
    from tuibot.system.paths import DataPaths
    from tuibot.tui.sessions import SessionState
    from tuibot.tui.widgets.composer import Composer
    from tuibot.tui.widgets.conversation import Conversation

    _AppBase = App[int]
else:
    _AppBase = object

FOOTER_WAIT_S = 0.5
"""At most this long after the first frame, the heavy start waits for the footer's keys."""


class LifecycleCommands(_AppBase):
    """Starts the app's engine after the first frame and stops it on the way out."""

    if TYPE_CHECKING:
        settings: Settings
        paths: DataPaths
        base_url: str | None
        engine: Engine | None
        bridge: EngineBridge | None
        current_chat: str | None
        session: SessionState

        @property
        def conversation(self) -> Conversation: ...
        @property
        def composer(self) -> Composer: ...
        def event_panes(self) -> list[Any]: ...
        def setup_theme(self) -> None: ...
        def setup_keys(self) -> None: ...
        def watch_themes(self) -> object: ...
        def check_later_keys(self, panes: Iterable[Widget]) -> None: ...
        def watch_health(self) -> object: ...
        def command_names(self) -> list[tuple[str, str]]: ...
        def open_chat(self, chat: str, *, whole: bool = False) -> None: ...
        def submit(self, chat: str | None, text: str) -> None: ...

    def on_load(self) -> None:
        self.setup_theme()

    def on_mount(self) -> None:
        """Keys, focus and the footer's keys, all before the first frame: the focus is
        set at once (``focus()`` would wait a tick), so the footer shows its final keys."""
        self.setup_keys()
        self.screen.set_focus(self.composer)
        self.query_one(AppFooter).compose_keys()
        ignored = self.settings.ignored_project
        if ignored is not None:  # a ./tuibot.toml left out: say so, and how to use it
            self.notify(ignored.notice(), severity="warning", markup=False, timeout=15)

    async def on_ready(self) -> None:
        """The first frame is on the terminal: only now mount the conversation and the
        hidden side panes, watch the theme files and build the engine, whose imports
        would otherwise delay that frame (see :mod:`tuibot.tui.later_panes`). The
        conversation is mounted before the engine starts (a failed start is shown in
        it), and the panes before any engine event can reach them: this handler ends
        before the app handles ``EngineReady``."""
        first_frame_shown()
        # The footer's keys are in the first frame (on_mount); a guard should they not be.
        await self.query_one(AppFooter).drawn(timeout=FOOTER_WAIT_S)
        if not self.query("#conversation"):  # nothing asked for it yet: in its place now
            await conversation_in(self.query_one(ConversationSlot))[1]
        self.watch_themes()
        self.start_engine()
        panes = later_panes()
        await gather(*(self.query_one(f"#{tab}").mount(pane) for tab, pane in panes.items()))
        self.check_later_keys(panes.values())

    @work(group="engine", description="start the engine", exit_on_error=False)
    async def start_engine(self) -> None:
        """Build the engine, load plugins, recover work, then check the server."""
        from tuibot.settings import ConfigError

        try:
            engine = await build_engine(
                self.settings, self.paths, worker_runner(self), self.base_url
            )
        except ConfigError as error:
            self.conversation.show_problem(f"tuibot cannot start the engine: {error}")
            return
        self.bridge = EngineBridge(engine.events, self.post_message)
        engine.load_tools()
        engine.start_reloader()
        # Under the single-instance lock only: recover work cut off by the last exit, run
        # jobs and the heartbeat (else another tuibot does, and this says which).
        for severity, text in start_scheduled_work(engine):
            self.notify(text, severity=severity, markup=False, timeout=10)
        self.engine = engine
        self.post_message(EngineReady(engine))
        await warm_sdk()
        self.run_worker(
            warm_drawing(), group="warm", description="warm up drawing", exit_on_error=False
        )
        GC_QUIET.settle()  # what start-up made lives on: later collections skip it
        self.watch_health()

    def on_engine_ready(self, message: EngineReady) -> None:
        engine = message.engine
        for pane in self.event_panes():
            pane.load(engine)
        self.composer.set_commands(self.command_names())
        self.composer.workspace = self.settings.workspace_path()  # @path completion
        if self.current_chat is not None:
            from tuibot.store.chats import ChatNotFound

            try:
                self.current_chat = engine.view.resolve(self.current_chat)
            except ChatNotFound as error:
                self.notify(str(error), severity="error")
                self.current_chat = None
        if self.current_chat is None:
            chats = [meta for meta in engine.view.chats() if meta.kind == "direct"]
            self.current_chat = chats[0].id if chats else None  # newest first
        if self.current_chat is not None:
            self.open_chat(self.current_chat)
        for chat, text in self.session.take_early_input():
            self.submit(chat, text)

    def action_quit(self) -> None:  # type: ignore[override]
        """Quit, asking first when turns or delegations are still running."""
        self.quit_after_asking()

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def quit_after_asking(self) -> None:
        """The confirmation needs a worker: it waits for the dialog's answer."""
        from tuibot.tui.screens.confirm import ConfirmScreen

        running = self.running_work()
        if running:
            question = f"{running} still running. Quit anyway? Delegations resume next time."
            if not await self.push_screen_wait(ConfirmScreen(question, yes="Quit")):
                return
        await self.shutdown_engine()
        self.exit(0)

    def running_work(self) -> str:
        """A description of what is running, or "" when nothing is."""
        if self.engine is None:
            return ""
        chats = [meta.id for meta in self.engine.view.chats() if self.engine.busy(meta.id)]
        live = sum(1 for record in self.engine.view.delegations() if record.is_open)
        parts = []
        if chats:
            parts.append(f"{len(chats)} chat{'s' if len(chats) != 1 else ''}")
        if live:
            parts.append(f"{live} delegation{'s' if live != 1 else ''}")
        return " and ".join(parts)

    async def shutdown_engine(self) -> None:
        """Stop turns and persist delegations as the delegation rules say."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        if self.bridge is not None:
            self.bridge.close()
        await engine.close()

    async def on_unmount(self) -> None:
        await self.shutdown_engine()
