"""The approvals queue: every request waiting for the person, oldest first.

A request is shown as exactly what would happen — the bot, the tool and its full
arguments; the giver, the bot, the task and the reason of a first delegation; the limit,
the usage against the limits and the task of paused work — with its chat and the time
left before it is denied. One key answers it. The pane only shows and asks: decisions go
to the app as :class:`ApprovalsPane.Decided`, and the engine's queue stays the truth, so a
request decided elsewhere (``ask``, a timeout, another front end) simply leaves.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from tuibot.approvals import Decision
from tuibot.events import ApprovalDecided, ApprovalRequested, Event
from tuibot.tui import clock
from tuibot.tui.messages import OpenChat
from tuibot.tui.text.approval_text import KIND_TITLES, describe, time_left

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.timer import Timer

    from tuibot.engine import Engine
    from tuibot.engine.view import EngineView, PendingApproval

EMPTY_TEXT = (
    "No requests are waiting.\n\n"
    "A request shows up here when a bot wants to run a tool that needs your say-so (a "
    "shell command, a write into tuibot's own folders), gives work to another bot for "
    "the first time, or its delegated work reaches a limit or repeats itself. Each one "
    "says exactly what would happen and how long it waits before it is denied.\n\n"
    "y allow once · c allow in this chat · a allow always · p allow a command prefix or a "
    "folder you choose · n deny · q deny with a question. What c and a would keep is said "
    "under each request: that command, that file, that host — nothing more."
)
SETTLE_S = 0.5
"""Seconds a request that moved into place after a decision ignores the decision keys."""
_ANSWERS = frozenset(
    {"allow_once", "allow_chat", "allow_always", "allow_broader", "deny", "ask", "open"}
)
"""Actions that act on the selected request: not offered while none is selected."""


class RequestCard(Vertical):
    """One pending request: a title line with its countdown, then what would happen."""

    DEFAULT_CSS = """
    RequestCard {
        height: auto; padding: 0 1; margin-bottom: 1;
        border-left: outer $panel; background: $surface;
    }
    RequestCard.-selected { border-left: outer $accent; background: $boost; }
    RequestCard > .when { color: $warning; }
    RequestCard > .what { color: $foreground; }
    """

    def __init__(self, request: PendingApproval, now: float) -> None:
        super().__init__()
        self.request = request
        left = request.created + request.timeout - time.time()  # the engine's clock
        self.deadline = now + max(left, 0.0)
        """When the engine denies it, on the app's clock (frozen in snapshot tests)."""
        self._shown_title = self._title(now)
        self._details = describe(request)
        self._when = Static(self._shown_title, classes="when")
        self._what = Static(self._details, classes="what")

    def compose(self) -> ComposeResult:
        yield self._when
        yield self._what

    def _title(self, now: float) -> Content:
        request = self.request
        kind = KIND_TITLES.get(request.kind, request.kind)
        when = time_left(self.deadline, now)
        return Content.assemble(("⚑ ", "bold"), (kind, "bold"), f" · chat {request.chat} · {when}")

    @property
    def text(self) -> str:
        """What the card shows, as plain text (its title line, then the details)."""
        return f"{self._shown_title.plain}\n{self._details.plain}"

    def show_time(self, now: float) -> None:
        """Redraw the countdown."""
        self._shown_title = self._title(now)
        self._when.update(self._shown_title)


class ApprovalsPane(VerticalScroll):
    """Pending requests of every chat, oldest first; keys decide the selected one."""

    DEFAULT_CSS = """
    ApprovalsPane { padding: 0 1; }
    ApprovalsPane > .empty { color: $text-muted; padding: 1 1; }
    ApprovalsPane:focus > RequestCard.-selected { border-left: outer $primary; }
    """

    ALLOW_MAXIMIZE = True
    """F8 zooms the queue (Textual's scroll containers refuse by default)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "allow_once", "Allow once", id="approve_once"),
        Binding("c", "allow_chat", "Allow in chat", id="approve_chat"),
        Binding("a", "allow_always", "Allow always", id="approve_always"),
        Binding("p", "allow_broader", "Allow prefix/folder", id="approve_prefix"),
        Binding("n", "deny", "Deny", id="approval_deny"),
        Binding("q", "ask", "Deny + ask", id="approval_ask"),
        Binding("j,down", "move(1)", "Next", id="approval_next", show=False),
        Binding("k,up", "move(-1)", "Previous", id="approval_previous", show=False),
        Binding("enter", "open", "Open chat", id="approval_open"),
    ]
    """Keys while the pane has focus; each id can be rebound under ``[tui.keys]``."""

    selected: var[str | None] = var(None)
    """The id of the request the keys act on (None when nothing waits)."""

    class Decided(Message):
        """The person answered a request; the app passes it to the engine."""

        def __init__(self, pane: ApprovalsPane, request_id: str, decision: Decision) -> None:
            super().__init__()
            self.pane = pane
            self.request_id = request_id
            self.decision = decision

        @property
        def control(self) -> ApprovalsPane:
            return self.pane

    class CountChanged(Message):
        """How many requests the pane lists changed (for the tab's title)."""

        def __init__(self, pane: ApprovalsPane, count: int) -> None:
            super().__init__()
            self.pane = pane
            self.count = count

        @property
        def control(self) -> ApprovalsPane:
            return self.pane

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._view: EngineView | None = None
        self._cards: dict[str, RequestCard] = {}
        """Shown requests by id, oldest first (as the queue lists them)."""
        self._timer: Timer | None = None
        self._moved_in = float("-inf")
        """When a request last took the place of a decided one (monotonic seconds)."""

    def compose(self) -> ComposeResult:
        yield Static(EMPTY_TEXT, classes="empty")

    def on_mount(self) -> None:
        self._timer = self.set_interval(
            1.0, self.show_countdowns, pause=True, name="approval countdown"
        )

    # -- following the engine ---------------------------------------------------------

    def load(self, engine: Engine) -> None:
        """Show what the engine's queue holds now."""
        self._view = engine.view
        self.sync()

    def apply(self, event: Event) -> None:
        """A request arrived or was decided (anywhere): show the queue as it is."""
        if isinstance(event, ApprovalRequested | ApprovalDecided):
            self.sync()

    @property
    def request_ids(self) -> list[str]:
        """The ids listed, oldest first."""
        return list(self._cards)

    def sync(self) -> None:
        """Match the cards to the queue's pending requests: drop decided ones, add new ones."""
        pending = self._view.pending_approvals() if self._view is not None else ()
        wanted = {request.id for request in pending}
        before = list(self._cards)
        for request_id in before:
            if request_id not in wanted:
                self._cards.pop(request_id).remove()
        now = clock.now()
        for request in pending:
            if request.id not in self._cards:
                self._cards[request.id] = card = RequestCard(request, now)
                self.mount(card)
        if self.selected not in self._cards:
            self._reselect(before)
        self.query_one(".empty", Static).display = not self._cards
        if self._timer is not None:
            (self._timer.resume if self._cards else self._timer.pause)()
        if list(self._cards) != before:
            self.post_message(self.CountChanged(self, len(self._cards)))

    def _reselect(self, before: list[str]) -> None:
        """The selected request left: select the one that took its place, else the last.

        A request that moves into place this way cannot be answered for a moment, so a
        double press (or a held key) never decides a request the person has not seen.
        """
        ids = list(self._cards)
        if not ids:
            self.select(None)
            return
        if self.selected not in before:  # nothing was selected: start with the oldest
            self.select(ids[0])
            return
        self._moved_in = time.monotonic()
        later = [i for i in before[before.index(self.selected) :] if i in self._cards]
        self.select(later[0] if later else ids[-1])

    def select(self, request_id: str | None) -> bool:
        """Make ``request_id`` the one the keys act on; False when it is not listed."""
        if request_id is not None and request_id not in self._cards:
            return False
        self.selected = request_id
        return True

    def watch_selected(self, old: str | None, new: str | None) -> None:
        self.refresh_bindings()  # c / a / p are offered only where they would do something
        previous = self._cards.get(old or "")
        if previous is not None:
            previous.remove_class("-selected")
        card = self._cards.get(new or "")
        if card is not None:
            card.add_class("-selected")
            self.call_after_refresh(self.scroll_to_widget, card, top=True, animate=False)

    def show_countdowns(self) -> bool:
        """Redraw the countdowns if the pane is on screen (else nobody would see them)."""
        if not self.is_on_screen:
            return False
        now = clock.now()
        for card in self._cards.values():
            card.show_time(now)
        return True

    def on_show(self) -> None:
        self.show_countdowns()

    # -- keys -------------------------------------------------------------------------

    def _current(self) -> PendingApproval | None:
        card = self._cards.get(self.selected or "")
        if card is None:
            self.notify("No request is waiting.", timeout=2)
            return None
        if time.monotonic() - self._moved_in < SETTLE_S:
            self.notify("This request just moved into place: read it, then answer.", timeout=2)
            return None
        return card.request

    def _decide(self, decision: Decision) -> None:
        request = self._current()
        if request is not None:
            self.post_message(self.Decided(self, request.id, decision))

    def action_allow_once(self) -> None:
        """Allow this one request."""
        self._decide(Decision(True, "once", reason="allowed once"))

    def action_allow_chat(self) -> None:
        """Allow it and the same request in this chat from now on."""
        if self._grantable():
            self._decide(Decision(True, "chat", reason="allowed for this chat"))

    def action_allow_always(self) -> None:
        """Allow it and the same request in every chat from now on."""
        if self._grantable():
            self._decide(Decision(True, "lifetime", reason="allowed always"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide what would do nothing: every answer (and Enter) while no request is
        selected, and c / a (and p) where they would keep nothing. The key bar offers
        only what the selected request can be answered with."""
        if action in _ANSWERS and self._cards.get(self.selected or "") is None:
            return False
        if action in ("allow_chat", "allow_always", "allow_broader"):
            return self._grant_refusal(broader=action == "allow_broader") is None
        return True

    def _grant_refusal(self, *, broader: bool = False) -> str | None:
        """Why the selected request cannot be kept as a grant (None: it can)."""
        card = self._cards.get(self.selected or "")
        permission = (card.request.details.get("permission") or {}) if card else {}
        if card is None or not permission or permission.get("grantKey"):
            if broader and not permission.get("prefixes"):
                return "This request offers no prefix or folder to allow."
            return None
        why = permission.get("whyOnce") or "it cannot be kept as a grant"
        return f"Only y (once) can allow this: {why}."

    def _grantable(self, *, broader: bool = False) -> bool:
        """Whether the selected request may be kept as a grant (else say why, once).

        The keys are hidden then (:meth:`check_action`); this still guards a key bound
        twice or a request that changed between the key bar's refresh and the press.
        """
        why = self._grant_refusal(broader=broader)
        if why is not None:
            self.notify(why, severity="warning", timeout=4)
        return why is None

    def action_allow_broader(self) -> None:
        """Allow a command prefix or a folder, chosen and edited in a prompt, in this chat."""
        from tuibot.approvals.request_text import chosen_grant
        from tuibot.tui.screens.prompt import PromptScreen

        request = self._current()
        if request is None or not self._grantable(broader=True):
            return
        details, request_id = request.details, request.id
        offered = list(details["permission"]["prefixes"])
        folder = details["permission"].get("kind") == "write"

        def answered(text: str | None) -> None:
            if text is None:
                return
            key = chosen_grant(details, text)
            if key is None:
                self.notify("That cannot be allowed as a prefix or folder.", severity="warning")
                return
            decision = Decision(True, "chat", reason="allowed for this chat", grant=key)
            self.post_message(self.Decided(self, request_id, decision))

        what = (
            "Allow in this chat every write under this folder:"
            if folder
            else ("Allow in this chat commands starting with (plain words after it only):")
        )
        self.app.push_screen(PromptScreen(what, value=offered[0]), answered)

    def action_deny(self) -> None:
        """Deny the request."""
        self._decide(Decision(False, reason="denied by the user"))

    def action_ask(self) -> None:
        """Deny with a question for whoever asked (typed in a prompt)."""
        from tuibot.tui.screens.prompt import PromptScreen

        request = self._current()
        if request is None:
            return
        request_id = request.id

        def answered(question: str | None) -> None:
            question = (question or "").strip()
            if question:
                reason = f"the user asks: {question}"
                decision = Decision(False, reason=reason, question=question)
                self.post_message(self.Decided(self, request_id, decision))

        prompt = PromptScreen(
            "Deny, and ask the bot this instead:", placeholder="e.g. why do you need that?"
        )
        self.app.push_screen(prompt, answered)

    def action_move(self, step: int) -> None:
        """Select the next (1) or previous (-1) request."""
        ids = list(self._cards)
        if not ids:
            return
        index = ids.index(self.selected) if self.selected in ids else -step
        self.select(ids[max(0, min(len(ids) - 1, index + step))])

    def action_open(self) -> None:
        """Show the chat the request belongs to (a task chat's tool call: that task chat)."""
        request = self._current()
        if request is not None:
            self.post_message(OpenChat(request.details.get("task_chat") or request.chat))
