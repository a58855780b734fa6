"""The live tool log: every tool call of every chat as it happens, and tool load problems.

``ToolStarted`` adds a row (``running``); ``ToolFinished`` fills in its status, duration
and output size. Notices without a chat are the tool catalogue's and reloader's (a user
tool with a syntax error after a hot reload, a skipped skill): they become rows too, with
their level as the status. The newest ``MAX_ROWS`` entries are kept, so a long session
stays fast; the table follows new rows while its cursor is on the last one.

``/`` filters (every word must match the tool, chat, bot or status), Esc clears it, and
Enter asks the app to show the whole call: arguments and output.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input

from tuibot.events import Event, Notice, ToolFinished, ToolStarted, TurnFinished, TurnStarted
from tuibot.tui import clock
from tuibot.tui.text import bars

if TYPE_CHECKING:
    from tuibot.engine import Engine

MAX_ROWS = 2000
"""Entries kept; older ones are dropped in batches of ``TRIM``."""
TRIM = 200
FILTER_DELAY_S = 0.15
"""The filter applies this long after the last key typed into it."""
MAX_OUTPUT = 20_000
"""Characters of a tool's output kept for the detail view."""
COLUMNS = (
    ("status", "", 7),
    ("time", "time", 8),
    ("tool", "tool", 16),
    ("duration", "took", 6),
    ("arguments", "arguments", 56),
    ("chat", "chat", 16),
    ("bot", "bot", 12),
    ("size", "out", 6),
)
"""(key, header, width): the most telling columns first, for a narrow pane."""
Status = Literal["running", "ok", "error", "info", "warning"]
MARKS = {"running": "…", "ok": "✓", "error": "✗", "info": "i", "warning": "!"}
_TOOL_FILE = re.compile(r"([\w.-]+)\.py\b")


@dataclass(frozen=True)
class ToolEntry:
    """One row: a tool call (or a catalogue notice) and what came of it."""

    key: str
    at: float
    tool: str
    arguments: dict[str, Any] | str
    """The call's arguments, or a notice's whole message."""
    status: Status
    chat: str = ""
    chat_title: str = ""
    bot: str = ""
    duration_s: float | None = None
    output: str | None = None
    output_size: int | None = None
    """The output's full length (``output`` may be cut to ``MAX_OUTPUT``)."""

    @property
    def notice(self) -> bool:
        """A catalogue notice (no chat), not a tool call."""
        return not self.chat

    def words(self) -> str:
        """What the filter matches against, lower case."""
        return f"{self.tool} {self.chat} {self.chat_title} {self.bot} {self.status}".lower()

    def arguments_text(self) -> str:
        """The arguments on one line (JSON for a call, the message for a notice)."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False, separators=(", ", ": "))


class ToolLog(Vertical):
    """A filterable table of tool calls across all chats.

    | Key | Binding id | Does |
    | --- | --- | --- |
    | ``/`` | ``tools_filter`` | Filter by tool, chat, bot or status |
    | ``escape`` | ``tools_clear`` | Clear the filter |
    | ``enter`` | ``tools_detail`` | Show the call's whole arguments and output |
    """

    ALLOW_MAXIMIZE = True

    DEFAULT_CSS = """
    ToolLog { height: 1fr; }
    ToolLog > Input { border: none; height: 1; padding: 0 1; background: $boost; }
    ToolLog > Input:focus { background: $panel; }
    ToolLog > DataTable { height: 1fr; background: $surface; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", id="tools_filter"),
        Binding("escape", "clear_filter", "Clear filter", id="tools_clear", show=False),
        Binding("enter", "detail", "Details", id="tools_detail", show=False),
    ]
    """Each id can be rebound under ``[tui.keys]``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tool-log--running",
        "tool-log--ok",
        "tool-log--error",
        "tool-log--warning",
        "tool-log--muted",
    }
    DEFAULT_CSS += """
    ToolLog > .tool-log--running { color: $accent; }
    ToolLog > .tool-log--ok { color: $success; }
    ToolLog > .tool-log--error { color: $error; }
    ToolLog > .tool-log--warning { color: $warning; }
    ToolLog > .tool-log--muted { color: $text-muted; }
    """

    class DetailRequested(Message):
        """Show this entry in full (the app opens the detail screen)."""

        def __init__(self, log: ToolLog, entry: ToolEntry) -> None:
            super().__init__()
            self.log = log
            self.entry = entry

        @property
        def control(self) -> ToolLog:
            return self.log

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: OrderedDict[str, ToolEntry] = OrderedDict()
        self._bots: dict[str, str] = {}
        """Turn → the bot that runs it (from ``TurnStarted``), until the turn ends."""
        self._chat_bots: dict[str, str] = {}
        self._titles: dict[str, str] = {}
        self._engine: Engine | None = None
        self._notices = 0
        self._following = False
        self._filter_timer: Timer | None = None
        self.query_text = ""
        """The filter as typed; rows must match every word of it."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="/ filter: tool, chat, bot or status", id="tools-filter")
        table: DataTable[Text] = DataTable(cursor_type="row", id="tools-table")
        for key, label, width in COLUMNS:
            table.add_column(label, width=width, key=key)
        yield table

    @property
    def table(self) -> DataTable[Text]:
        """The rows."""
        return self.query_one("#tools-table", DataTable)

    @property
    def filter_input(self) -> Input:
        """The box ``/`` focuses."""
        return self.query_one("#tools-filter", Input)

    def focus(self, scroll_visible: bool = True) -> Self:
        """Focusing the log focuses its table (the pane itself takes no focus)."""
        self.table.focus(scroll_visible)
        return self

    # -- the pane contract -------------------------------------------------------------

    def load(self, engine: Engine) -> None:
        """Remember the chats' titles (called once, when the engine is ready)."""
        self._engine = engine
        self._titles = {meta.id: meta.title for meta in engine.view.chats()}

    def apply(self, event: Event) -> None:
        """Rows from tool calls and chat-less notices; turns tell which bot runs."""
        if isinstance(event, TurnStarted):
            self._bots[event.turn] = self._chat_bots[event.chat] = event.bot
            if event.chat not in self._titles:
                self._learn_title(event.chat)
        elif isinstance(event, TurnFinished):
            self._bots.pop(event.turn, None)
        elif isinstance(event, ToolStarted):
            self._started(event)
        elif isinstance(event, ToolFinished):
            self._finished(event)
        elif isinstance(event, Notice) and not event.chat:
            self._notice(event)

    # -- reading -----------------------------------------------------------------------

    def entries(self) -> list[ToolEntry]:
        """Every kept entry, oldest first."""
        return list(self._entries.values())

    def shown(self) -> list[ToolEntry]:
        """The entries the table shows now (those matching the filter), oldest first."""
        return [entry for entry in self._entries.values() if self.matches(entry)]

    def matches(self, entry: ToolEntry) -> bool:
        """Whether ``entry`` passes the filter: every word in its tool, chat, bot or status."""
        words = entry.words()
        return all(word in words for word in self.query_text.lower().split())

    # -- updating ----------------------------------------------------------------------

    def _started(self, event: ToolStarted) -> None:
        bot = self._bots.get(event.turn) or self._chat_bots.get(event.chat, "")
        key = base = f"{event.turn}:{event.call_id}"
        repeat = 1
        while key in self._entries:  # a server may repeat a call id within a turn
            repeat += 1
            key = f"{base}#{repeat}"
        entry = ToolEntry(
            key=key,
            at=clock.now(),
            tool=event.name,
            arguments=event.arguments,
            status="running",
            chat=event.chat,
            chat_title=self._titles.get(event.chat, ""),
            bot=bot,
        )
        self._add(entry)

    def _running_key(self, event: ToolFinished) -> str | None:
        """The oldest still-running row of this call id (ids may repeat, see ``_started``)."""
        key = base = f"{event.turn}:{event.call_id}"
        repeat = 1
        while key in self._entries:
            if self._entries[key].status == "running":
                return key
            repeat += 1
            key = f"{base}#{repeat}"
        return None

    def _finished(self, event: ToolFinished) -> None:
        key = self._running_key(event)
        if key is None:
            return
        entry = self._entries[key]
        output = event.output
        if len(output) > MAX_OUTPUT:
            output = output[:MAX_OUTPUT] + f"\n… ({len(output) - MAX_OUTPUT} more characters)"
        done = replace(
            entry,
            status="ok" if event.ok else "error",
            duration_s=event.duration_s,
            output=output,
            output_size=len(event.output),
        )
        self._entries[key] = done
        shown = key in self.table.rows
        if not self.matches(done):
            if shown:
                self.table.remove_row(key)
            return
        if not shown:
            self._show(done)
            return
        cells = dict(zip((c[0] for c in COLUMNS), self._cells(done), strict=True))
        for column in ("status", "duration", "size"):
            self.table.update_cell(key, column, cells[column])

    def _notice(self, event: Notice) -> None:
        self._notices += 1
        found = _TOOL_FILE.search(event.message)
        entry = ToolEntry(
            key=f"notice:{self._notices}",
            at=clock.now(),
            tool=found.group(1) if found else "(tools)",
            arguments=event.message,
            status=event.level,
        )
        self._add(entry)

    def _add(self, entry: ToolEntry) -> None:
        self._entries[entry.key] = entry
        if len(self._entries) > MAX_ROWS + TRIM:
            while len(self._entries) > MAX_ROWS:
                self._entries.popitem(last=False)
            self._rebuild()
        elif self.matches(entry):
            self._show(entry)

    def _show(self, entry: ToolEntry) -> None:
        table = self.table
        follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        table.add_row(*self._cells(entry), key=entry.key)
        if follow and not self._following:
            self._following = True  # once per frame: moving the cursor costs O(rows)
            self.call_after_refresh(self._follow)

    def _follow(self) -> None:
        """Keep the cursor (and the view) on the newest row."""
        self._following = False
        self.table.move_cursor(row=self.table.row_count - 1, animate=False)

    def _rebuild(self) -> None:
        """Show the entries that match the filter, from scratch."""
        table = self.table
        table.clear()
        for entry in self.shown():
            table.add_row(*self._cells(entry), key=entry.key)
        table.move_cursor(row=table.row_count - 1, animate=False)

    def _learn_title(self, chat: str) -> None:
        if self._engine is not None:
            self._titles.update((m.id, m.title) for m in self._engine.view.chats())
        self._titles.setdefault(chat, "")

    def _style(self, name: str) -> Any:
        return self.get_component_rich_style(f"tool-log--{name}", partial=True)

    def _cells(self, entry: ToolEntry) -> list[Text]:
        """The row's cells, in ``COLUMNS`` order, as plain text (never markup)."""
        status_style = {"info": "muted", "warning": "warning"}.get(entry.status, entry.status)
        took = "" if entry.duration_s is None else bars.duration(entry.duration_s * 1000)
        out = "" if entry.output_size is None else bars.size(entry.output_size)
        chat = bars.chat_title(entry.chat_title) if entry.chat_title else entry.chat or "—"
        values = [
            Text(f"{MARKS[entry.status]} {entry.status}", style=self._style(status_style)),
            Text(datetime.fromtimestamp(entry.at).strftime("%H:%M:%S"), style=self._style("muted")),
            Text(entry.tool),
            Text(took),
            Text(bars.shorten(entry.arguments_text(), 200)),
            Text(bars.shorten(chat, 40)),
            Text(entry.bot or "—"),
            Text(out),
        ]
        for cell in values:
            cell.no_wrap, cell.overflow = True, "ellipsis"
        return values

    # -- keys --------------------------------------------------------------------------

    def action_filter(self) -> None:
        """Put the cursor in the filter box."""
        self.filter_input.focus()

    def action_clear_filter(self) -> None:
        """Drop the filter and go back to the table."""
        self.filter_input.value = ""
        self._apply_filter()
        self.table.focus()

    def action_detail(self) -> None:
        """Ask the app to show the row under the cursor in full."""
        table = self.table
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        entry = self._entries.get(key or "")
        if entry is not None:
            self.post_message(self.DetailRequested(self, entry))

    @on(Input.Changed, "#tools-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        """Filter once typing pauses: a rebuild of thousands of rows is not per key."""
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY_S, self._apply_filter)

    def _apply_filter(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if self.filter_input.value != self.query_text:
            self.query_text = self.filter_input.value
            self._rebuild()

    @on(Input.Submitted, "#tools-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply_filter()
        self.table.focus()

    @on(DataTable.RowSelected, "#tools-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_detail()
