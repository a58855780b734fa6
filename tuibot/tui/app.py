"""The full-screen app: lays out the panes, routes engine events, runs the commands.

The app paints first and builds the engine after (see :mod:`tuibot.tui.actions.lifecycle`).
It is the only place that calls the engine: panes render what they are given and ask for
changes with messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
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
from tuibot.tui.actions.lifecycle import LifecycleCommands
from tuibot.tui.actions.looks import LookCommands
from tuibot.tui.actions.models import ModelCommands
from tuibot.tui.actions.share import ShareCommands
from tuibot.tui.actions.side_pane import SidePaneCommands
from tuibot.tui.actions.work import WorkCommands
from tuibot.tui.actions.working import WorkingCommands
from tuibot.tui.bridge import EngineBridge
from tuibot.tui.later_panes import (
    ConversationSlot,
    approvals_pane,
    conversation_in,
    conversation_type,
)
from tuibot.tui.messages import EngineEvent, OpenChat, StreamBatch
from tuibot.tui.pane_guard import PaneGuard
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
    LifecycleCommands,
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

    # -- engine events ---------------------------------------------------------------

    def _pane_notice(self, text: str) -> None:
        self.notify(text, severity="error", markup=False, timeout=10)

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
