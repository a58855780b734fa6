"""The delegation tree: the work each chat gave, layer by layer, with usage against limits.

Roots are the chats that gave work (a person's chats); under each, the delegations it
gave; under a delegation, the work its task chat gave in turn. Every delegation line
carries its status, bot and task; below it one line of live bars (time, steps, budget
against the limits) and, while paused, why and what it waits for. Ended work folds up.

Lines are drawn from frozen :class:`~tuibot.delegation.records.Delegation` records to
whatever width the pane has, so the same tree reads at ~60 columns and zoomed. Running
work's time moves between events (:mod:`tuibot.tui.work_clock`): one timer, at most once
a second and only while the tree is on screen, redraws the bar lines of running work (no
timer per node).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tuibot.delegation.records import Delegation, RecordError
from tuibot.events import DelegationChanged, Event
from tuibot.tui import clock
from tuibot.tui.messages import OpenChat
from tuibot.tui.text import bars
from tuibot.tui.text import delegation_lines as lines
from tuibot.tui.work_clock import WorkClock

if TYPE_CHECKING:
    from tuibot.engine import Engine

RECENT_S = 24 * 3600.0
"""Ended work younger than this is shown (as ``tuibot delegations list`` does)."""
TICK_S = 1.0
"""How often running work's time bars move."""
UNSHOWN_WIDTH = 80
"""Lines are drawn this wide while the tree has no size yet (a hidden tab)."""
NodeKind = Literal["chat", "work", "usage", "pause"]


@dataclass(frozen=True)
class DelegationNode:
    """What one line of the tree shows: a giving chat, a delegation, or one of its details."""

    kind: NodeKind
    chat: str
    """For ``chat``: the chat that gave the work; otherwise the delegation's giver chat."""
    record: Delegation | None = None
    """The delegation (every kind but ``chat``)."""


EMPTY_HINT = "No delegated work yet. When a bot gives a task to a bot, it shows here."
"""The tree's one line while no work is shown."""


class DelegationTree(Tree[DelegationNode]):
    """Delegated work as a tree, with keys to open, cancel or answer it.

    | Key | Binding id | Does |
    | --- | --- | --- |
    | ``enter`` | ``tree_open`` | Open the task chat (or the giving chat, on a root) |
    | ``x`` | ``tree_cancel`` | Cancel the work and all below it (asks first; the giver is told) |
    | ``a`` | ``tree_answer`` | Answer the work's pending request in the approvals queue |
    | ``space`` | | Fold or unfold a line |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_chat", "Open chat", id="tree_open"),
        Binding("x", "cancel", "Cancel work", id="tree_cancel"),
        Binding("a", "answer", "Answer request", id="tree_answer"),
    ]
    """Each id can be rebound under ``[tui.keys]``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "delegation-tree--chat",
        "delegation-tree--open",
        "delegation-tree--paused",
        "delegation-tree--ended",
        "delegation-tree--failed",
        "delegation-tree--muted",
        "delegation-tree--bar",
        "delegation-tree--bar-high",
        "delegation-tree--bar-over",
        "delegation-tree--track",
    }

    DEFAULT_CSS = """
    DelegationTree { height: 1fr; padding: 0 1 0 0; }
    DelegationTree > .delegation-tree--chat { color: $foreground; text-style: bold; }
    DelegationTree > .delegation-tree--open { color: $accent; }
    DelegationTree > .delegation-tree--paused { color: $warning; }
    DelegationTree > .delegation-tree--ended { color: $success; }
    DelegationTree > .delegation-tree--failed { color: $error; }
    DelegationTree > .delegation-tree--muted { color: $text-muted; }
    DelegationTree > .delegation-tree--bar { color: $success; }
    DelegationTree > .delegation-tree--bar-high { color: $warning; }
    DelegationTree > .delegation-tree--bar-over { color: $error; }
    DelegationTree > .delegation-tree--track { color: $panel-lighten-2; }
    """

    class CancelRequested(Message):
        """The person wants this work stopped (the app asks for confirmation first)."""

        def __init__(self, tree: DelegationTree, record: Delegation) -> None:
            super().__init__()
            self.tree = tree
            self.record = record

        @property
        def control(self) -> DelegationTree:
            return self.tree

    class AnswerRequested(Message):
        """The person wants to answer what this work waits for (its approval request)."""

        def __init__(self, tree: DelegationTree, record: Delegation) -> None:
            super().__init__()
            self.tree = tree
            self.record = record

        @property
        def control(self) -> DelegationTree:
            return self.tree

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("delegations", id=id)
        self.set_reactive(Tree.show_root, False)
        self.set_reactive(Tree.guide_depth, 3)
        self._engine: Engine | None = None
        self._records: dict[str, Delegation] = {}
        self._work_nodes: dict[str, TreeNode[DelegationNode]] = {}
        self._roots: dict[str, TreeNode[DelegationNode]] = {}
        self._titles: dict[str, str] = {}
        self._task_chats: dict[str, str] = {}
        """Task chat → the delegation (latest round) working in it."""
        self._clock = WorkClock()
        """Running work's time, moved between records (what the usage lines draw)."""
        self._hint: TreeNode[DelegationNode] | None = None
        """The "no delegated work yet" line, while there is no work to show."""

    def on_mount(self) -> None:
        self._ticker = self.set_interval(TICK_S, self._tick, pause=True)

    # -- the pane contract -------------------------------------------------------------

    def load(self, engine: Engine) -> None:
        """Show open work and work ended in the last day (called once, engine ready)."""
        self._engine = engine
        self._titles = {meta.id: meta.title for meta in engine.view.chats()}
        self.clear()
        self._hint = None
        self._records.clear()
        self._work_nodes.clear()
        self._roots.clear()
        cutoff = clock.now() - RECENT_S
        records = sorted(engine.view.delegations(), key=lambda r: r.created)
        for record in records:
            if record.is_open or record.updated >= cutoff:
                self.upsert(record)
        self._show_hint()

    def _show_hint(self) -> None:
        """With no work to show, one line (a leaf without data) says what will be here."""
        if self._records:
            if self._hint is not None:
                self._hint.remove()
                self._hint = None
        elif self._hint is None:
            self._hint = self.root.add_leaf("")

    def apply(self, event: Event) -> None:
        """Follow ``DelegationChanged``; every other event is ignored."""
        if not isinstance(event, DelegationChanged):
            return
        try:
            record = Delegation.from_json(event.record)
        except RecordError:
            return
        self.upsert(record)

    # -- reading -----------------------------------------------------------------------

    def node_for(self, delegation_id: str) -> TreeNode[DelegationNode] | None:
        """The line of a delegation, if it is shown."""
        return self._work_nodes.get(delegation_id)

    def root_for(self, chat: str) -> TreeNode[DelegationNode] | None:
        """The root line of a chat that gave work, if it is shown."""
        return self._roots.get(chat)

    def label_text(self, node: TreeNode[DelegationNode]) -> str:
        """The plain text of a line as drawn now (for tests and screen readers)."""
        return self.render_label(node, Style(), Style()).plain

    def time_used_ms(self, record: Delegation) -> int:
        """Time counted against the limits, with the running clock added live."""
        return self._clock.used_ms(record)

    def _record_at_cursor(self) -> Delegation | None:
        node = self.cursor_node
        return None if node is None or node.data is None else node.data.record

    # -- updating ----------------------------------------------------------------------

    def upsert(self, record: Delegation) -> None:
        """Show the new version of a delegation, adding its line the first time."""
        old = self._records.get(record.id)
        self._records[record.id] = record
        self._clock.follow(old, record)
        if record.chat:
            known = self._records.get(self._task_chats.get(record.chat, ""))
            if known is None or known.created <= record.created:
                self._task_chats[record.chat] = record.id
        node = self._work_nodes.get(record.id)
        if node is None:
            node = self._add(record)
        else:
            self._update(node, old, record)
        root = self._roots.get(self._root_chat(record))
        if root is not None:
            root.refresh()
        self._ticker_on(any(r.status == "running" for r in self._records.values()))
        self._show_hint()

    def _add(self, record: Delegation) -> TreeNode[DelegationNode]:
        parent = self._giver_node(record)
        data = DelegationNode("work", record.parent.chat, record)
        node = parent.add("", data, expand=record.is_open)
        self._work_nodes[record.id] = node
        node.add_leaf("", DelegationNode("usage", record.parent.chat, record))
        if record.pause is not None:
            node.add_leaf("", DelegationNode("pause", record.parent.chat, record))
        return node

    def _update(
        self, node: TreeNode[DelegationNode], old: Delegation | None, record: Delegation
    ) -> None:
        node.data = DelegationNode("work", record.parent.chat, record)
        node.refresh()
        pause = None
        for child in node.children:
            if child.data is not None and child.data.kind in ("usage", "pause"):
                child.data = DelegationNode(child.data.kind, record.parent.chat, record)
                child.refresh()
                pause = child if child.data.kind == "pause" else pause
        if record.pause is not None and pause is None:
            node.add_leaf("", DelegationNode("pause", record.parent.chat, record), after=0)
        elif record.pause is None and pause is not None:
            pause.remove()
        if old is not None and old.is_open and not record.is_open:
            cursor = self.cursor_node
            if cursor is None or node not in _ancestry(cursor):
                node.collapse()

    def _giver_node(self, record: Delegation) -> TreeNode[DelegationNode]:
        """The line of the work whose task chat gave this, else the giving chat's root."""
        giver = self._task_chats.get(record.parent.chat)
        if giver is not None and giver != record.id and giver in self._work_nodes:
            return self._work_nodes[giver]
        chat = record.parent.chat
        root = self._roots.get(chat)
        if root is None:
            before = 0 if self.root.children else None
            data = DelegationNode("chat", chat)
            root = self.root.add("", data, expand=True, before=before)
            self._roots[chat] = root
        return root

    def _root_chat(self, record: Delegation) -> str:
        node: TreeNode[DelegationNode] | None = self._work_nodes.get(record.id)
        while node is not None and node.parent is not None and node.parent is not self.root:
            node = node.parent
        return node.data.chat if node is not None and node.data is not None else ""

    def _title(self, chat: str) -> str:
        if chat not in self._titles and self._engine is not None:
            self._titles.update((m.id, m.title) for m in self._engine.view.chats())
            self._titles.setdefault(chat, "")
        return bars.chat_title(self._titles.get(chat) or chat)

    def _ticker_on(self, on: bool) -> None:
        ticker = getattr(self, "_ticker", None)
        if ticker is not None:
            ticker.resume() if on else ticker.pause()

    def _tick(self) -> None:
        """Move the time bars of running work, when anyone can see them."""
        if not self.is_on_screen:
            return
        for record_id, record in self._records.items():
            if record.status != "running":
                continue
            node = self._work_nodes.get(record_id)
            if node is None or not node.is_expanded:
                continue
            for child in node.children:
                if child.data is not None and child.data.kind == "usage":
                    child.refresh()

    # -- drawing -----------------------------------------------------------------------

    def get_label_width(self, node: TreeNode[DelegationNode]) -> int:
        """Lines are fitted to the pane, so none needs horizontal room."""
        return 0

    def render_label(self, node: TreeNode[DelegationNode], base_style: Style, style: Style) -> Text:
        """Draw the line from the node's record, fitted to the width left after the guides."""
        data = node.data
        if data is None:  # the hidden root, or the hint line of an empty tree
            hint = node is self._hint
            return Text(EMPTY_HINT, style=self._style("muted")) if hint else Text("")
        depth = len(list(_ancestry(node))) - 1
        pane = self.scrollable_content_region.width or UNSHOWN_WIDTH
        width = pane - (depth - 1) * self.guide_depth - 1
        style_of = self._style
        record = data.record
        if data.kind == "chat":
            live = sum(
                1 for r in self._records.values() if r.is_open and self._root_chat(r) == data.chat
            )
            text = lines.chat_line(
                self._toggle_mark(node), self._title(data.chat), live, width, style_of
            )
        elif record is None:
            text = Text("")
        elif data.kind == "work":
            text = lines.work_line(self._toggle_mark(node), record, width, style_of)
        elif data.kind == "usage":
            text = lines.usage_line(record, self.time_used_ms(record), width, style_of)
        else:
            above = self._records.get(record.pause.delegation or "") if record.pause else None
            text = lines.pause_line(record, above, style_of)
        text.truncate(max(width, 1), overflow="ellipsis")
        text.stylize(style)
        return text

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"delegation-tree--{name}", partial=True)

    def _toggle_mark(self, node: TreeNode[DelegationNode]) -> str:
        return self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE

    # -- keys --------------------------------------------------------------------------

    def action_open_chat(self) -> None:
        """Open the task chat of the work under the cursor (or the giving chat)."""
        node = self.cursor_node
        data = None if node is None else node.data
        if data is None:
            return
        if data.kind == "chat":
            self.post_message(OpenChat(data.chat))
        elif data.record is not None and data.record.chat:
            self.post_message(OpenChat(data.record.chat))
        else:
            self.notify("That work has not started yet: it has no task chat.", timeout=3)

    def action_cancel(self) -> None:
        """Ask the app to cancel the work under the cursor."""
        record = self._record_at_cursor()
        if record is None:
            return
        if not record.is_open:
            self.notify(f"That work has already ended ({record.status}).", timeout=3)
            return
        self.post_message(self.CancelRequested(self, record))

    def action_answer(self) -> None:
        """Ask the app to show the request the work under the cursor waits on."""
        record = self._record_at_cursor()
        if record is None:
            return
        if record.status not in ("paused", "authorizing"):
            self.notify("That work waits for no decision.", timeout=3)
            return
        self.post_message(self.AnswerRequested(self, record))


def _ancestry(node: TreeNode[DelegationNode]) -> list[TreeNode[DelegationNode]]:
    """``node`` and every node above it, up to the (hidden) root."""
    found: list[TreeNode[DelegationNode]] = []
    current: TreeNode[DelegationNode] | None = node
    while current is not None:
        found.append(current)
        current = current.parent
    return found
