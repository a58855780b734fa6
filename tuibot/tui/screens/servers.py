"""The MCP servers screen (F10): each server's state, tool and prompt counts, and why it failed.

Why a screen: a failing server otherwise shows only as one notice in the tool log, and
its tools keep refusing in one line. Here the person sees every server at once (starting,
ready, failed with its reason and the tail of its stderr, disabled), and ``r`` restarts
the highlighted one now instead of waiting for its backoff. Everything a server wrote is
shown escaped (``visible``) and without markup: it is untrusted text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from tuibot.visible import visible

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from tuibot.engine import Engine
    from tuibot.mcp.manager import ServerView

EMPTY_TEXT = (
    "No MCP servers configured. Add one with `tuibot mcp add NAME -- COMMAND ARGS…`; "
    "the config is watched, so it appears here at once. See docs/mcp.md."
)
REFRESH_SECONDS = 0.5
STDERR_LINES = 12


class ServersScreen(ModalScreen[None]):
    """A table of MCP servers; r restarts the highlighted one, Esc closes."""

    DEFAULT_CSS = """
    ServersScreen { align: center middle; }
    ServersScreen > Vertical {
        width: 95%; max-width: 160; height: 85%; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    ServersScreen .title { text-style: bold; margin-bottom: 1; }
    ServersScreen .empty { color: $text-muted; margin-bottom: 1; }
    ServersScreen DataTable { height: auto; max-height: 50%; }
    ServersScreen .detail { height: 1fr; margin-top: 1; overflow-y: auto; }
    ServersScreen .hint { color: $text-muted; margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "restart", "Restart", id="server_restart"),
        Binding("escape", "dismiss", "Close", id="servers_close"),
    ]
    """Keys of the servers screen; each id can be rebound under ``[tui.keys]``."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        """Read through ``engine.view.mcp_servers()``; ``r`` is ``engine.restart_mcp_server``."""
        self.views: list[ServerView] = []
        """What the table shows, in order."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("MCP servers", classes="title")
            yield Static(EMPTY_TEXT, classes="empty", markup=False)
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Static("", classes="detail", markup=False)
            yield Label("r restart the highlighted server · Esc close", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("server", "transport", "state", "tools", "prompts", "reason")
        self.reload()
        self.set_interval(REFRESH_SECONDS, self.reload)
        table.focus()

    def reload(self) -> None:
        """Read the servers' states again (the cursor stays on the same row)."""
        self.views = list(self.engine.view.mcp_servers())
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for view in self.views:
            table.add_row(*_cells(view), key=view.name)
        if self.views:
            table.move_cursor(row=min(max(cursor, 0), len(self.views) - 1))
        self.query_one(".empty", Static).display = not self.views
        self._show_detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        view = self.highlighted()
        self.query_one(".detail", Static).update(detail_text(view) if view else "")

    def highlighted(self) -> ServerView | None:
        """The server under the cursor."""
        row = self.query_one(DataTable).cursor_row
        return self.views[row] if 0 <= row < len(self.views) else None

    async def action_restart(self) -> None:
        """Restart the highlighted server now (its backoff starts again from 1 s)."""
        view = self.highlighted()
        if view is None:
            return
        if await self.engine.restart_mcp_server(view.name):
            self.notify(f"Restarting MCP server {view.name}.", timeout=3, markup=False)
        else:
            self.notify(f"MCP server {view.name} is disabled in the config.", markup=False)
        self.reload()


def _cells(view: ServerView) -> tuple[str, ...]:
    reason = visible(view.reason, keep_newlines=False)
    if view.state == "failed" and view.retry_in:
        reason += f" (retry in {view.retry_in:g} s)"
    return (view.name, view.transport, view.state, str(view.tools), str(view.prompts), reason)


def detail_text(view: ServerView) -> str:
    """The highlighted server's whole reason and the tail of its stderr, escaped."""
    lines = [f"{view.name}: {view.state}"]
    if view.reason:
        lines.append(f"reason: {visible(view.reason)}")
    if view.stderr_tail:
        lines.append("stderr (last lines):")
        lines += [f"  {visible(line)}" for line in view.stderr_tail.splitlines()[-STDERR_LINES:]]
    return "\n".join(lines)
