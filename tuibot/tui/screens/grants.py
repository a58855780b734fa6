"""The grants screen (F7): every kept "allow for this chat / always", and a key to revoke one.

Grants make tuibot stop asking, so the person must be able to see them and take them
back. Most live in ``grants.json`` (they outlive the process; ``tuibot grants`` manages the
same file, and a running engine sees a revoke at its next check). Some are this run's
only: a grant that could not be stored, or a queue without a store. Both kinds are listed.
A grants file that cannot be read is shown as the error it is, never fatal.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from tuibot.approvals import KeptGrant
    from tuibot.engine import Engine

EMPTY_TEXT = (
    "No grants. When you answer a request with c (allow in this chat) or a (allow always), "
    "the decision is kept here so the same question is not asked again."
)


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

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        """Read through ``engine.view.grants()``; revoked with ``engine.revoke_grant``."""
        self.rows: dict[str, KeptGrant] = {}
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
        rows, problem = self.engine.view.grants()
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
    def _cells(row: KeptGrant) -> tuple[str, str, str, str, str, str]:
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

    def _revoke(self, row: KeptGrant) -> None:
        from tuibot.approvals.grants import GrantStoreError

        try:
            self.engine.revoke_grant(row)
        except GrantStoreError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        where = "" if row.stored else " (this run only)"
        self.notify(f"Revoked {row.key}{where}.", timeout=3, markup=False)
