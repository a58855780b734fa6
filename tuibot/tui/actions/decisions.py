"""Approval decisions from the queue, and telling the person a request arrived.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. The approvals pane only shows requests and
posts what the person decided; this is where the decision reaches the engine. A request
nobody notices is denied when it times out, so a new one that arrives while the person
looks elsewhere rings the bell, sends a desktop-notification escape (both can be turned
off: ``tui.bell``, ``tui.notify``) and, when the queue is out of sight, shows a toast.

Handlers here are named ``on_<message>`` rather than decorated with ``@on``: Textual only
collects ``@on`` handlers from classes built by its metaclass, and a mixin is not one.
"""

from __future__ import annotations

import time
from contextlib import suppress
from typing import TYPE_CHECKING

from textual.css.query import NoMatches
from textual.widgets import TabbedContent

from tuibot.events import ApprovalRequested, Event
from tuibot.tui import compat
from tuibot.tui.later_panes import approvals_pane
from tuibot.tui.notify import alert, clean_summary

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

    from tuibot.engine import Engine
    from tuibot.settings import Settings
    from tuibot.tui.widgets.approvals import ApprovalsPane

    _AppBase = App[int]
else:
    _AppBase = object

APPROVALS_TAB = "tab-approvals"
"""The side pane's tab that holds the queue."""
STALE = "That request is no longer waiting (decided elsewhere or timed out); nothing was done."
GONE = "That request is no longer waiting (decided elsewhere or timed out)."
TOAST_TITLE = "ctrl+g opens the approvals queue"
"""Title of the toast for a request that arrived while the queue was out of sight."""
ALERT_GAP_S = 3.0
"""A burst of requests (ten delegations asking at once) rings once, not ten times."""


class DecisionCommands(_AppBase):
    """Approval commands for the app; expects the attributes declared below."""

    if TYPE_CHECKING:
        engine: Engine | None
        settings: Settings

        def action_focus_pane(self, pane: str) -> None: ...

    _last_alert: float = float("-inf")
    """When the bell last rang (monotonic seconds)."""

    def on_approval_event(self, event: Event) -> None:
        """Called for every ApprovalRequested / ApprovalDecided the engine publishes."""
        if isinstance(event, ApprovalRequested):
            self._announce(event)

    def _announce(self, event: ApprovalRequested) -> None:
        """Make a new request noticed when the person is not looking at the queue."""
        engine = self.engine
        if engine is None or not engine.view.is_pending(event.request_id):
            return  # answered before it reached the screen: nothing to call attention to
        pane = self.query_one("#approvals", approvals_pane())
        now = time.monotonic()
        if not (self.app_focus and self.focused is pane) and now - self._last_alert >= ALERT_GAP_S:
            self._last_alert = now
            tui = self.settings.tui
            alert(self, event.summary, bell=tui.bell, desktop=tui.notify)
        if not (pane.is_on_screen and self.screen is pane.screen):
            self.notify(
                f"Approval needed: {clean_summary(event.summary, None)}",
                title=TOAST_TITLE,
                severity="warning",
                timeout=8,
                markup=False,
            )

    def dismiss_approval_toasts(self) -> None:
        """The queue is in view: its toasts would only cover it (other toasts stay)."""
        compat.withdraw_toasts(self, TOAST_TITLE)

    def on_approvals_pane_decided(self, message: ApprovalsPane.Decided) -> None:
        """Pass the person's decision to the engine; a stale request is said to be one."""
        message.stop()
        engine = self.engine
        if engine is None:
            return
        if not engine.decide(message.request_id, message.decision):
            self.notify(STALE, severity="warning", timeout=5)
        message.pane.sync()

    def on_approvals_pane_count_changed(self, message: ApprovalsPane.CountChanged) -> None:
        """Keep the tab's title showing how many requests wait."""
        message.stop()
        label = f"Approvals ({message.count})" if message.count else "Approvals"
        with suppress(NoMatches, ValueError):  # no such tab: the status bar has the count
            self.query_one(TabbedContent).get_tab(APPROVALS_TAB).label = label

    def on_show_request(self, message: Message) -> None:
        """Another pane (the delegation tree) asks to answer a request: show it selected.

        ``tuibot.tui.messages.ShowRequest`` carries ``request_id``; it is matched by its
        handler name, so this module does not depend on where the class is defined.
        """
        message.stop()
        self.show_request(str(getattr(message, "request_id", "")))

    def show_request(self, request_id: str) -> bool:
        """Focus the queue with ``request_id`` selected; False (and a toast) when gone."""
        self.action_focus_pane("approvals")
        pane = self.query_one("#approvals", approvals_pane())
        pane.sync()
        if pane.select(request_id):
            return True
        self.notify(GONE, severity="warning", timeout=4)
        return False
