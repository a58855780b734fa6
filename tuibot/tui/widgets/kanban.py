"""The task kanban: every input a chat answers, as a card in the column of its state.

Cards render frozen :class:`~tuibot.tasks.Task` records. The board is read once from the
engine and then follows ``TaskChanged`` events: a card whose state did not change is
re-rendered in place, one that moved is taken out of its old column and put into the new
one; nothing else is touched. Each column shows its newest cards first, at most
``MAX_CARDS`` of them, so a long day of work stays fast.

The pane holds the focus itself and moves a cursor over the cards, so F8 zooms the whole
board. Narrower than ``WIDE`` columns (the side tab, ~60 columns) the columns stack as
sections and empty ones are hidden; wider (zoomed) they stand side by side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.reactive import reactive, var
from textual.widget import Widget
from textual.widgets import Label, Static

from tuibot.events import DelegationChanged, Event, TaskChanged
from tuibot.tasks import RETENTION_S, STATES, Task, TaskError, TaskState
from tuibot.tui import clock
from tuibot.tui.messages import OpenChat
from tuibot.tui.text import bars

if TYPE_CHECKING:
    from tuibot.engine import Engine

ORDER: tuple[TaskState, ...] = ("todo", "doing", "waiting", "paused", "done", "error")
"""Columns from left to right: work to start, running, held, ended."""
assert set(ORDER) == set(STATES)
MAX_CARDS = 50
"""Cards shown per column (newest first); the rest are counted under it."""
WIDE = 100
"""From this width on, columns stand side by side; below it they stack."""
SUBJECT_LIMIT = 120
"""Characters of a delegated task's text a card shows."""
AGE_REFRESH_S = 15.0
"""How often cards' ages are redrawn (only while the board is on screen)."""


class TaskCard(Widget):
    """One task: its title, bot, counts and age; classed by state for colour."""

    DEFAULT_CSS = """
    TaskCard {
        height: auto; padding: 0 1; margin: 0 0 1 0;
        background: $boost; border-left: wide $panel;
    }
    TaskCard.-doing { border-left: wide $accent; }
    TaskCard.-waiting, TaskCard.-paused { border-left: wide $warning; }
    TaskCard.-done { border-left: wide $success; }
    TaskCard.-error { border-left: wide $error; }
    TaskCard.-cursor { background: $panel; }
    """

    record: reactive[Task] = reactive(None, layout=True, always_update=True)  # type: ignore[arg-type]
    """The version of the task shown."""

    subject: reactive[str | None] = reactive(None, layout=True)
    """The delegated task's whole text, when the title is the (cut) notice that gave it."""

    def __init__(self, task: Task, *, cursor: bool = False, subject: str | None = None) -> None:
        super().__init__(classes=f"-{task.state}" + (" -cursor" if cursor else ""))
        self.set_reactive(TaskCard.record, task)
        self.set_reactive(TaskCard.subject, subject)

    def title(self) -> str:
        """The card's heading: the title, a given task shown as ``↳ <task>``."""
        given = bars.given_task(self.record.title)
        if given is None:
            return self.record.title
        return bars.GIVEN_MARK + bars.shorten(self.subject or given, SUBJECT_LIMIT)

    def render(self) -> Content:
        task = self.record
        meta = [task.bot]
        if task.tool_calls:
            meta.append(f"{task.tool_calls} tool{'s' if task.tool_calls != 1 else ''}")
        if task.iterations:
            meta.append(f"{task.iterations} call{'s' if task.iterations != 1 else ''}")
        meta.append(bars.age(clock.now() - task.created))
        if task.recovered:
            meta.append("recovered")
        lines = [Content.styled(self.title(), "bold"), Content.styled(" · ".join(meta), "dim")]
        if task.state == "error" and task.error:
            lines.append(Content.styled(" ".join(task.error.split())[:200], "$text-error"))
        return Content("\n").join(lines)


class KanbanColumn(Vertical):
    """One state's cards under a header with the count."""

    DEFAULT_CSS = """
    KanbanColumn { width: 1fr; height: 1fr; padding: 0 1 0 0; }
    KanbanColumn > .column-title { width: 100%; color: $text-muted; text-style: bold; }
    KanbanColumn > .column-more { color: $text-muted; }
    KanbanColumn > ScrollableContainer { height: 1fr; scrollbar-size-vertical: 1; }
    """

    def __init__(self, state: TaskState) -> None:
        super().__init__(id=f"column-{state}")
        self.state = state
        self.title = Label(state, classes="column-title")
        self.cards = ScrollableContainer(can_focus=False)
        self.more = Label("", classes="column-more")

    def compose(self) -> ComposeResult:
        yield self.title
        yield self.cards
        yield self.more

    def show_count(self, shown: int, total: int, *, narrow: bool) -> None:
        """Header count and the "+N older" line; stacked, an empty column is hidden.

        Visibility is set inline rather than by a class: a class change would restyle
        every card in the column, on every task that passes through it.
        """
        self.title.update(f"{self.state} ({total})")
        self.more.update(f"+{total - shown} older" if total > shown else "")
        self.more.display = total > shown
        self.display = bool(total) or not narrow


class TaskKanban(Widget, can_focus=True):
    """Columns of task cards; the arrow keys move a cursor, Enter opens the task's chat.

    | Key | Binding id | Does |
    | --- | --- | --- |
    | ``up``, ``down`` | ``tasks_up``, ``tasks_down`` | Previous, next card (stacked: on across) |
    | ``left``, ``right`` | ``tasks_left``, ``tasks_right`` | Previous, next column with cards |
    | ``enter`` | ``tasks_open`` | Open the task's chat |
    """

    ALLOW_MAXIMIZE = True

    DEFAULT_CSS = """
    TaskKanban { height: 1fr; padding: 0 0 0 1; }
    TaskKanban > #kanban-summary { height: 1; color: $text-muted; display: none; }
    TaskKanban.-narrow > #kanban-summary { display: block; }
    TaskKanban > #kanban-empty { color: $text-muted; padding: 1 0; }
    TaskKanban > #kanban-columns { layout: horizontal; height: 1fr; overflow: hidden hidden; }
    TaskKanban.-narrow > #kanban-columns { layout: vertical; overflow-y: auto; }
    TaskKanban:focus > #kanban-summary { color: $foreground; }
    TaskKanban:focus TaskCard.-cursor { background: $primary 40%; }
    TaskKanban.-narrow KanbanColumn { width: 100%; height: auto; padding: 0; }
    TaskKanban.-narrow KanbanColumn > ScrollableContainer { height: auto; overflow: hidden; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(0, -1)", "Up", id="tasks_up", show=False),
        Binding("down", "move(0, 1)", "Down", id="tasks_down", show=False),
        Binding("left", "move(-1, 0)", "Left", id="tasks_left", show=False),
        Binding("right", "move(1, 0)", "Right", id="tasks_right", show=False),
        Binding("enter", "open", "Open chat", id="tasks_open"),
    ]
    """Cursor keys and Enter; every id can be rebound under ``[tui.keys]``."""

    cursor: var[str | None] = var(None)
    """The id of the task under the cursor."""

    def __init__(self, *, id: str | None = None) -> None:
        # Narrow from the start: the side tab is narrow, and a class changed after the
        # first layout would restyle the whole board before the first frame.
        super().__init__(id=id, classes="-narrow")
        self._board: dict[str, Task] = {}
        self._cards: dict[str, TaskCard] = {}
        self._subjects: dict[str, str] = {}
        """Delegation id → the task it gave (a task chat's first title is cut short)."""
        self._columns = {state: KanbanColumn(state) for state in ORDER}

    def compose(self) -> ComposeResult:
        yield Static("", id="kanban-summary")
        yield Static("No tasks yet. Every message a chat answers shows up here.", id="kanban-empty")
        with ScrollableContainer(id="kanban-columns", can_focus=False):
            yield from self._columns.values()

    def on_mount(self) -> None:
        self.set_interval(AGE_REFRESH_S, self._refresh_ages)
        self._refresh_counts()

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < WIDE
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            self._refresh_counts()

    def on_focus(self) -> None:
        if self.cursor is None or self.cursor not in self._cards:
            self.action_move(0, 0)

    # -- the pane contract -------------------------------------------------------------

    def load(self, engine: Engine) -> None:
        """Show the engine's board as it is now (called once, when the engine is ready)."""
        for card in self._cards.values():
            card.remove()
        self._cards.clear()
        self._board = {task.id: task for task in engine.view.tasks()}
        self._subjects = {r.id: r.task for r in engine.view.delegations()}
        for state in ORDER:
            cards = [self._card(t) for t in self.shown(state)]
            self._cards.update((card.record.id, card) for card in cards)
            if cards:
                self._columns[state].cards.mount_all(cards)
        self._refresh_counts()

    def apply(self, event: Event) -> None:
        """Follow ``TaskChanged`` (and learn delegated tasks' text from ``DelegationChanged``)."""
        if isinstance(event, DelegationChanged):
            self._learn_subject(event.record)
        if not isinstance(event, TaskChanged):
            return
        try:
            task = Task.from_json(event.task)
        except TaskError:
            return
        self.place(task)

    # -- reading -----------------------------------------------------------------------

    def shown(self, state: TaskState) -> list[Task]:
        """The cards a column shows, newest first, at most ``MAX_CARDS``."""
        return self._ordered(state)[:MAX_CARDS]

    def card_for(self, task_id: str) -> TaskCard | None:
        """The card showing ``task_id``, if it is shown."""
        return self._cards.get(task_id)

    def _card(self, task: Task) -> TaskCard:
        subject = self._subjects.get(task.delegation) if task.delegation else None
        return TaskCard(task, cursor=task.id == self.cursor, subject=subject)

    def _learn_subject(self, record: dict[str, object]) -> None:
        delegation, text = record.get("id"), record.get("task")
        if not isinstance(delegation, str) or not isinstance(text, str):
            return
        if self._subjects.get(delegation) == text:
            return
        self._subjects[delegation] = text
        for card in self._cards.values():
            if card.record.delegation == delegation:
                card.subject = text

    def _ordered(self, state: TaskState) -> list[Task]:
        tasks = [task for task in self._board.values() if task.state == state]
        return sorted(tasks, key=lambda task: (task.created, task.id), reverse=True)

    # -- updating ----------------------------------------------------------------------

    def place(self, task: Task) -> None:
        """Show the new version of a task: in place, or moved to its new column."""
        old = self._board.get(task.id)
        self._board[task.id] = task
        card = self._cards.get(task.id)
        if old is not None and old.state == task.state and card is not None:
            card.record = task
            return
        if card is not None:
            del self._cards[task.id]
            card.remove()
        if old is not None and old.state != task.state:
            self._refill(old.state)
        self._insert(task)
        self._refresh_counts()

    def _insert(self, task: Task) -> None:
        """Mount the card at its place among the newest ``MAX_CARDS``; drop the overflow."""
        shown = self.shown(task.state)
        ids = [t.id for t in shown]
        if task.id not in ids:
            return
        column = self._columns[task.state]
        card = self._card(task)
        self._cards[task.id] = card
        after = [self._cards[i] for i in ids[ids.index(task.id) + 1 :] if i in self._cards]
        column.cards.mount(card, before=after[0] if after else None)
        for extra in self._ordered(task.state)[MAX_CARDS:]:
            dropped = self._cards.pop(extra.id, None)
            if dropped is not None:
                dropped.remove()

    def _refill(self, state: TaskState) -> None:
        """A card left a capped column: show the next older one in its place."""
        for task in self.shown(state):
            if task.id not in self._cards:
                card = self._card(task)
                self._cards[task.id] = card
                self._columns[state].cards.mount(card)

    def _refresh_counts(self) -> None:
        counts = {state: 0 for state in ORDER}
        for task in self._board.values():
            counts[task.state] += 1
        narrow = self.has_class("-narrow")
        for state, column in self._columns.items():
            column.show_count(min(counts[state], MAX_CARDS), counts[state], narrow=narrow)
        parts = [
            Content.styled(f"{state} {counts[state]}", "bold" if counts[state] else "dim")
            for state in ORDER
        ]
        self.query_one("#kanban-summary", Static).update(Content("  ").join(parts))
        self.query_one("#kanban-empty").display = not self._board

    def _refresh_ages(self) -> None:
        """Redraw ages while on screen; drop ended tasks past the board's retention."""
        cutoff = clock.now() - RETENTION_S
        stale = [t for t in self._board.values() if t.ended and t.updated < cutoff]
        for task in stale:
            del self._board[task.id]
            card = self._cards.pop(task.id, None)
            if card is not None:
                card.remove()
        for state in {task.state for task in stale}:
            self._refill(state)
        if stale:
            self._refresh_counts()
        if self.is_on_screen:
            for card in self._cards.values():
                card.refresh()

    # -- the cursor --------------------------------------------------------------------

    def watch_cursor(self, old: str | None, new: str | None) -> None:
        """Move the highlight (one class on two cards) and bring the new card into view."""
        for task_id, on in ((old, False), (new, True)):
            card = self._cards.get(task_id) if task_id else None
            if card is not None:
                card.set_class(on, "-cursor")
                if on:
                    card.scroll_visible(animate=False)

    def _lanes(self) -> list[list[str]]:
        """The shown card ids of each column that has cards, left to right."""
        lanes = [[task.id for task in self.shown(state)] for state in ORDER]
        return [lane for lane in lanes if lane]

    def action_move(self, across: int, down: int) -> None:
        """Move the cursor a column ``across`` or a card ``down`` (negative: back)."""
        lanes = self._lanes()
        if not lanes:
            return
        where = next(
            ((x, lane.index(self.cursor)) for x, lane in enumerate(lanes) if self.cursor in lane),
            None,
        )
        if where is None:
            self.cursor = lanes[0][0]
            return
        x, y = where
        if across:
            x = min(max(x + across, 0), len(lanes) - 1)
            y = min(y, len(lanes[x]) - 1)
        elif 0 <= y + down < len(lanes[x]):
            y += down
        elif self.has_class("-narrow") and 0 <= x + down < len(lanes):
            x += down  # stacked sections: keep going into the next one
            y = 0 if down > 0 else len(lanes[x]) - 1
        self.cursor = lanes[x][y]

    def action_open(self) -> None:
        """Open the chat of the task under the cursor."""
        task = self._board.get(self.cursor) if self.cursor else None
        if task is not None:
            self.post_message(OpenChat(task.chat))
