"""The grants screen (F7): every kept "allow for this chat / always", and a key to revoke one.

Grants make tuibot stop asking, so the person must be able to see them and take them
back. Most live in ``grants.json`` (they outlive the process; ``tuibot grants`` manages the
same file, and a running engine sees a revoke at its next check). Some are this run's
only: a grant that could not be stored, or a queue without a store. Both kinds are listed.
A grants file that cannot be read is shown as the error it is, never fatal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from tuibot.approvals import ApprovalQueue

EMPTY_TEXT = (
    "No grants. When you answer a request with c (allow in this chat) or a (allow always), "
    "the decision is kept here so the same question is not asked again."
)


@dataclass(frozen=True)
class GrantRow:
    """One line of the table: a stored grant, or one of this run only."""

    id: str
    """The stored grant's id (``g_…``), or a made-up one for a grant of this run."""
    scope: str
    chat: str | None
    key: str
    created: float | None
    """When it was granted; None for a grant kept in memory (this run only)."""
    reason: str = ""

    @property
    def stored(self) -> bool:
        """Whether it lives in grants.json (else only in this run's memory)."""
        return self.created is not None


def grant_rows(queue: ApprovalQueue) -> tuple[list[GrantRow], str]:
    """Every grant the queue knows, oldest stored first, and the grants file's problem."""
    from tuibot.approvals.grants import GrantStoreError

    rows: list[GrantRow] = []
    problem = ""
    if queue.grants is not None:
        try:
            stored = queue.grants.all()
        except GrantStoreError as error:
            problem = str(error)
        else:
            rows = [GrantRow(g.id, g.scope, g.chat, g.key, g.created, g.reason) for g in stored]
    for chat, key in sorted(queue.chat_grants):
        rows.append(GrantRow(f"run:chat:{chat}:{key}", "chat", chat, key, None))
    for key in sorted(queue.lifetime_grants):
        rows.append(GrantRow(f"run:lifetime:{key}", "lifetime", None, key, None))
    return rows, problem


class GrantsScreen(ModalScreen[None]):
    """A table of grants; d revokes the highlighted one."""

    DEFAULT_CSS = """
    GrantsScreen { align: center middle; }
    GrantsScreen > Vertical {
        width: 90%; max-width: 130; height: 80%; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    GrantsScreen .title { text-style: bold; margin-bottom: 1; }
    GrantsScreen DataTable { height: 1fr; }
    GrantsScreen .problem { color: $error; margin-bottom: 1; }
    GrantsScreen .empty { color: $text-muted; margin-bottom: 1; }
    GrantsScreen .hint { color: $text-muted; margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d,delete", "revoke", "Revoke", id="grant_revoke"),
        Binding("r", "reload", "Reload", id="grant_reload"),
        Binding("escape", "dismiss", "Close", id="grants_close"),
    ]
    """Keys of the grants screen; each id can be rebound under ``[tui.keys]``."""

    def __init__(self, source: ApprovalQueue) -> None:
        super().__init__()
        self.source = source
        """The engine's approval queue: its grant store and this run's grants."""
        self.rows: dict[str, GrantRow] = {}
        """What the table shows, by row key."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Grants: decisions kept so tuibot does not ask again", classes="title")
            yield Static("", classes="problem")
            yield Static(EMPTY_TEXT, classes="empty")
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Label("d revoke · r reload · Esc close", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("scope", "chat", "key", "created", "reason", "id")
        self.reload()
        table.focus()

    def reload(self) -> None:
        """Read the grants again and show them (the cursor stays on the same row number)."""
        rows, problem = grant_rows(self.source)
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        self.rows = {row.id: row for row in rows}
        for row in rows:
            table.add_row(*self._cells(row), key=row.id)
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))
        problem_line = self.query_one(".problem", Static)
        problem_line.update(problem)
        problem_line.display = bool(problem)
        self.query_one(".empty", Static).display = not rows and not problem

    @staticmethod
    def _cells(row: GrantRow) -> tuple[str, str, str, str, str, str]:
        created = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(row.created))
            if row.created is not None
            else "this run only"
        )
        chat = row.chat or "every chat"
        shown_id = row.id if row.stored else "-"
        return row.scope, chat, row.key, created, row.reason, shown_id

    def action_reload(self) -> None:
        """Re-read the grants file (another process may have changed it)."""
        self.reload()

    def action_revoke(self) -> None:
        """Revoke the highlighted grant: from grants.json, or from this run's memory."""
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0:
            self.notify("No grant to revoke.", timeout=2)
            return
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        row = self.rows.get(str(row_key.value))
        if row is not None:
            self._revoke(row)
        self.reload()

    def _revoke(self, row: GrantRow) -> None:
        from tuibot.approvals.grants import GrantStoreError

        queue = self.source
        if not row.stored:
            if row.chat is not None:
                queue.chat_grants.discard((row.chat, row.key))
            else:
                queue.lifetime_grants.discard(row.key)
        elif queue.grants is not None:
            try:
                queue.grants.revoke(row.id)
            except GrantStoreError as error:
                self.notify(str(error), severity="error", markup=False)
                return
        where = "" if row.stored else " (this run only)"
        self.notify(f"Revoked {row.key}{where}.", timeout=3, markup=False)
