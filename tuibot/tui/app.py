"""The full-screen app: lays out the panes, routes engine events, runs the commands.

The app paints first and builds the engine after (see :mod:`tuibot.tui.actions.startup`). It is
the only place that calls the engine: panes render what they are given and ask for
changes with messages.
"""

from __future__ import annotations

from asyncio import gather
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from tuibot.events import ApprovalDecided, ApprovalRequested
from tuibot.tui.actions.chat_commands import ChatCommands
from tuibot.tui.actions.copying import COPY_BINDINGS, CopyCommands
from tuibot.tui.actions.decisions import DecisionCommands
from tuibot.tui.actions.health import HealthCommands
from tuibot.tui.actions.looks import LookCommands
from tuibot.tui.actions.models import ModelCommands
from tuibot.tui.actions.scheduled import start_scheduled_work
from tuibot.tui.actions.share import ShareCommands
from tuibot.tui.actions.side_pane import SidePaneCommands
from tuibot.tui.actions.startup import build_engine, warm_sdk
from tuibot.tui.actions.work import WorkCommands
from tuibot.tui.actions.working import WorkingCommands
from tuibot.tui.bridge import EngineBridge
from tuibot.tui.later_panes import (
    ConversationSlot,
    approvals_pane,
    conversation_in,
    conversation_type,
    later_panes,
)
from tuibot.tui.messages import EngineEvent, EngineReady, OpenChat, StreamBatch
from tuibot.tui.pane_guard import PaneGuard
from tuibot.tui.render.gc_quiet import GC_QUIET, first_frame_shown
from tuibot.tui.runner import worker_runner
from tuibot.tui.sessions import SessionState
from tuibot.tui.widgets.chat_list import ChatList
from tuibot.tui.widgets.composer import Composer
from tuibot.tui.widgets.footer import AppFooter
from tuibot.tui.widgets.kanban import TaskKanban
from tuibot.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.settings import Settings
    from tuibot.system.paths import DataPaths
    from tuibot.tui.widgets.conversation import Conversation

PANES = {
    "chats": "#chats",
    "composer": "#composer",
    "conversation": "#conversation",
    "tasks": "#tasks",
    "delegations": "#delegations",
    "tools": "#tools",
    "approvals": "#approvals",
}
"""Pane name (as used by ``focus_pane``) → widget selector."""
ZOOMABLE = ("#main", "#chats", "#tasks", "#delegations", "#tools", "#approvals")
"""What F8 zooms: the focused widget's nearest pane (the chat is conversation + composer)."""
TABS = {"tasks": "tab-tasks", "delegations": "tab-delegations", "tools": "tab-tools"}
TABS["approvals"] = "tab-approvals"
LEAVE_EMPTY_QUEUE_S = 1.0
"""How long an emptied approvals queue keeps focus before the composer gets it back."""


class ChatPane(Vertical):
    """The conversation above the composer; F8 zooms both together."""

    ALLOW_MAXIMIZE = True


class TuibotApp(
    CopyCommands,
    ChatCommands,
    ShareCommands,
    ModelCommands,
    HealthCommands,
    WorkCommands,
    DecisionCommands,
    LookCommands,
    WorkingCommands,
    SidePaneCommands,
    App[int],
):
    """tuibot's Textual app over one engine."""

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012 (Textual declares it as an instance variable)
        (0, "-narrow"),
        (120, "-wide"),
    ]
    """Below 120 columns the side pane is hidden; opened, it takes the conversation's place
    (see :mod:`tuibot.tui.actions.side_pane`)."""
    TITLE = "tuibot"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("ctrl+c", "interrupt", "Interrupt", id="interrupt", priority=True, show=False),
        Binding("ctrl+n", "new_chat", "New chat", id="new_chat", priority=True),
        Binding("ctrl+g", "focus_pane('approvals')", "Approvals", id="approvals", priority=True),
        Binding("ctrl+r", "toggle_reasoning", "Reasoning", id="reasoning", priority=True),
        Binding("ctrl+o", "toggle_tool_output", "Tool output", id="tool_output", priority=True),
        Binding("ctrl+b", "toggle_side", "Side pane", id="side", priority=True, show=False),
        Binding("f1,question_mark", "help", "Help", id="help"),
        Binding("f2", "focus_pane('chats')", "Chats", id="focus_chats", show=False, priority=True),
        Binding(
            "f3",
            "focus_pane('composer')",
            "Composer",
            id="focus_composer",
            show=False,
            priority=True,
        ),
        Binding("f4", "focus_pane('tasks')", "Tasks", id="focus_tasks", show=False, priority=True),
        Binding(
            "f5",
            "focus_pane('delegations')",
            "Delegations",
            id="focus_tree",
            show=False,
            priority=True,
        ),
        Binding(
            "f6", "focus_pane('tools')", "Tool log", id="focus_tools", show=False, priority=True
        ),
        Binding("f7", "grants", "Grants", id="grants", show=False, priority=True),
        Binding("f8", "maximize_pane", "Zoom pane", id="zoom", show=False, priority=True),
        Binding("f9", "jobs", "Jobs", id="jobs", show=False, priority=True),
        Binding("f10", "servers", "MCP servers", id="servers", show=False, priority=True),
        *COPY_BINDINGS,
    ]
    """Every app-wide binding; each ``id`` can be rebound under ``[tui.keys]``."""

    def __init__(
        self,
        settings: Settings,
        paths: DataPaths,
        *,
        base_url: str | None = None,
        start_chat: str | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.paths = paths
        self.base_url = base_url
        self.engine: Engine | None = None
        """None until the engine is built (after the first paint)."""
        self.bridge: EngineBridge | None = None
        self.current_chat: str | None = start_chat
        """The chat the conversation shows."""
        self.session = SessionState()
        """Usage, live partial answers and early input, kept across chat switches."""
        self.show_reasoning = False
        self.show_tool_output = False
        self.pane_guard = PaneGuard(self._pane_notice, str(paths.log_file))
        """Turns a pane's failure on an event into a log entry and one notice."""

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="body"):
            yield ChatList(id="chats")
            with ChatPane(id="main"):
                yield ConversationSlot(id="conversation-slot")  # see on_ready
                yield Composer(id="composer")
            with TabbedContent(id="side", initial="tab-tasks"):
                with TabPane("Tasks", id="tab-tasks"):
                    yield TaskKanban(id="tasks")
                # Hidden at start: their panes come after the first frame (on_ready).
                yield TabPane("Delegations", id="tab-delegations")
                yield TabPane("Tool log", id="tab-tools")
                yield TabPane("Approvals", id="tab-approvals")
        yield AppFooter()

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def conversation(self) -> Conversation:
        """The conversation; the first use puts it in its slot (see ``later_panes``)."""
        if not self.query("#conversation"):  # (the slot goes when it is pruned, later)
            return conversation_in(self.query_one(ConversationSlot))[0]
        return self.query_one("#conversation", conversation_type())

    @property
    def composer(self) -> Composer:
        return self.query_one(Composer)

    def event_panes(self) -> list[Any]:
        """Panes that follow every engine event, whatever chat is shown."""
        later = [self.query_one(selector) for selector in ("#delegations", "#tools", "#approvals")]
        return [self.query_one(ChatList), self.query_one(TaskKanban), *later]

    # -- start and stop --------------------------------------------------------------

    def _pane_notice(self, text: str) -> None:
        self.notify(text, severity="error", markup=False, timeout=10)

    def on_load(self) -> None:
        self.setup_theme()

    def on_mount(self) -> None:
        self.setup_keys()
        self.composer.focus()
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

    # -- engine events ---------------------------------------------------------------

    def on_engine_event(self, message: EngineEvent) -> None:
        event = message.event
        self.session.observe(event)
        try:
            panes = self.event_panes()
        except NoMatches:  # shutting down: a turn ended while the screen was torn down
            return
        for pane in panes:
            self.pane_guard.run(pane.id or "", pane.apply, event)
        if event.chat and event.chat == self.current_chat:
            self.pane_guard.run("conversation", self.conversation.apply, event)
            self.refresh_chat_status()
        self.status.session_usage = self.session.total
        self.status.pending = self.engine.view.pending_count() if self.engine else 0
        if isinstance(event, ApprovalRequested | ApprovalDecided):
            self.on_approval_event(event)
            self._leave_empty_approvals()
        self.after_event(event)
        self.health_after(event)
        self.progress_after(event)

    def on_stream_batch(self, message: StreamBatch) -> None:
        self.session.stream(message)
        self.progress_stream(message)
        if message.chat != self.current_chat:
            return
        try:
            conversation = self.conversation
        except NoMatches:  # shutting down: the screen is being torn down
            return
        self.pane_guard.run("conversation", conversation.apply_stream, message)

    def _leave_empty_approvals(self) -> None:
        """The last request was answered from the queue: back to the composer, not a blank.

        After a moment, so a request that follows at once (a paused delegation after its
        authorisation) is answered with the same keys.
        """
        if not self.query_one("#approvals", approvals_pane()).request_ids:
            self.set_timer(LEAVE_EMPTY_QUEUE_S, self._left_empty_approvals)

    def _left_empty_approvals(self) -> None:
        if len(self.screen_stack) > 1:  # a dialog is open: hand focus back once it closes
            self.set_timer(LEAVE_EMPTY_QUEUE_S, self._left_empty_approvals)
            return
        pane = (
            next(iter(self.screen_stack[0].query(approvals_pane())), None)
            if self.screen_stack
            else None
        )
        if pane is None or pane.request_ids:
            return  # closing down (the panes are gone), or a new request arrived
        focused = self.focused
        if focused is not None and pane in (focused, *focused.ancestors):
            self.composer.focus()
        self.close_side_after_request()

    @on(OpenChat)
    def on_open(self, message: OpenChat) -> None:
        if self.narrow:  # from a pane in the conversation's place: show the conversation
            self.hide_side()
        self.open_chat(message.chat)

    # -- actions ---------------------------------------------------------------------

    def action_focus_pane(self, pane: str) -> None:
        """Focus a pane, showing its side tab first when it has one."""
        if self.screen is not self.screen_stack[0]:
            return  # a dialog is open: its keys, not the panes behind it
        if pane in TABS:
            self.show_side(for_request=pane == "approvals")
            self.query_one("#side", TabbedContent).active = TABS[pane]
        for widget in self.query(PANES[pane]):  # none: a key before the pane's mount (on_ready)
            widget.focus()
        if pane == "approvals":
            self.dismiss_approval_toasts()

    def action_maximize_pane(self) -> None:
        """Zoom the focused pane (not just the widget inside it) to the screen, or back."""
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        focused = self.focused
        if focused is None:
            return
        chain = [focused, *(n for n in focused.ancestors if isinstance(n, Widget))]
        pane = next((node for node in chain if f"#{node.id}" in ZOOMABLE), focused)
        self.screen.maximize(pane, container=False)

    def action_toggle_reasoning(self) -> None:
        self.show_reasoning = not self.show_reasoning
        self.conversation.set_reasoning_visible(self.show_reasoning)

    def action_toggle_tool_output(self) -> None:
        self.show_tool_output = not self.show_tool_output
        self.conversation.set_tool_output_visible(self.show_tool_output)

    def action_help(self) -> None:
        from tuibot.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self))

    def action_grants(self) -> None:
        from tuibot.tui.screens.grants import GrantsScreen

        if self.engine is not None:
            self.push_screen(GrantsScreen(self.engine))

    def action_jobs(self) -> None:
        from tuibot.tui.screens.jobs import JobsScreen

        if self.engine is not None:
            self.push_screen(JobsScreen(self.engine))

    def action_servers(self) -> None:
        from tuibot.tui.screens.servers import ServersScreen

        if self.engine is not None:
            self.push_screen(ServersScreen(self.engine))
